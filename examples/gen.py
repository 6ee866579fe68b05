#!/usr/bin/env python3
"""gen.py -- scalable example networks of LTSs for warpex, with known counts.

For each model family and size this writes the component LTSs (Aldebaran
.aut) and one EXP file composing them, and it knows the product's number of
reachable states, transitions and deadlocks WITHOUT using warpex:

  * a closed form or transfer-matrix formula, where one was derived, and
  * an explicit-state explorer written here over the *model definition*
    (state tuples and transition rules coded directly from the informal model,
    never from the .aut/.exp text), run on every instance small enough.

Where both exist they must agree; the generator refuses to write a counts row
on a disagreement.  Counts follow warpex's promises (explorer/explore.h):
states = reachable state vectors, transitions = distinct (source, label,
target) triples (hidden transitions all carry the label "i"), deadlocks =
reachable states without successors.

Usage:
  python3 examples/gen.py                 write the committed small instances
                                          under examples/<family>/ and
                                          examples/counts.tsv
  python3 examples/gen.py --large DIR     write the big instances (ladder of
                                          ~1e6..1e9 states) under DIR/<family>/
  python3 examples/gen.py --list          print the instance table
  python3 examples/gen.py --check         regenerate the small instances in a
                                          temporary directory, compare them
                                          byte for byte with the committed
                                          files, and cross-check every formula
                                          against the explorer on a range of
                                          sizes (exit status 1 on a mismatch)

Only the Python 3 standard library is used.  Output is deterministic.
"""

import argparse
import filecmp
import os
import shutil
import signal
import sys
import tempfile
from collections import deque
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
HIDDEN = "i"

# Instances whose state count is at most this are explored by the Python
# explorer when the small set is written (roughly 1e5 states per 2 seconds).
EXPLORE_LIMIT = 250_000
# --check --quick (the test suite) explores at most this many states per instance.
QUICK_LIMIT = 30_000


# --------------------------------------------------------------------------
# Writing LTSs


class Aut:
    """A component LTS under construction.  States are arbitrary hashable
    keys, numbered in order of first mention; the first state mentioned
    (pass it to the constructor) is the initial state 0."""

    def __init__(self, initial):
        self.ids = {}
        self.trans = []
        self.seen = set()
        self.state(initial)

    def state(self, key):
        if key not in self.ids:
            self.ids[key] = len(self.ids)
        return self.ids[key]

    def add(self, src, label, dst):
        t = (self.state(src), label, self.state(dst))
        assert t not in self.seen, "duplicate transition %r" % (t,)
        self.seen.add(t)
        self.trans.append(t)

    def text(self):
        out = ["des (0, %d, %d)\n" % (len(self.trans), len(self.ids))]
        for s, lab, t in self.trans:
            lab_txt = lab if lab == HIDDEN else '"%s"' % lab
            out.append("(%d, %s, %d)\n" % (s, lab_txt, t))
        return "".join(out)


def q(label):
    """An EXP string literal (our labels never contain quotes or backslashes
    except in the regexes, which are written as intended)."""
    return '"%s"' % label


def vector(n, entries, result):
    """A label/gate vector of n entries: entries maps position -> label."""
    parts = []
    for p in range(n):
        parts.append(q(entries[p]) if p in entries else "_")
    return "    " + " * ".join(parts) + " -> " + q(result)


# --------------------------------------------------------------------------
# The independent explorer (over model rules, not over files)


def explore(initial, successors, limit=None):
    """Breadth-first search.  successors(s) returns an iterable of
    (label, target) pairs; duplicates are merged (transitions form a set).
    Returns (states, transitions, deadlocks)."""
    seen = {initial}
    todo = deque([initial])
    n_trans = 0
    n_dead = 0
    while todo:
        s = todo.popleft()
        succ = set(successors(s))
        if not succ:
            n_dead += 1
        n_trans += len(succ)
        for _, t in succ:
            if t not in seen:
                seen.add(t)
                todo.append(t)
                if limit is not None and len(seen) > limit:
                    raise RuntimeError("explorer limit %d exceeded" % limit)
    return len(seen), n_trans, n_dead


def replace(tup, i, v):
    return tup[:i] + (v,) + tup[i + 1:]


def mat_mul(a, b):
    n = len(a)
    return [[sum(a[i][k] * b[k][j] for k in range(n)) for j in range(n)]
            for i in range(n)]


def mat_pow(m, e):
    n = len(m)
    r = [[int(i == j) for j in range(n)] for i in range(n)]
    while e:
        if e & 1:
            r = mat_mul(r, m)
        m = mat_mul(m, m)
        e >>= 1
    return r


# --------------------------------------------------------------------------
# Families.  Each family class provides:
#   name, small (list of param dicts), large (list of param dicts),
#   check_sizes (param dicts for formula-vs-explorer cross-checks),
#   inst(p) -> instance name, desc(p) -> params text,
#   files(p) -> {filename: text} including "<inst>.exp",
#   model(p) -> (initial, successors), formula(p) -> (S, T, D) or None.


