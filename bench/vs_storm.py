#!/usr/bin/env python3
"""vs_storm.py -- the Storm side of bench/vs_storm.sh (run inside its venv).

  vs_storm.py drn DIR OUT.drn
      Converts the PRISM explicit export DIR/NAME.tra + NAME.lab (+ the
      reward files NAME*.srew / NAME*.trew, grouped by their '# Reward
      structure "NAME"' headers) into Storm's .drn format: the same MDP,
      labels and reward structures (a .trew's rewards become each choice's
      expected transition reward, as warpex reads them).

  vs_storm.py check MODEL.drn EPSILON FORMULA...
      Loads MODEL.drn with stormpy and checks every formula with Storm's
      sound engine (force_soundness, absolute precision EPSILON,
      only_initial_states).  Prints one line "load SECONDS", then per
      formula "prop INDEX SECONDS VALUE" (VALUE at the first initial
      state; "error: ..." instead of SECONDS VALUE when Storm fails).

  vs_storm.py prism MODEL.prism CONSTANTS EPSILON FORMULA...
      Builds the PRISM program (CONSTANTS: "K=2" or "A=1,B=2") with Storm's
      sparse engine, keeping what the formulas need, and checks them as
      above.  Prints "build SECONDS STATES CHOICES" (parse and build), then
      per formula "prop INDEX SECONDS VALUE".
"""
import fractions
import glob
import os
import re
import sys
import time


def read_tra(path):
    with open(path) as f:
        lines = [l for l in f if l.strip() and not l.startswith('#')]
    head = lines[0].split()
    dtmc = len(head) == 2
    n = int(head[0])
    choices = [dict() for _ in range(n)]  # state -> choice -> [(dst, prob, action)]
    for l in lines[1:]:
        t = l.split()
        if dtmc:
            s, c, d, p, a = int(t[0]), 0, int(t[1]), t[2], None
        else:
            s, c, d, p = int(t[0]), int(t[1]), int(t[2]), t[3]
            a = t[4] if len(t) > 4 else None
        choices[s].setdefault(c, []).append((d, p, a))
    return n, dtmc, choices


def read_lab(path, n):
    names, per_state = {}, [[] for _ in range(n)]
    with open(path) as f:
        for l in f:
            l = l.strip()
            if not l or l.startswith('#'):
                continue
            if '=' in l and not names:
                for m in re.finditer(r'(\d+)="([^"]*)"', l):
                    names[int(m.group(1))] = m.group(2)
                continue
            s, ids = l.split(':')
            per_state[int(s)] = [names[int(i)] for i in ids.split()]
    return per_state


def structure_name(path):
    with open(path) as f:
        for l in f:
            m = re.match(r'#\s*Reward structure\s+"([^"]*)"', l)
            if m:
                return m.group(1)
            if not l.startswith('#'):
                break
    return None


def read_rewards(stem, n, choices, dtmc):
    """[(name, state[n], choice{(s, c): r})] in order of first appearance."""
    models = []

    def model(name):
        for m in models:
            if m[0] == name:
                return m
        models.append((name, [0.0] * n, {}))
        return models[-1]

    for path in sorted(glob.glob(stem + '*.srew')):
        m = model(structure_name(path) or 'default')
        with open(path) as f:
            rows = [l.split() for l in f if l.strip() and not l.startswith('#')]
        for t in rows[1:]:
            m[1][int(t[0])] += float(t[1])
    for path in sorted(glob.glob(stem + '*.trew')):
        m = model(structure_name(path) or 'default')
        with open(path) as f:
            rows = [l.split() for l in f if l.strip() and not l.startswith('#')]
        for t in rows[1:]:
            if dtmc:
                s, c, d, r = int(t[0]), 0, int(t[1]), float(t[2])
            else:
                s, c, d, r = int(t[0]), int(t[1]), int(t[2]), float(t[3])
            p = next(float(pp) for dd, pp, _ in choices[s][c] if dd == d)
            m[2][(s, c)] = m[2].get((s, c), 0.0) + p * r
    return models


