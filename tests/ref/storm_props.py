#!/usr/bin/env python3
"""Reference values of PRISM's property forms, computed by Storm (stormpy).

Writes tests/data/props_ref/storm.tsv, which tests/test_props_ref.c reads:
for the instances of tests/data/mdp (MDPs) and tests/data/dtmc (DTMCs), the
forms `warpex check` takes beyond plain reachability -- step-bounded F<=k,
F<k and U<=k, G and G<=k, cumulative rewards C<=k, expected rewards
R [ F phi ], and comparisons P~p / R~r -- each with Storm's value at every
initial state, or its true/false answer (PRISM's default filter: true iff it
holds at every initial state).

Each instance's NAME.tra, NAME.lab and reward files are converted to Storm's
DRN (transition rewards become each choice's expected reward, as warpex reads
them) and built with stormpy; unbounded values are computed with Storm's
sound methods at relative precision 1e-10.  Step bounds k are chosen so that
the value at k differs from that at k - 1 or k + 1 by more than 1e-7 at some
initial state, and the rows hold k - 1, k and k + 1: a solver that is one step off
fails on one of them.  Storm has no G<=k: its
reference is 1 - Storm's value of F<=k !phi with min and max swapped.

CI does not run this script (it needs stormpy: pip install stormpy); it is
run by hand after a change of the data, and its output is committed.

usage: python3 tests/ref/storm_props.py [OUT]
"""
import os
import re
import sys
import tempfile

import stormpy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INSTANCES = [
    "mdp/consensus-N2-K2", "mdp/consensus-N2-K4", "mdp/csma-N2-K2", "mdp/firewire_abst-delay3",
    "mdp/firewire-false-delay3", "mdp/leader_async-N3", "mdp/leader_async-N4",
    "mdp/philosophers-mdp-N3", "mdp/pnueli-zuck-N3", "mdp/resource-gathering-B200-G15-Gem15",
    "mdp/wlan-MAXBACKOFF0", "mdp/zeroconf-N20-K2-reset", "dtmc/die",
]
STEPS = [3, 5, 8, 12, 20, 30, 50, 80, 120, 200]


def read_tra(path):
    """(is_dtmc, n, rows): rows[s] = list of choices, a choice = [(dst, prob)]."""
    lines = [l.split() for l in open(path) if l.strip() and not l.startswith("#")]
    head = lines[0]
    dtmc = len(head) == 2
    n = int(head[0])
    rows = [[] for _ in range(n)]
    for f in lines[1:]:
        if dtmc:
            s, c, d, p = int(f[0]), 0, int(f[1]), float(f[2])
        else:
            s, c, d, p = int(f[0]), int(f[1]), int(f[2]), float(f[3])
        while len(rows[s]) <= c:
            rows[s].append([])
        rows[s][c].append((d, p))
    return dtmc, n, rows


def read_lab(path, n):
    lines = [l for l in open(path) if l.strip() and not l.startswith("#")]
    names = dict((int(a), b.strip('"')) for a, b in re.findall(r'(\d+)="([^"]*)"', lines[0]))
    labs = [[] for _ in range(n)]
    for l in lines[1:]:
        s, ids = l.split(":")
        labs[int(s)] = [names[int(i)] for i in ids.split()]
    return labs


def reward_name(path):
    m = re.search(r'# Reward structure "([^"]*)"', open(path).read())
    return m.group(1) if m else None