class Milner:
    """Milner's scheduler: n cyclers in a ring pass a token.  Cycler i waits
    for the token (c_i), starts its task (a_i), then ends the task (b_i) and
    passes the token on (c_{i+1}) in either order, and waits again.
    The token passing is hidden; a_i, b_i stay visible.

    Cycler local states: W wait token, A token got, B started (task running,
    token held), C task ended, token held, D token passed, task running.
    Exactly one cycler is in {A, B, C} (token holder); every other one is in
    {W, D}, all 2^(n-1) combinations reachable:
        states      = 3 n 2^(n-1)
        transitions = 3 n (n+1) 2^(n-2)
        deadlocks   = 0
    (per holder and set S of others in D: |S| b-moves, plus A:1, B:1+[succ
    not in S], C:[succ not in S]; summing over S gives 3 (n+1) 2^(n-2).)"""

    name = "milner"
    small = [dict(n=2), dict(n=3), dict(n=5), dict(n=8), dict(n=12)]
    large = [dict(n=16), dict(n=19), dict(n=22), dict(n=25), dict(n=27)]
    check_sizes = [dict(n=k) for k in range(2, 12)]

    W, A, B, C, D = range(5)

    def inst(self, p):
        return "milner_n%d" % p["n"]

    def desc(self, p):
        return "n=%d" % p["n"]

    def cycler(self, first):
        # Template with gates A, B (task start/end), GET/PUT (token in/out).
        aut = Aut("A" if first else "W")
        aut.add("W", "GET", "A")
        aut.add("A", "A", "B")
        aut.add("B", "B", "C")
        aut.add("B", "PUT", "D")
        aut.add("C", "PUT", "W")
        aut.add("D", "B", "W")
        return aut.text()

    def files(self, p):
        n = p["n"]
        assert n >= 2
        out = {"cycler.aut": self.cycler(False), "cycler0.aut": self.cycler(True)}
        lines = ["(* Milner's scheduler with %d cyclers (generated by examples/gen.py).\n"
                 "   Cycler i = total rename of a template: A -> \"A !i\", B -> \"B !i\",\n"
                 "   GET -> \"C !i\" (token in), PUT -> \"C !i+1\" (token out).\n"
                 "   The token vectors are hidden by the gate hide of C. *)" % n,
                 "hide C in",
                 "  label par using"]
        lines.append("    (* " + "  ".join("cycler%d" % i for i in range(n)) + " *)")
        vecs = []
        for i in range(n):
            vecs.append(vector(n, {i: "A !%d" % i}, "A !%d" % i))
            vecs.append(vector(n, {i: "B !%d" % i}, "B !%d" % i))
        for i in range(n):
            # token c_i: from cycler i-1 (its PUT) to cycler i (its GET)
            vecs.append(vector(n, {(i - 1) % n: "C !%d" % i, i: "C !%d" % i},
                               "C !%d" % i))
        lines.append(",\n".join(vecs))
        lines.append("  in")
        ops = []
        for i in range(n):
            tmpl = "cycler0.aut" if i == 0 else "cycler.aut"
            ops.append('    total rename "A" -> "A !%d", "B" -> "B !%d", '
                       '"GET" -> "C !%d", "PUT" -> "C !%d" in "%s" end rename'
                       % (i, i, i, (i + 1) % n, tmpl))
        lines.append("\n  ||\n".join(ops))
        lines.append("  end par")
        lines.append("end hide")
        out[self.inst(p) + ".exp"] = "\n".join(lines) + "\n"
        return out

    def model(self, p):
        n = p["n"]
        W, A, B, C, D = self.W, self.A, self.B, self.C, self.D

        def succ(s):
            for i in range(n):
                x = s[i]
                if x == A:
                    yield "A !%d" % i, replace(s, i, B)
                elif x == B:
                    yield "B !%d" % i, replace(s, i, C)
                elif x == D:
                    yield "B !%d" % i, replace(s, i, W)
                if x in (B, C):
                    j = (i + 1) % n
                    if s[j] == W:
                        t = replace(s, i, D if x == B else W)
                        yield HIDDEN, replace(t, j, A)
        return (A,) + (W,) * (n - 1), succ

    def formula(self, p):
        n = p["n"]
        return 3 * n * 2 ** (n - 1), 3 * n * (n + 1) * 2 ** n // 4, 0


class Buffers:
    """A chain of n one-place buffers, each holding nothing or one of d data
    values.  Buffer 0 reads "IN !x" from the environment, buffer n-1 writes
    "OUT !x"; buffer k passes its value to buffer k+1 over gate M(k+1), which
    is hidden.  Every vector of buffer contents is reachable:
        states      = (d+1)^n
        transitions = 2 d (d+1)^(n-1) + (n-1) d (d+1)^(n-2)
        deadlocks   = 0
    (d inputs when buffer 0 is empty, 1 output when buffer n-1 is full, one
    internal move per adjacent (full, empty) pair.)"""

    name = "buffers"
    small = [dict(n=2, d=1), dict(n=4, d=1), dict(n=8, d=1), dict(n=16, d=1),
             dict(n=3, d=2), dict(n=10, d=2), dict(n=5, d=4)]
    large = [dict(n=20, d=1), dict(n=23, d=1), dict(n=27, d=1), dict(n=30, d=1),
             dict(n=13, d=2), dict(n=19, d=2)]
    check_sizes = ([dict(n=k, d=1) for k in range(2, 13)] +
                   [dict(n=k, d=2) for k in range(2, 8)] +
                   [dict(n=k, d=3) for k in range(2, 6)])

    def inst(self, p):
        return "buffers_n%d_d%d" % (p["n"], p["d"])

    def desc(self, p):
        return "n=%d,d=%d" % (p["n"], p["d"])

    def files(self, p):
        n, d = p["n"], p["d"]
        assert n >= 2 and d >= 1
        tmpl = "buffer_d%d.aut" % d
        aut = Aut("empty")
        for x in range(d):
            aut.add("empty", "IN !%d" % x, ("full", x))
            aut.add(("full", x), "OUT !%d" % x, "empty")
        out = {tmpl: aut.text()}
        lines = ["(* A chain of %d one-place buffers over %d data value(s) (generated by\n"
                 "   examples/gen.py).  Buffer k is the template with its gates renamed\n"
                 "   (gate mode keeps the offers): IN -> Mk, OUT -> Mk+1; the first\n"
                 "   keeps IN and the last keeps OUT.  Local interfaces pair Mk\n"
                 "   between neighbours; the M gates are hidden by a regex. *)" % (n, d),
                 'gate hide "M[0-9]*" in',
                 "  par"]
        ops = []
        for k in range(n):
            iface = []
            ren = []
            if k > 0:
                iface.append("M%d" % k)
                ren.append("IN -> M%d" % k)
            if k < n - 1:
                iface.append("M%d" % (k + 1))
                ren.append("OUT -> M%d" % (k + 1))
            ops.append("    %s -> gate rename %s in \"%s\" end rename"
                       % (", ".join(iface), ", ".join(ren), tmpl))
        lines.append("\n  ||\n".join(ops))
        lines.append("  end par")
        lines.append("end hide")
        out[self.inst(p) + ".exp"] = "\n".join(lines) + "\n"
        return out

    def model(self, p):
        n, d = p["n"], p["d"]
        E = -1

        def succ(s):
            if s[0] == E:
                for x in range(d):
                    yield "IN !%d" % x, replace(s, 0, x)
            for k in range(n - 1):
                if s[k] != E and s[k + 1] == E:
                    yield HIDDEN, replace(replace(s, k + 1, s[k]), k, E)
            if s[n - 1] != E:
                yield "OUT !%d" % s[n - 1], replace(s, n - 1, E)
        return (E,) * n, succ

    def formula(self, p):
        n, d = p["n"], p["d"]
        return ((d + 1) ** n,
                2 * d * (d + 1) ** (n - 1) + (n - 1) * d * (d + 1) ** (n - 2),
                0)