def to_drn(directory, out):
    name = os.path.basename(os.path.normpath(directory))
    stem = os.path.join(directory, name)
    n, dtmc, choices = read_tra(stem + '.tra')
    labels = read_lab(stem + '.lab', n)
    rew = read_rewards(stem, n, choices, dtmc)
    nc = sum(len(c) for c in choices)
    with open(out + '.tmp', 'w') as f:
        f.write('// %s, converted by bench/vs_storm.py\n@type: %s\n@parameters\n\n@reward_models\n'
                % (name, 'DTMC' if dtmc else 'MDP'))
        f.write(' '.join(m[0] for m in rew) + '\n')
        f.write('@nr_states\n%d\n@nr_choices\n%d\n@model\n' % (n, nc))
        for s in range(n):
            sr = ' [%s]' % ', '.join(repr(m[1][s]) for m in rew) if rew else ''
            f.write('state %d%s%s\n' % (s, sr, ''.join(' ' + l for l in labels[s])))
            for c in sorted(choices[s]):
                cr = ' [%s]' % ', '.join(repr(m[2].get((s, c), 0.0)) for m in rew) if rew else ''
                f.write('\taction %d%s\n' % (c, cr))
                for d, p, _ in choices[s][c]:
                    f.write('\t\t%d : %s\n' % (d, p))
    os.replace(out + '.tmp', out)


def sound_env(stormpy, eps):
    """Storm's sound engine with absolute precision eps."""
    env = stormpy.Environment()
    env.solver().force_soundness = True
    q = fractions.Fraction(eps)
    env.solver().min_max().precision = stormpy.Rational('%d/%d' % (q.numerator, q.denominator))
    env.solver().min_max().relative_termination_criterion = False
    return env


def check(model, eps, formulas):
    import stormpy
    t0 = time.perf_counter()
    m = stormpy.build_model_from_drn(model)
    print('load %.6f' % (time.perf_counter() - t0), flush=True)
    env = sound_env(stormpy, eps)
    init = m.initial_states[0]
    for i, f in enumerate(formulas):
        try:
            t0 = time.perf_counter()
            p = stormpy.parse_properties(f)[0]
            r = stormpy.model_checking(m, p, only_initial_states=True, environment=env)
            v = r.get_value(init)
            print('prop %d %.6f %.17g' % (i, time.perf_counter() - t0, float(v)), flush=True)
        except Exception as e:  # reported per property, the others go on
            print('prop %d error: %s' % (i, str(e).splitlines()[0] if str(e) else type(e).__name__),
                  flush=True)


def prism(path, consts, eps, formulas):
    """Builds the PRISM program at path (constants "NAME=INT,...") with Storm's
    sparse engine and checks each formula soundly; prints "build SECONDS
    STATES CHOICES", then per formula "prop INDEX SECONDS VALUE"."""
    import stormpy
    t0 = time.perf_counter()
    prog = stormpy.parse_prism_program(path)
    em = prog.expression_manager
    values = dict(kv.split('=') for kv in consts.split(',') if kv)
    defs = {c.expression_variable: em.integer(int(values[c.name]))
            for c in prog.constants if c.name in values}
    prog = prog.define_undefined_constants(defs)
    props = stormpy.parse_properties(';'.join(formulas), prog)
    m = stormpy.build_model(prog, props)
    print('build %.6f %d %d' % (time.perf_counter() - t0, m.nr_states, m.nr_choices), flush=True)
    env = sound_env(stormpy, eps)
    init = m.initial_states[0]
    for i, p in enumerate(props):
        t0 = time.perf_counter()
        r = stormpy.model_checking(m, p, only_initial_states=True, environment=env)
        print('prop %d %.6f %.17g' % (i, time.perf_counter() - t0, float(r.get_value(init))), flush=True)


def main(argv):
    if len(argv) == 4 and argv[1] == 'drn':
        to_drn(argv[2], argv[3])
    elif len(argv) >= 4 and argv[1] == 'check':
        check(argv[2], argv[3], argv[4:])
    elif len(argv) >= 6 and argv[1] == 'prism':
        prism(argv[2], argv[3], argv[4], argv[5:])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
