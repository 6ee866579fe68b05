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
                                          ~1e6..1e9 states) under DIR/<family>/,
                                          and their rows in DIR/counts.tsv
  python3 examples/gen.py --list          print the instance table
  python3 examples/gen.py --check         regenerate the small instances in a
                                          temporary directory, compare them
                                          byte for byte with the committed
                                          files, and cross-check every formula
                                          against the explorer on a range of
                                          sizes (exit status 1 on a mismatch)

The families are in families.py, the LTS writer and the explorer in
ltsgen.py.  Only the Python 3 standard library is used.  Output is
deterministic.
"""

import argparse
import filecmp
import os
import shutil
import signal
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from families import FAMILIES  # noqa: E402
from ltsgen import explore  # noqa: E402

# Instances whose state count is at most this are explored by the Python
# explorer when the small set is written (roughly 1e5 states per 2 seconds).
EXPLORE_LIMIT = 250_000
# --check --quick (the test suite) explores at most this many states per instance.
QUICK_LIMIT = 30_000



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
            e = explore(*fam.model(p), limit=explore_limit if f is None else None,
                        invariant=getattr(fam, "invariant", None))
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
            e = explore(*fam.model(p), invariant=getattr(fam, "invariant", None))
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
        rows = []
        for fam, p, _, _ in instances(("large",)):
            path = write_instance(fam, p, args.large)
            rows.append((fam.name, fam.desc(p), path) + counts(fam, p, explore_limit=0))
        text = tsv_text(rows)
        with open(os.path.join(args.large, "counts.tsv"), "w", newline="\n") as fh:
            fh.write(text)
        sys.stdout.write(text)
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