class TokenRing:
    """Token ring: n stations and n one-place channels; channel i carries the
    token from station i to station i+1.  A station without the token may
    become interested (hidden); a station receiving the token keeps its
    interest; with the token, an interested station does ENTER/LEAVE (its
    critical section) and then, like an uninterested one, sends the token on.

    Station local states: N idle, R interested, TN token+idle, TR
    token+interested, CS critical.  The token is either at one station in
    {TN, TR, CS} (the other n-1 stations in {N, R}) or in one channel (all n
    stations in {N, R}):
        states      = 3 n 2^(n-1) + n 2^n              = 5 n 2^(n-1)
        transitions = 3 n (n+1) 2^(n-2) + n (n+2) 2^(n-1) = n (5n+7) 2^(n-2)
        deadlocks   = 0
    Composition: generalised par with global interface SEND#2, RECV#2 (each
    SEND/RECV label is offered by exactly one station and one channel), and
    hide all but ENTER, LEAVE."""

    name = "tokenring"
    small = [dict(n=2), dict(n=3), dict(n=6), dict(n=12)]
    large = [dict(n=15), dict(n=18), dict(n=21), dict(n=24)]
    check_sizes = [dict(n=k) for k in range(2, 11)]

    N, R, TN, TR, CS = range(5)

    def inst(self, p):
        return "tokenring_n%d" % p["n"]

    def desc(self, p):
        return "n=%d" % p["n"]

    def files(self, p):
        n = p["n"]
        assert n >= 2
        out = {}
        pre = self.inst(p)
        for i in range(n):
            aut = Aut("TN" if i == 0 else "N")
            aut.add("N", HIDDEN, "R")
            aut.add("N", "RECV !%d" % i, "TN")
            aut.add("R", "RECV !%d" % i, "TR")
            aut.add("TN", "SEND !%d" % i, "N")
            aut.add("TR", "ENTER !%d" % i, "CS")
            aut.add("CS", "LEAVE !%d" % i, "TN")
            out["%s_s%d.aut" % (pre, i)] = aut.text()
            aut = Aut("empty")
            aut.add("empty", "SEND !%d" % i, "full")
            aut.add("full", "RECV !%d" % ((i + 1) % n), "empty")
            out["%s_c%d.aut" % (pre, i)] = aut.text()
        lines = ["(* Token ring with %d stations and %d one-place channels (generated by\n"
                 "   examples/gen.py).  Station i sends the token to channel i with\n"
                 "   \"SEND !i\"; channel i delivers it to station i+1 with \"RECV !i+1\". *)"
                 % (n, n),
                 "hide all but ENTER, LEAVE in",
                 "  par SEND#2, RECV#2 in"]
        ops = []
        for i in range(n):
            ops.append('    "%s_s%d.aut"' % (pre, i))
            ops.append('    "%s_c%d.aut"' % (pre, i))
        lines.append("\n  ||\n".join(ops))
        lines.append("  end par")
        lines.append("end hide")
        out[pre + ".exp"] = "\n".join(lines) + "\n"
        return out

    def model(self, p):
        n = p["n"]
        N, R, TN, TR, CS = self.N, self.R, self.TN, self.TR, self.CS

        def succ(s):
            st, ch = s
            for i in range(n):
                x = st[i]
                if x == N:
                    yield HIDDEN, (replace(st, i, R), ch)
                elif x == TN and ch[i] == 0:
                    yield HIDDEN, (replace(st, i, N), replace(ch, i, 1))
                elif x == TR:
                    yield "ENTER !%d" % i, (replace(st, i, CS), ch)
                elif x == CS:
                    yield "LEAVE !%d" % i, (replace(st, i, TN), ch)
                if ch[i] == 1:
                    j = (i + 1) % n
                    # the token arrives; a station holding it cannot exist
                    if st[j] in (N, R):
                        y = TN if st[j] == N else TR
                        yield HIDDEN, (replace(st, j, y), replace(ch, i, 0))
        return ((TN,) + (N,) * (n - 1), (0,) * n), succ

    def formula(self, p):
        n = p["n"]
        return 5 * n * 2 ** (n - 1), n * (5 * n + 7) * 2 ** n // 4, 0


