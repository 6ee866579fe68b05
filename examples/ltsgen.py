"""ltsgen.py -- helpers of examples/gen.py: writing component LTSs in
Aldebaran format, EXP vector text, the independent explicit-state explorer
(over model rules written in Python, never over .aut/.exp files) and small
exact-arithmetic tools (matrix powers, polynomial interpolation)."""

from collections import deque
from fractions import Fraction

HIDDEN = "i"  # the hidden label, as written in .aut files and counted

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


def explore(initial, successors, limit=None, invariant=None):
    """Breadth-first search.  successors(s) returns an iterable of
    (label, target) pairs; duplicates are merged (transitions form a set).
    invariant, if given, must hold in every reachable state (a sanity check
    of the model; AssertionError otherwise).  Returns (states, transitions,
    deadlocks); RuntimeError when more than limit states are reached."""
    seen = {initial}
    todo = deque([initial])
    n_trans = 0
    n_dead = 0
    while todo:
        s = todo.popleft()
        if invariant is not None and not invariant(s):
            raise AssertionError("model invariant violated in %r" % (s,))
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
