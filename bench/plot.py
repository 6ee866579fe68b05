"""plot.py -- renders the bench charts of docs/img/ from bench/data/*.tsv.

    python plot.py DATA_DIR OUT_DIR     (bench/plot.sh runs it in its venv)

Each chart reads one data file (tab-separated, '#' comment lines, then a
header line) and writes one PNG; the PNGs carry no date or version, so the
same data gives the same bytes with the same matplotlib.
"""
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GPU, CPU, OTHER = "#2a6fb0", "#d9822b", "#8c8c8c"


def read_tsv(path):
    """The rows of a data file as dicts keyed by its header line."""
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    head = lines[0].split("\t")
    rows = []
    for n, line in enumerate(lines[1:], 2):
        cells = line.split("\t")
        if len(cells) != len(head):
            sys.exit(f"{path}: data line {n}: {len(cells)} fields, header has {len(head)}")
        rows.append(dict(zip(head, cells)))
    return rows


def save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    print(f"plot.py: {path}")


def si(x):
    """3.2e8 -> '320 M' for bar labels."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g} {unit}"
    return f"{x:.3g}"


def explorer(rows, out_dir):
    """GPU against 16-core CPU states/s per family, log scale, speed-up on top."""
    fig, ax = plt.subplots(figsize=(7, 3.8))
    w = 0.38
    for i, r in enumerate(rows):
        g, c = float(r["gpu_states_per_s"]), float(r["cpu16_states_per_s"])
        ax.bar(i - w / 2, g, w, color=GPU, label="GPU (H100)" if i == 0 else None)
        ax.bar(i + w / 2, c, w, color=CPU, label="CPU, 16 threads" if i == 0 else None)
        ax.text(i - w / 2, g * 1.08, si(g), ha="center", va="bottom", fontsize=8)
        ax.text(i + w / 2, c * 1.08, si(c), ha="center", va="bottom", fontsize=8)
        ax.text(i, g * 2.4, f"GPU {float(r['speedup']):.1f}×", ha="center", fontsize=9, weight="bold")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['family']} {r['size']}\n{si(float(r['states']))} states" for r in rows],
                       fontsize=8)
    ax.set_yscale("log")
    ax.set_ylim(5e6, 5e9)
    ax.set_ylabel("states / s (log)")
    ax.set_title(f"warpex explore: GPU against CPU ({rows[0]['device']}, {rows[0]['date']})", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False, ncol=2)
    ax.grid(axis="y", which="major", alpha=0.3)
    save(fig, out_dir, "explorer_h100.png")


def vs_storm(rows, out_dir):
    """warpex against Storm per property, log-log, with the line y = x."""
    fig, ax = plt.subplots(figsize=(5.6, 5))
    groups = (
        ("repository", None, "o", OTHER, "repository's 54 properties (ii)"),
        (None, "ii", "^", CPU, "consensus N=4 K=4, N=6 K=2: ii"),
        (None, "auto", "s", GPU, "consensus N=4 K=4, N=6 K=2: auto (OVI)"),
    )
    pts = [r for r in rows if r["storm_s"] != "-"]
    for st, method, marker, color, label in groups:
        sel = [r for r in pts if (r["set"] == st if st else r["set"] != "repository" and r["method"] == method)]
        ax.scatter([float(r["storm_s"]) for r in sel], [float(r["warpex_s"]) for r in sel],
                   marker=marker, s=22, color=color, alpha=0.8, label=label, zorder=3)
    lo, hi = 1e-3, 1e2
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8, ls="--", zorder=2)
    ax.text(1.5e-3, 3e-1, "above the line:\nStorm faster", fontsize=8, color="#555")
    ax.text(4e0, 2e-3, "below the line:\nwarpex faster", fontsize=8, color="#555")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel("Storm: load + check (s)")
    ax.set_ylabel("warpex check, whole process (s)")
    ax.set_title("check --backend cpu against Storm (2-core dev machine)", fontsize=10)
    ax.legend(loc="upper left", fontsize=7.5, frameon=False)
    ax.grid(which="major", alpha=0.3)
    save(fig, out_dir, "check_vs_storm.png")


def por(rows, out_dir):
    """Reduction factors of --por (states and transitions), one bar pair per model."""
    rows = [r for r in rows if r["backend"] == "seq"]  # the counts do not depend on the backend
    fig, ax = plt.subplots(figsize=(7, 3.8))
    h = 0.38
    for i, r in enumerate(rows):
        s, t = float(r["states_factor"]), float(r["trans_factor"])
        ax.barh(i - h / 2, s, h, color=GPU, label="states" if i == 0 else None)
        ax.barh(i + h / 2, t, h, color=CPU, label="transitions" if i == 0 else None)
        ax.text(s * 1.1, i - h / 2, f"{s:g}×", va="center", fontsize=7)
        ax.text(t * 1.1, i + h / 2, f"{t:g}×", va="center", fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{r['model'].removesuffix('.exp')}\n{int(r['states_full']):,} states" for r in rows],
                       fontsize=7.5)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(0.9, 10 ** math.ceil(math.log10(max(float(r["trans_factor"]) for r in rows)) + 1))
    ax.set_xlabel("full / reduced (log)")
    ax.set_title("explore --por: reduction factors (exact counts)", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)
    ax.grid(axis="x", which="major", alpha=0.3)
    save(fig, out_dir, "por.png")


def tree(rows, out_dir):
    """Bytes per state of the flat and the tree store per network."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    w = 0.38
    for i, r in enumerate(rows):
        f, t = float(r["flat_bytes_per_state"]), float(r["tree_bytes_per_state"])
        ax.bar(i - w / 2, f, w, color=CPU, label="--store flat" if i == 0 else None)
        ax.bar(i + w / 2, t, w, color=GPU, label="--store tree" if i == 0 else None)
        ax.text(i - w / 2, f + 1, f"{f:g}", ha="center", va="bottom", fontsize=8)
        ax.text(i + w / 2, t + 1, f"{t:g}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['network'].split(' (')[0]}\n{r['words']} words, {si(float(r['states']))} states"
                        for r in rows], fontsize=7.5)
    ax.set_ylabel("bytes / state (tables included)")
    ax.set_ylim(0, 75)
    ax.set_title("explore --backend cpu: state storage, flat against tree", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False, ncol=2)
    ax.grid(axis="y", alpha=0.3)
    save(fig, out_dir, "tree.png")


CHARTS = (("explorer_h100.tsv", explorer), ("check_vs_storm.tsv", vs_storm),
          ("por.tsv", por), ("tree.tsv", tree))


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: plot.py DATA_DIR OUT_DIR")
    os.makedirs(argv[2], exist_ok=True)
    for name, chart in CHARTS:
        chart(read_tsv(os.path.join(argv[1], name)), argv[2])


if __name__ == "__main__":
    main(sys.argv)