class Philosophers:
    """Dining philosophers: n philosophers and n forks, all components.
    Philosopher i: thinking -i-> hungry -"GET !i !i"-> has left fork
    -"GET !i !i+1"-> has both -"EAT !i"-> done eating -"PUT !i !i"-> has right
    fork -"PUT !i !i+1"-> thinking (left fork = fork i, right = fork i+1).
    Fork f: free, taken by philosopher f, or taken by philosopher f-1.
    Composition: (P_0 ||| ... ||| P_n-1) |[GET, PUT]| (F_0 ||| ... ||| F_n-1).

    Fork states are functions of the philosophers' states, so reachable
    states are the cyclic words over the 6 philosopher states in which no
    philosopher holding its right fork (states 3,4,5) is followed by one
    holding its left fork (states 2,3,4):
        states      = trace(M^n) - 1, M[a][b] = 0 iff a in {3,4,5}, b in {2,3,4}
        transitions = n * sum_{p,a,q} en(p,a,q) M[p][a] M[a][q] (M^(n-2))[q][p] - n
                      with en = 1 except: a=1 needs p not in {3,4,5}, a=2
                      needs q not in {2,3,4}
    (the "- 1" and "- n" remove the word 5^n, which has no predecessor)
        deadlocks   = 1 (everybody holds the left fork; the usual demo for
                      --deadlock)"""

    name = "philosophers"
    small = [dict(n=2), dict(n=3), dict(n=5), dict(n=7)]
    large = [dict(n=9), dict(n=11), dict(n=12), dict(n=14)]
    check_sizes = [dict(n=k) for k in range(2, 10)]

    HOLD_L = (2, 3, 4)
    HOLD_R = (3, 4, 5)

    def inst(self, p):
        return "philosophers_n%d" % p["n"]

    def desc(self, p):
        return "n=%d" % p["n"]

    def files(self, p):
        n = p["n"]
        assert n >= 2
        pre = self.inst(p)
        out = {}
        for i in range(n):
            r = (i + 1) % n
            aut = Aut("think")
            aut.add("think", HIDDEN, "hungry")
            aut.add("hungry", "GET !%d !%d" % (i, i), "left")
            aut.add("left", "GET !%d !%d" % (i, r), "both")
            aut.add("both", "EAT !%d" % i, "ate")
            aut.add("ate", "PUT !%d !%d" % (i, i), "right")
            aut.add("right", "PUT !%d !%d" % (i, r), "think")
            out["%s_p%d.aut" % (pre, i)] = aut.text()
        for f in range(n):
            l = (f - 1) % n
            aut = Aut("free")
            aut.add("free", "GET !%d !%d" % (f, f), "byowner")
            aut.add("byowner", "PUT !%d !%d" % (f, f), "free")
            aut.add("free", "GET !%d !%d" % (l, f), "byleft")
            aut.add("byleft", "PUT !%d !%d" % (l, f), "free")
            out["%s_f%d.aut" % (pre, f)] = aut.text()
        phils = " ||| ".join('"%s_p%d.aut"' % (pre, i) for i in range(n))
        forks = " ||| ".join('"%s_f%d.aut"' % (pre, i) for i in range(n))
        text = ("(* Dining philosophers, %d philosophers and %d forks (generated by\n"
                "   examples/gen.py).  \"GET !i !f\": philosopher i takes fork f;\n"
                "   everybody takes the left fork first, so this deadlocks. *)\n"
                "(%s)\n|[GET, PUT]|\n(%s)\n" % (n, n, phils, forks))
        out[pre + ".exp"] = text
        return out

    def model(self, p):
        n = p["n"]
        FREE, OWNER, LEFT = 0, 1, 2   # fork f taken by phil f / by phil f-1

        def succ(s):
            ph, fk = s
            for i in range(n):
                r = (i + 1) % n
                x = ph[i]
                if x == 0:
                    yield HIDDEN, (replace(ph, i, 1), fk)
                elif x == 1 and fk[i] == FREE:
                    yield "GET !%d !%d" % (i, i), (replace(ph, i, 2), replace(fk, i, OWNER))
                elif x == 2 and fk[r] == FREE:
                    yield "GET !%d !%d" % (i, r), (replace(ph, i, 3), replace(fk, r, LEFT))
                elif x == 3:
                    yield "EAT !%d" % i, (replace(ph, i, 4), fk)
                elif x == 4:
                    yield "PUT !%d !%d" % (i, i), (replace(ph, i, 5), replace(fk, i, FREE))
                elif x == 5:
                    yield "PUT !%d !%d" % (i, r), (replace(ph, i, 0), replace(fk, r, FREE))
        return ((0,) * n, (FREE,) * n), succ

    def formula(self, p):
        n = p["n"]
        M = [[0 if (a in self.HOLD_R and b in self.HOLD_L) else 1
              for b in range(6)] for a in range(6)]
        Mn = mat_pow(M, n)
        states = sum(Mn[i][i] for i in range(6))
        Mr = mat_pow(M, n - 2)

        def en(pv, a, qv):
            if a == 1:
                return pv not in self.HOLD_R
            if a == 2:
                return qv not in self.HOLD_L
            return True
        acc = 0
        for pv in range(6):
            for a in range(6):
                for qv in range(6):
                    if en(pv, a, qv):
                        acc += M[pv][a] * M[a][qv] * Mr[qv][pv]
        # The word 5^n (everybody holds only the right fork) satisfies the
        # pairwise constraint but has no predecessor: the only way into
        # state 5 is 4 -> 5 (put the left fork), and before the last such
        # move that philosopher and its left neighbour would both have held
        # the same fork.  It is not initial, so it is unreachable; its n
        # outgoing transitions are removed with it.  (That no other word is
        # unreachable is checked by the explorer, n = 2..9.)
        return states - 1, n * acc - n, 1


