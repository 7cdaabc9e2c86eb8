"""The chart the README shows: per workload row, tensorjit's speed relative to each peer (the peer's
median over tensorjit's, log scale: right of 1 tensorjit is faster). Needs Debian's
python3-matplotlib, an optional bench prerequisite; without it the chart is skipped and run.py says so."""
import math

from .peers import TENSORJIT, names
from .report import median, title


def write_chart(path, rows):
    """Writes the SVG; returns None, or the reason it could not."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (apt-get install python3-matplotlib)"
    labels, points = [], {}
    for row in rows:
        ours = median(row["peers"].get(TENSORJIT, {}))
        if ours is None:
            continue
        labels.append(f"{title(row)} · {row['threads']}t")
        for name, record in row["peers"].items():
            theirs = median(record)
            if name != TENSORJIT and theirs is not None:
                points.setdefault(name, []).append((theirs / ours, len(labels) - 1))
    if not labels:
        return "no row has a tensorjit time"
    figure, axes = plt.subplots(figsize=(10, 0.28 * len(labels) + 1.6))
    markers = "os^Dv<>pPX*h"
    for index, name in enumerate(n for n in names() if n in points):
        ratios, positions = zip(*points[name])
        axes.scatter(ratios, positions, label=name, marker=markers[index % len(markers)], s=30, alpha=0.85)
    axes.axvline(1.0, color="black", linewidth=0.8)
    axes.set_xscale("log")
    axes.set_yticks(range(len(labels)))
    axes.set_yticklabels(labels, fontsize=7)
    axes.invert_yaxis()
    all_ratios = [ratio for values in points.values() for ratio, _ in values]
    span = max(abs(math.log10(min(all_ratios))), abs(math.log10(max(all_ratios))), 0.5)
    axes.set_xlim(10 ** -(span * 1.05), 10 ** (span * 1.05))
    axes.set_xlabel("peer's median time ÷ tensorjit's (right of 1: tensorjit faster)")
    axes.grid(axis="x", which="both", alpha=0.3)
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    figure.savefig(path, format="svg")
    plt.close(figure)
    return None
