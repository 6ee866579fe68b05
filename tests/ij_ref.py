#!/usr/bin/env python3
"""ij_ref.py N -- reference values for examples/gen_ij.sh, computed from the
model's rules as written here (never from the generated files): process i
holds 0 (no token), 1 (token), 2 (token, handing it left) or 3 (token,
handing it right); `pass` (reward 1) turns a 1 into 2 or 3 with 1/2 each;
a 2 (3) hands its token to the left (right) neighbour, which then holds a
token (1 if it had none; unchanged if it had one: the tokens merge).  From
every process holding a token, the expected number of passes until one
token is left, minimised and maximised over the schedulers, by value
iteration to 1e-12.  Prints "states S rmin A rmax B" (S: the configurations
reachable from the start)."""
import sys


def successors(q, n):
    """(reward, [(prob, q')...]) per enabled move of configuration q."""
    moves = []
    for i in range(n):
        if q[i] == 1:
            a, b = list(q), list(q)
            a[i], b[i] = 2, 3
            moves.append((1, [(0.5, tuple(a)), (0.5, tuple(b))]))
        elif q[i] in (2, 3):
            j = (i - 1) % n if q[i] == 2 else (i + 1) % n
            t = list(q)
            t[i] = 0
            if t[j] == 0:
                t[j] = 1
            moves.append((0, [(1.0, tuple(t))]))
    return moves


def main():
    n = int(sys.argv[1])
    start = tuple([1] * n)
    seen, todo = {start}, [start]
    while todo:
        q = todo.pop()
        for _, dist in successors(q, n):
            for _, t in dist:
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
    states = sorted(seen)
    target = {q for q in states if sum(1 for x in q if x) == 1}
    moves = {q: successors(q, n) for q in states}
    out = []
    for opt in (min, max):
        v = {q: 0.0 for q in states}
        while True:
            delta = 0.0
            for q in states:
                if q in target:
                    continue
                x = opt(r + sum(p * v[t] for p, t in d) for r, d in moves[q])
                delta = max(delta, abs(x - v[q]))
                v[q] = x
            if delta < 1e-12:
                break
        out.append(v[start])
    print("states %d rmin %.12f rmax %.12f" % (len(states), out[0], out[1]))


main()