class Mutex:
    """Filter lock (Peterson's algorithm generalised to n processes) with
    the shared variables as components.  Shared: level[0..n-1] and
    victim[1..n-1], each a variable component over 0..n-1 (initially 0) with
    "R !v" (read, a self-loop) and "W !v" (write).  Process i, for levels
    l = 1..n-1: write level[i]:=l, write victim[l]:=i, then repeatedly read
    victim[l] (not i: level passed) and level[k] for every k != i in order
    (some level[k] >= l: start over at victim[l]; all lower: level passed).
    After level n-1: ENTER, LEAVE, write level[i]:=0, start again.  Every
    access is one step; only ENTER/LEAVE stay visible.

    Composition: gate-mode vectors (gate par using) between process gates
    WL<i>, RL<k>, WV<l>, RV<l> and the variables' gates W, R, matched by their
    identical offers; hide all but ENTER, LEAVE.
    No closed form: counts come from the explorer (n = 2, 3, 4).  n = 2 is
    Peterson's algorithm."""

    name = "mutex"
    small = [dict(n=2), dict(n=3), dict(n=4)]
    large = []
    check_sizes = []

    def inst(self, p):
        return "mutex_n%d" % p["n"]

    def desc(self, p):
        return "n=%d" % p["n"]

    def files(self, p):
        n = p["n"]
        assert n >= 2
        pre = self.inst(p)
        out = {}
        var = Aut(0)
        for v in range(n):
            var.add(v, "R !%d" % v, v)
            for w in range(n):
                var.add(v, "W !%d" % w, w)
        vname = "var%d.aut" % n
        out[vname] = var.text()
        for i in range(n):
            others = [k for k in range(n) if k != i]

            def after(l):
                return ("setl", l + 1) if l < n - 1 else "ready"
            aut = Aut(("setl", 1))
            for l in range(1, n):
                aut.add(("setl", l), "WL%d !%d" % (i, l), ("setv", l))
                aut.add(("setv", l), "WV%d !%d" % (l, i), ("chkv", l))
                for v in range(n):
                    aut.add(("chkv", l), "RV%d !%d" % (l, v),
                            ("chkl", l, 0) if v == i else after(l))
                for j, k in enumerate(others):
                    nxt = ("chkl", l, j + 1) if j + 1 < len(others) else after(l)
                    for x in range(n):
                        aut.add(("chkl", l, j), "RL%d !%d" % (k, x),
                                ("chkv", l) if x >= l else nxt)
            aut.add("ready", "ENTER !%d" % i, "cs")
            aut.add("cs", "LEAVE !%d" % i, "reset")
            aut.add("reset", "WL%d !0" % i, ("setl", 1))
            out["%s_p%d.aut" % (pre, i)] = aut.text()
        # operand order: P0..Pn-1, level0..level n-1, victim1..victim n-1
        m = 3 * n - 1

        def lv(k):
            return n + k

        def vc(l):
            return 2 * n + l - 1
        vecs = []
        for i in range(n):
            vecs.append(vector(m, {i: "WL%d" % i, lv(i): "W"}, "WL%d" % i))
            for k in range(n):
                if k != i:
                    vecs.append(vector(m, {i: "RL%d" % k, lv(k): "R"}, "RL%d" % k))
            for l in range(1, n):
                vecs.append(vector(m, {i: "WV%d" % l, vc(l): "W"}, "WV%d" % l))
                vecs.append(vector(m, {i: "RV%d" % l, vc(l): "R"}, "RV%d" % l))
            vecs.append(vector(m, {i: "ENTER"}, "ENTER"))
            vecs.append(vector(m, {i: "LEAVE"}, "LEAVE"))
        names = (["p%d" % i for i in range(n)] + ["level%d" % k for k in range(n)] +
                 ["victim%d" % l for l in range(1, n)])
        lines = ["(* Filter lock (n-process Peterson) for %d processes, shared variables as\n"
                 "   components (generated by examples/gen.py).  Gate-mode vectors: a\n"
                 "   process gate and a variable gate (R or W) synchronise on identical\n"
                 "   offers, the result keeps the process gate and the offers. *)" % n,
                 "hide all but ENTER, LEAVE in",
                 "  gate par using",
                 "    (* " + "  ".join(names) + " *)",
                 ",\n".join(vecs),
                 "  in"]
        ops = ['    "%s_p%d.aut"' % (pre, i) for i in range(n)]
        ops += ['    "%s"' % vname] * (2 * n - 1)
        lines.append("\n  ||\n".join(ops))
        lines.append("  end par")
        lines.append("end hide")
        out[pre + ".exp"] = "\n".join(lines) + "\n"
        return out

    def model(self, p):
        n = p["n"]
        # process state: ("setl", l) | ("setv", l) | ("chkv", l) |
        # ("chk", l, k) checking level[k] | "ready" | "cs" | "reset"

        def next_level(l):
            return ("setl", l + 1) if l + 1 < n else "ready"

        def next_check(i, l, k):
            k += 1
            if k == i:
                k += 1
            return ("chk", l, k) if k < n else next_level(l)

        def succ(s):
            pc, level, victim = s
            for i in range(n):
                c = pc[i]
                if c == "ready":
                    yield "ENTER !%d" % i, (replace(pc, i, "cs"), level, victim)
                elif c == "cs":
                    yield "LEAVE !%d" % i, (replace(pc, i, "reset"), level, victim)
                elif c == "reset":
                    yield HIDDEN, (replace(pc, i, ("setl", 1)), replace(level, i, 0), victim)
                elif c[0] == "setl":
                    yield HIDDEN, (replace(pc, i, ("setv", c[1])), replace(level, i, c[1]), victim)
                elif c[0] == "setv":
                    l = c[1]
                    yield HIDDEN, (replace(pc, i, ("chkv", l)), level, replace(victim, l, i))
                elif c[0] == "chkv":
                    l = c[1]
                    if victim[l] != i:
                        t = next_level(l)
                    else:
                        t = next_check(i, l, -1)
                    yield HIDDEN, (replace(pc, i, t), level, victim)
                elif c[0] == "chk":
                    l, k = c[1], c[2]
                    t = ("chkv", l) if level[k] >= l else next_check(i, l, k)
                    yield HIDDEN, (replace(pc, i, t), level, victim)
        # victim[0] is unused and stays 0
        return ((("setl", 1),) * n, (0,) * n, (0,) * n), succ

    def formula(self, p):
        return None