def read_rewards(folder, name, dtmc, n, rows):
    """[(name, state[n], choice{(s, c): r})], paired by name as warpex pairs them."""
    out = {}
    order = []
    for f in sorted(os.listdir(folder)):
        if not f.startswith(name) or not (f.endswith(".srew") or f.endswith(".trew")):
            continue
        path = os.path.join(folder, f)
        key = reward_name(path)
        if key not in out:
            out[key] = ([0.0] * n, {})
            order.append(key)
        st, ch = out[key]
        data = [l.split() for l in open(path) if l.strip() and not l.startswith("#")][1:]
        for r in data:
            if f.endswith(".srew"):
                st[int(r[0])] += float(r[1])
            else:
                s, c, d, v = (int(r[0]), 0, int(r[1]), float(r[2])) if dtmc else \
                    (int(r[0]), int(r[1]), int(r[2]), float(r[3]))
                p = sum(q for t, q in rows[s][c] if t == d)
                ch[(s, c)] = ch.get((s, c), 0.0) + p * v
    return [(k, out[k][0], out[k][1]) for k in order]


def write_drn(path, dtmc, n, rows, labs, rews):
    with open(path, "w") as f:
        f.write("@type: %s\n@parameters\n\n@reward_models\n" % ("DTMC" if dtmc else "MDP"))
        f.write(" ".join(r[0] or "rew%d" % (i + 1) for i, r in enumerate(rews)) + "\n")
        f.write("@nr_states\n%d\n@nr_choices\n%d\n@model\n" % (n, sum(len(r) for r in rows)))
        for s in range(n):
            sr = "[%s]" % ", ".join(repr(r[1][s]) for r in rews) if rews else ""
            f.write("state %d %s %s\n" % (s, sr, " ".join('"%s"' % l for l in labs[s])))
            for c, ch in enumerate(rows[s]):
                cr = "[%s]" % ", ".join(repr(r[2].get((s, c), 0.0)) for r in rews) if rews else ""
                f.write("\taction %d %s\n" % (c, cr))
                for d, p in ch:
                    f.write("\t\t%d : %r\n" % (d, p))


def sound_env():
    env = stormpy.environments.sound()
    env.solver().min_max().precision = stormpy.environments.Rational("1/10000000000")
    return env


ENV = None


def check(model, text):
    """Storm's result for text: a list of values at the initial states, or a bool."""
    prop = stormpy.parse_properties(text)[0]
    r = stormpy.model_checking(model, prop, environment=ENV)
    if r.is_qualitative():
        v = r.get_truth_values_vector()
        return all(v[s] for s in model.initial_states)
    v = r.get_value_vector()
    return [v[s] for s in model.initial_states]


def fmt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return ",".join("inf" if x == float("inf") else repr(x) for x in v)


def apart(a, b):
    return max(abs(x - y) for x, y in zip(a, b)) > 1e-7


def pick_steps(model, make):
    """The first k of STEPS whose value differs from that of k - 1 or k + 1
    (some models move only every other step), with the three values: rows
    for k - 1, k and k + 1 make a solver that is one step off fail on one."""
    for k in STEPS:
        v = [check(model, make(j)) for j in (k - 1, k, k + 1)]
        if apart(v[0], v[1]) or apart(v[1], v[2]):
            return k, v
    return None, None


def targets(folder):
    """The path formulas of the instance's .props file: (opt, path)."""
    out = []
    for f in sorted(os.listdir(folder)):
        if f.endswith(".props"):
            for l in open(os.path.join(folder, f)):
                m = re.search(r'P(min|max)?=\? \[ (.*) \]', l)
                if m:
                    out.append((m.group(1), m.group(2)))
    return out