class ABP:
    """Alternating bit protocol over two lossy one-place channels, d data
    values.  Sender: READY(b) -"IN !x"-> SEND(x,b) -"SK !x !b"-> WAIT(x,b);
    WAIT(x,b) -"LS !b"-> READY(1-b), -"LS !1-b"-> WAIT(x,b) (stale ack),
    -i-> SEND(x,b) (timeout, retransmit).  Channel K: empty -"SK !x !b"->
    full(x,b) -"KR !x !b"-> empty, full -i-> empty (loss); channel L the same
    for acknowledgement bits (RL, LS).  Receiver: EXP(b) -"KR !x !b"->
    DLV(x,b) -"OUT !x"-> ACK(b) -"RL !b"-> EXP(1-b); EXP(b) -"KR !x !1-b"->
    ACK(1-b) -"RL !1-b"-> EXP(b).
    Composition: hide SK, KR, RL, LS in (S |[SK, LS]| (K ||| L)) |[KR, RL]| R
    (LOTOS hide, no "end hide").

    Counts are polynomials in d (data independence: a state holds at most 3
    data values, so #states = sum_j c_j d(d-1)..(d-j+1) with j <= 3, likewise
    transitions); the cubic is interpolated from the explorer at d = 3..6 and
    confirmed by the explorer at d = 1, 2, 7, 8, 9."""

    name = "abp"
    small = [dict(d=1), dict(d=2), dict(d=5), dict(d=16)]
    large = [dict(d=400), dict(d=1300), dict(d=4000)]
    check_sizes = [dict(d=k) for k in (1, 2, 7, 8, 9)]
    FIT = (3, 4, 5, 6)

    def inst(self, p):
        return "abp_d%d" % p["d"]

    def desc(self, p):
        return "d=%d" % p["d"]

    def files(self, p):
        d = p["d"]
        pre = self.inst(p)
        out = {}
        s = Aut(("ready", 0))
        for b in (0, 1):
            for x in range(d):
                s.add(("ready", b), "IN !%d" % x, ("send", x, b))
                s.add(("send", x, b), "SK !%d !%d" % (x, b), ("wait", x, b))
                s.add(("wait", x, b), "LS !%d" % b, ("ready", 1 - b))
                s.add(("wait", x, b), "LS !%d" % (1 - b), ("wait", x, b))
                s.add(("wait", x, b), HIDDEN, ("send", x, b))
        out[pre + "_sender.aut"] = s.text()
        k = Aut("empty")
        for x in range(d):
            for b in (0, 1):
                k.add("empty", "SK !%d !%d" % (x, b), (x, b))
                k.add((x, b), "KR !%d !%d" % (x, b), "empty")
                k.add((x, b), HIDDEN, "empty")
        out[pre + "_k.aut"] = k.text()
        r = Aut(("exp", 0))
        for b in (0, 1):
            for x in range(d):
                r.add(("exp", b), "KR !%d !%d" % (x, b), ("dlv", x, b))
                r.add(("dlv", x, b), "OUT !%d" % x, ("ack", b))
                r.add(("exp", b), "KR !%d !%d" % (x, 1 - b), ("ack", 1 - b))
            r.add(("ack", b), "RL !%d" % b, ("exp", 1 - b))
        out[pre + "_receiver.aut"] = r.text()
        lch = Aut("empty")
        for b in (0, 1):
            lch.add("empty", "RL !%d" % b, b)
            lch.add(b, "LS !%d" % b, "empty")
            lch.add(b, HIDDEN, "empty")
        out["abp_l.aut"] = lch.text()
        out[pre + ".exp"] = (
            "(* Alternating bit protocol, %d data value(s), lossy channels K (data)\n"
            "   and L (acknowledgements) (generated by examples/gen.py). *)\n"
            "hide SK, KR, RL, LS in\n"
            "  (\"%s_sender.aut\" |[SK, LS]| (\"%s_k.aut\" ||| \"abp_l.aut\"))\n"
            "  |[KR, RL]|\n"
            "  \"%s_receiver.aut\"\n" % (d, pre, pre, pre))
        return out

    def model(self, p):
        d = p["d"]

        def succ(st):
            s, k, r, l = st
            # sender
            if s[0] == "ready":
                for x in range(d):
                    yield "IN !%d" % x, (("send", x, s[1]), k, r, l)
            elif s[0] == "send":
                if k is None:
                    yield HIDDEN, (("wait", s[1], s[2]), (s[1], s[2]), r, l)
            else:  # wait
                x, b = s[1], s[2]
                yield HIDDEN, (("send", x, b), k, r, l)
                if l is not None:
                    ns = ("ready", 1 - b) if l == b else s
                    yield HIDDEN, (ns, k, r, None)
            # channels lose
            if k is not None:
                yield HIDDEN, (s, None, r, l)
            if l is not None:
                yield HIDDEN, (s, k, r, None)
            # receiver
            if r[0] == "exp" and k is not None:
                x, b = k
                nr = ("dlv", x, b) if b == r[1] else ("ack", b)
                yield HIDDEN, (s, None, nr, l)
            elif r[0] == "dlv":
                yield "OUT !%d" % r[1], (s, k, ("ack", r[2]), l)
            elif r[0] == "ack" and l is None:
                yield HIDDEN, (s, k, ("exp", 1 - r[1]), r[1])
        return (("ready", 0), None, ("exp", 0), None), succ

    _poly = None

    def _fit(self):
        if self._poly is None:
            pts = [(d,) + explore(*self.model(dict(d=d))) for d in self.FIT]
            self._poly = [lagrange([(pt[0], pt[c]) for pt in pts]) for c in (1, 2, 3)]
        return self._poly

    def formula(self, p):
        d = p["d"]
        vals = []
        for poly in self._fit():
            v = poly_eval(poly, d)
            assert v.denominator == 1
            vals.append(int(v))
        return tuple(vals)

    def formula_text(self):
        return ", ".join("%s = %s" % (w, poly_str(c))
                         for w, c in zip(("states", "transitions", "deadlocks"), self._fit()))


def lagrange(points):
    """Coefficients (lowest degree first, Fractions) of the polynomial
    through the given (x, y) points."""
    n = len(points)
    coef = [Fraction(0)] * n
    for i, (xi, yi) in enumerate(points):
        basis = [Fraction(1)]
        denom = Fraction(1)
        for j, (xj, _) in enumerate(points):
            if j == i:
                continue
            basis = [Fraction(0)] + basis  # times x
            for t in range(len(basis) - 1):
                basis[t] -= xj * basis[t + 1]
            denom *= xi - xj
        for t in range(n):
            coef[t] += yi * basis[t] / denom
    return coef


def poly_eval(coef, x):
    v = Fraction(0)
    for c in reversed(coef):
        v = v * x + c
    return v


def poly_str(coef):
    terms = []
    for e in range(len(coef) - 1, -1, -1):
        c = coef[e]
        if c == 0:
            continue
        mon = "" if e == 0 else ("d" if e == 1 else "d^%d" % e)
        cs = str(c)
        if mon and c == 1:
            cs = ""
        terms.append(cs + mon if cs else mon)
    return " + ".join(terms) if terms else "0"


class Leader:
    """Chang-Roberts leader election on a unidirectional ring of n nodes with
    one-place channels; channel i carries messages from node i to node i+1.
    Every node first sends its own id, then relays: a received id larger than
    its own is forwarded, a smaller one dropped, its own id makes it the
    leader ("LEADER !id" is the only visible action).  ids gives the ids
    around the ring (a permutation of 1..n).  Ends in exactly one terminal
    state (deadlocks = 1).
    Composition: generalised par with local interfaces (node i: Pi, G(i-1);
    channel i: Pi, Gi), channels are one template renamed by total rename
    with regex back-references, and a total-mode regex hide.
    No closed form: counts come from the explorer."""

    name = "leader"
    small = [dict(ids=(1, 2, 3)), dict(ids=(3, 2, 1)), dict(ids=(1, 2, 3, 4)),
             dict(ids=(4, 3, 2, 1)), dict(ids=(2, 4, 1, 5, 3)),
             dict(ids=(5, 4, 3, 2, 1)), dict(ids=(3, 6, 1, 5, 2, 4)),
             dict(ids=(6, 5, 4, 3, 2, 1)), dict(ids=(4, 7, 2, 6, 1, 5, 3)),
             dict(ids=(8, 7, 6, 5, 4, 3, 2, 1))]
    large = []
    check_sizes = []

    def inst(self, p):
        return "leader_" + "".join(str(x) for x in p["ids"])

    def desc(self, p):
        return "n=%d,ids=%s" % (len(p["ids"]), ".".join(str(x) for x in p["ids"]))

    def files(self, p):
        ids = p["ids"]
        n = len(ids)
        assert n >= 2 and n <= 9 and sorted(ids) == list(range(1, n + 1))
        pre = self.inst(p)
        out = {}
        ch = Aut("empty")
        for x in range(1, n + 1):
            ch.add("empty", "PUT !%d" % x, x)
            ch.add(x, "GET !%d" % x, "empty")
        cname = "chan%d.aut" % n
        out[cname] = ch.text()
        for i in range(n):
            u = ids[i]
            prev = (i - 1) % n
            aut = Aut("init")
            aut.add("init", "P%d !%d" % (i, u), "relay")
            for x in range(1, n + 1):
                if x > u:
                    aut.add("relay", "G%d !%d" % (prev, x), ("fwd", x))
                    aut.add(("fwd", x), "P%d !%d" % (i, x), "relay")
                elif x < u:
                    aut.add("relay", "G%d !%d" % (prev, x), "relay")
                else:
                    aut.add("relay", "G%d !%d" % (prev, x), "elected")
            aut.add("elected", "LEADER !%d" % u, "done")
            out["%s_n%d.aut" % (pre, i)] = aut.text()
        lines = ["(* Chang-Roberts leader election, %d nodes with ids %s around the ring\n"
                 "   (generated by examples/gen.py).  Channel i (node i -> node i+1) is\n"
                 "   the template with PUT -> Pi and GET -> Gi by total rename. *)"
                 % (n, " ".join(str(x) for x in ids)),
                 'total hide "P[0-9]* !.*", "G[0-9]* !.*" in',
                 "  par"]
        ops = []
        for i in range(n):
            ops.append('    P%d, G%d -> "%s_n%d.aut"' % (i, (i - 1) % n, pre, i))
            ops.append('    P%d, G%d -> total rename "PUT \\(!.*\\)" -> "P%d \\1", '
                       '"GET \\(!.*\\)" -> "G%d \\1" in "%s" end rename'
                       % (i, i, i, i, cname))
        lines.append("\n  ||\n".join(ops))
        lines.append("  end par")
        lines.append("end hide")
        out[pre + ".exp"] = "\n".join(lines) + "\n"
        return out

    def model(self, p):
        ids = p["ids"]
        n = len(ids)

        def succ(s):
            nodes, chans = s
            for i in range(n):
                u = ids[i]
                c = nodes[i]
                prev = (i - 1) % n
                if c == "init" and chans[i] == 0:
                    yield HIDDEN, (replace(nodes, i, "relay"), replace(chans, i, u))
                elif c == "relay" and chans[prev] != 0:
                    x = chans[prev]
                    nc = ("fwd", x) if x > u else ("relay" if x < u else "elected")
                    yield HIDDEN, (replace(nodes, i, nc), replace(chans, prev, 0))
                elif isinstance(c, tuple) and chans[i] == 0:
                    yield HIDDEN, (replace(nodes, i, "relay"), replace(chans, i, c[1]))
                elif c == "elected":
                    yield "LEADER !%d" % u, (replace(nodes, i, "done"), chans)
        return (("init",) * n, (0,) * n), succ

    def formula(self, p):
        return None


FAMILIES = [Milner(), Philosophers(), Buffers(), TokenRing(), Mutex(), ABP(), Leader()]


# --------------------------------------------------------------------------
# Driver


def counts(fam, p, explore_limit=EXPLORE_LIMIT):
    """(states, transitions, deadlocks, how) for one instance; None when the
    instance has no formula and is above explore_limit states (or is found
    to be, in which case exploring stops early).  Raises SystemExit on a
    formula/explorer disagreement."""
    f = fam.formula(p)
    e = None
    if f is None or f[0] <= explore_limit:
        try:
            e = explore(*fam.model(p), limit=explore_limit if f is None else None)
        except RuntimeError:
            return None
    if f is not None and e is not None:
        if tuple(f) != tuple(e):
            raise SystemExit("gen.py: %s %s: formula %s != explorer %s"
                             % (fam.name, fam.desc(p), f, e))
        return tuple(f) + ("formula=explorer",)
    if f is not None:
        return tuple(f) + ("formula",)
    return tuple(e) + ("explorer",)


def instances(which=("small", "large")):
    """(family, params, file, kind) for every instance, in table order."""
    out = []
    for fam in FAMILIES:
        for kind in which:
            plist = fam.small if kind == "small" else fam.large
            base = "examples" if kind == "small" else "examples/large"
            for p in plist:
                out.append((fam, p, "%s/%s/%s.exp" % (base, fam.name, fam.inst(p)), kind))
    return out


def table_rows():
    rows = []
    for fam, p, path, kind in instances():
        c = counts(fam, p, explore_limit=EXPLORE_LIMIT if kind == "small" else 0)
        if c is None:
            raise SystemExit("gen.py: %s %s: no way to count" % (fam.name, fam.desc(p)))
        rows.append((fam.name, fam.desc(p), path) + c)
    return rows


TSV_HEADER = "family\tparams\tfile\tstates\ttransitions\tdeadlocks\tverified_by\n"


def tsv_text(rows):
    return TSV_HEADER + "".join("\t".join(str(x) for x in r) + "\n" for r in rows)