def rows_for(inst, model, dtmc, rews, folder):
    out = []

    def add(text, value, origin):
        out.append("%s\t%s\t%s\t%s" % (inst, text, fmt(value), origin))

    seen = set()
    for opt, path in targets(folder):
        if dtmc:
            opt = ""
        if " U " in path:
            left, right = path.split(" U ")
            make = lambda k, o=opt: "P%s=? [ %s U<=%d %s ]" % (o, left, k, right)
            kind = "U"
            phi = right
        else:
            phi = path[2:]
            make = lambda k, o=opt: "P%s=? [ F<=%d %s ]" % (o, k, phi)
            kind = "F"
        if (opt, path) in seen:
            continue
        seen.add((opt, path))
        k, vs = pick_steps(model, make)
        if k is not None:
            for j, vj in zip((k - 1, k, k + 1), vs):
                add(make(j), vj, "storm")
            v = vs[1]
            add(make(k).replace("<=%d" % k, "<%d" % (k + 1)), check(model, make(k).replace(
                "<=%d" % k, "<%d" % (k + 1))), "storm")
            # comparisons just around the bounded value at the first initial state
            lo = "%.6f" % (v[0] - 1e-4)
            if 0 <= float(lo) <= 1:
                t = "P%s>=%s [ %s ]" % (opt, lo, make(k).split("[ ")[1][:-2])
                add(t, check(model, t), "storm")
        if kind == "F":
            swap = {"min": "max", "max": "min", "": ""}[opt]
            g = "P%s=? [ G !(%s) ]" % (swap, phi)
            add(g, check(model, g), "storm")
            if k is not None:
                gk = "P%s=? [ G<=%d !(%s) ]" % (swap, k, phi)
                fk = check(model, make(k))
                add(gk, [1 - x for x in fk], "1 - storm: " + make(k))
        # unbounded comparisons on either side of the value
        full = "P%s=? [ %s ]" % (opt, path)
        v = check(model, full)
        for b, cmp in ((v[0] - 1e-3, ">="), (v[0] + 1e-3, ">="), (v[0] + 1e-3, "<")):
            if 0 <= b <= 1:
                t = "P%s%s%.6f [ %s ]" % (opt, cmp, b, path)
                add(t, check(model, t), "storm")
        if opt:  # PRISM's reading without min/max: >= the minimum, < the maximum
            for cmp in (">=", "<"):
                t = "P%s%.6f [ %s ]" % (cmp, min(1.0, max(0.0, v[0])), path)
                add(t, check(model, t), "storm")
    for idx, (name, _, _) in enumerate(rews):
        # warpex names an unnamed structure by its number, the DRN by rewN
        ref_w = '{"%s"}' % name if name else "{%d}" % (idx + 1)
        ref_s = '{"%s"}' % (name or "rew%d" % (idx + 1))
        for opt in ([""] if dtmc else ["min", "max"]):
            make = lambda k, o=opt: "R%s%s=? [ C<=%d ]" % (ref_s, o, k)
            k, vs = pick_steps(model, make)
            if k is None:
                continue
            for j, vj in zip((k - 1, k, k + 1), vs):
                add(make(j).replace(ref_s, ref_w), vj, "storm")
            v = vs[1]
            t = "R%s%s<=%.6f [ C<=%d ]" % (ref_s, opt, v[0] + 1e-3, k)
            add(t.replace(ref_s, ref_w), check(model, t), "storm")
            for _, path in targets(folder)[:1]:
                if " U " in path:
                    continue
                t = "R%s%s=? [ %s ]" % (ref_s, opt, path)
                add(t.replace(ref_s, ref_w), check(model, t), "storm")
    return out


def main():
    global ENV
    ENV = sound_env()
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests/data/props_ref/storm.tsv")
    lines = ["# instance\tproperty\texpected at the initial states (or the answer)\torigin",
             "# written by tests/ref/storm_props.py with stormpy %s" % stormpy.__version__]
    for inst in INSTANCES:
        folder = os.path.join(ROOT, "tests/data", inst)
        name = os.path.basename(inst)
        dtmc, n, rows = read_tra(os.path.join(folder, name + ".tra"))
        labs = read_lab(os.path.join(folder, name + ".lab"), n)
        rews = read_rewards(folder, name, dtmc, n, rows)
        with tempfile.TemporaryDirectory() as tmp:
            drn = os.path.join(tmp, "m.drn")
            write_drn(drn, dtmc, n, rows, labs, rews)
            model = stormpy.build_model_from_drn(drn)
        got = rows_for(inst, model, dtmc, rews, folder)
        print("%s: %d properties" % (inst, len(got)), file=sys.stderr)
        lines += got
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