def write_instance(fam, p, root):
    d = os.path.join(root, fam.name)
    os.makedirs(d, exist_ok=True)
    for name, text in sorted(fam.files(p).items()):
        with open(os.path.join(d, name), "w", newline="\n") as fh:
            fh.write(text)
    return os.path.join(d, fam.inst(p) + ".exp")


def write_small_files(root):
    for fam in FAMILIES:
        d = os.path.join(root, fam.name)
        if os.path.isdir(d):
            # remove stale generated files (only .aut/.exp; nothing else lives here)
            for name in os.listdir(d):
                if name.endswith((".aut", ".exp")):
                    os.remove(os.path.join(d, name))
        for p in fam.small:
            write_instance(fam, p, root)


def cross_check(limit):
    """Formula vs explorer on every family's check sizes with at most limit
    states; returns the number of failures (one PASS/FAIL line each)."""
    bad = 0
    for fam in FAMILIES:
        for p in fam.check_sizes:
            f = fam.formula(p)
            if f[0] > limit:
                continue
            e = explore(*fam.model(p))
            ok = tuple(f) == tuple(e)
            print("%s formula %s %s: formula %s explorer %s"
                  % ("PASS" if ok else "FAIL", fam.name, fam.desc(p), f, e))
            bad += not ok
    return bad


def compare_files(a, b):
    """The generated .aut/.exp files under a and b must be identical."""
    bad = 0
    for fam in FAMILIES:
        da, db = os.path.join(a, fam.name), os.path.join(b, fam.name)
        na = sorted(x for x in os.listdir(da) if x.endswith((".aut", ".exp")))
        nb = sorted(x for x in os.listdir(db) if x.endswith((".aut", ".exp"))) \
            if os.path.isdir(db) else []
        if na != nb:
            print("FAIL files %s: generated %d files, committed %d (differ: %s)"
                  % (fam.name, len(na), len(nb), sorted(set(na) ^ set(nb))[:5]))
            bad += 1
            continue
        diff = [x for x in na if not filecmp.cmp(os.path.join(da, x),
                                                  os.path.join(db, x), shallow=False)]
        if diff:
            print("FAIL files %s: %d file(s) differ from a fresh generation, e.g. %s"
                  % (fam.name, len(diff), diff[0]))
            bad += 1
        else:
            print("PASS files %s: %d files as generated" % (fam.name, len(na)))
    return bad


def compare_counts(root, limit):
    """Every row of root/counts.tsv must be an instance of the generator, every
    instance must have a row, and every row whose counts can be recomputed
    within limit explored states (or by formula) must match."""
    bad = 0
    path = os.path.join(root, "counts.tsv")
    with open(path) as fh:
        lines = fh.read().splitlines()
    if not lines or lines[0] + "\n" != TSV_HEADER:
        print("FAIL counts: %s has not the expected header" % path)
        return 1
    committed = {}
    for ln in lines[1:]:
        f = ln.split("\t")
        committed[(f[0], f[1], f[2])] = tuple(f[3:])
    seen = set()
    for fam, p, file, kind in instances():
        key = (fam.name, fam.desc(p), file)
        seen.add(key)
        if key not in committed:
            print("FAIL counts %s %s: no row in counts.tsv" % key[:2])
            bad += 1
            continue
        c = counts(fam, p, explore_limit=limit if kind == "small" else 0)
        if c is None:
            continue  # explorer-only and too big for this mode: not re-verified
        got = tuple(str(x) for x in c)
        # the quick mode may verify by formula alone what the table verified
        # both ways: compare the numbers, and the method only in full mode
        n_cmp = 4 if limit >= EXPLORE_LIMIT else 3
        if got[:n_cmp] != committed[key][:n_cmp]:
            print("FAIL counts %s %s: counts.tsv says %s, recomputed %s"
                  % (key[0], key[1], committed[key], got))
            bad += 1
        else:
            print("PASS counts %s %s: %s states, %s transitions, %s deadlocks (%s)"
                  % ((key[0], key[1]) + got))
    for key in committed:
        if key not in seen:
            print("FAIL counts %s %s: row for an instance the generator does not make"
                  % key[:2])
            bad += 1
    return bad


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--large", metavar="DIR", help="write the large instances under DIR")
    ap.add_argument("--list", action="store_true", help="print the instance table")
    ap.add_argument("--check", action="store_true",
                    help="verify committed files and counts (PASS/FAIL lines)")
    ap.add_argument("--quick", action="store_true",
                    help="with --check: explore at most %d states per instance"
                    % QUICK_LIMIT)
    ap.add_argument("--out", metavar="DIR", default=HERE,
                    help="where the small instances go (default: examples/)")
    args = ap.parse_args(argv)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`

    if args.list:
        rows = table_rows()
        hdr = ("family", "params", "file", "states", "transitions", "deadlocks", "verified_by")
        w = [max(len(str(r[i])) for r in [hdr] + rows) for i in range(len(hdr))]
        for r in [hdr] + rows:
            print("  ".join(str(x).ljust(w[i]) if i < 3 or i == 6 else str(x).rjust(w[i])
                            for i, x in enumerate(r)).rstrip())
        return 0
    if args.check:
        limit = QUICK_LIMIT if args.quick else EXPLORE_LIMIT
        bad = cross_check(limit)
        tmp = tempfile.mkdtemp(prefix="warpex-gen-")
        try:
            write_small_files(tmp)
            bad += compare_files(tmp, args.out)
        finally:
            shutil.rmtree(tmp)
        bad += compare_counts(args.out, limit)
        print("gen.py --check: %s" % ("ok" if bad == 0 else "%d failure(s)" % bad))
        return 1 if bad else 0
    if args.large:
        for fam, p, _, _ in instances(("large",)):
            path = write_instance(fam, p, args.large)
            s, t, d, how = counts(fam, p, explore_limit=0)
            print("%s\t%s\t%s\t%d\t%d\t%d\t%s" % (fam.name, fam.desc(p), path, s, t, d, how))
        return 0
    write_small_files(args.out)
    rows = table_rows()
    with open(os.path.join(args.out, "counts.tsv"), "w", newline="\n") as fh:
        fh.write(tsv_text(rows))
    print("wrote %d small instances and counts.tsv (%d rows) under %s"
          % (sum(len(f.small) for f in FAMILIES), len(rows), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
