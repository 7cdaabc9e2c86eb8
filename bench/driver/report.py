"""bench/results/latest.md and latest.json: the table (median, min–max, tensorjit's speed relative
to the best peer, the fraction of the machine's limit), where tensorjit loses, the absent peers."""
import dataclasses
import json
import statistics

from . import storage, training
from .peers import TENSORJIT, names


def format_time(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def median(record):
    """None unless every sample of the record was taken (a worker that failed midway is not ranked)."""
    return statistics.median(record["samples"]) if record.get("status") == "timed" and record.get("samples") else None


def title(row):
    return row["title"] if row["case"] is None else row["case"].title


def limit_fraction(row, limits):
    """tensorjit's median as a fraction of the bandwidth or FMA limit at the row's thread count."""
    case, record = row["case"], row["peers"].get(TENSORJIT, {})
    if case is None or median(record) is None or row["threads"] not in limits:
        return None
    limit = limits[row["threads"]]
    if case.flops:
        return case.flops / median(record) * 1e-9 / limit[f"{case.dtype}_gflops"]
    if case.bytes:
        return case.bytes / median(record) * 1e-9 / limit["triad_gb_per_s"]
    return None


def best_peer(row):
    timed = [(median(r), name) for name, r in row["peers"].items() if name != TENSORJIT and median(r) is not None]
    return min(timed) if timed else (None, None)


def cell(record):
    status = record.get("status") if record else None
    if status == "timed" and record.get("samples"):
        values = record["samples"]
        text = f"{format_time(median(record))} ({format_time(min(values))}–{format_time(max(values))})"
        if record.get("triad_gb_per_s"):
            text += f" · triad {statistics.median(record['triad_gb_per_s']):.1f} GB/s"
        return text
    return {"unsupported": "—", "mismatch": "✗ differs", "error": "error", "absent": "absent"}.get(status, "")


def losses(rows):
    """One line per row where some peer's median beats tensorjit's, fastest peer first."""
    lines = []
    for row in rows:
        ours = median(row["peers"].get(TENSORJIT, {}))
        if ours is None:
            continue
        faster = sorted((median(r), name) for name, r in row["peers"].items()
                        if name != TENSORJIT and median(r) is not None and median(r) < ours)
        if faster:
            beaten_by = ", ".join(f"{name} {ours / theirs:.2f}× faster ({format_time(theirs)})" for theirs, name in faster)
            lines.append(f"- {title(row)}, {row['threads']} thread(s): tensorjit {format_time(ours)}; {beaten_by}")
    return lines


def tally(rows):
    """How many rows tensorjit is fastest on, out of those it and some peer both timed."""
    compared = [(median(row["peers"].get(TENSORJIT, {})), best_peer(row)[0]) for row in rows]
    compared = [(ours, theirs) for ours, theirs in compared if ours is not None and theirs is not None]
    wins = sum(1 for ours, theirs in compared if ours <= theirs)
    return f"tensorjit is the fastest on {wins} of the {len(compared)} rows where it and a peer were both timed."


def problems(rows):
    lines = []
    for row in rows:
        for name, record in row["peers"].items():
            if record.get("status") in ("error", "mismatch"):
                lines.append(f"- {title(row)}, {row['threads']} thread(s), {name}: {record['status']}: "
                             f"{record.get('detail', '')}")
    return lines


def summary_table(rows, limits):
    lines = ["| workload | threads | tensorjit median (min–max) | of the limit | best peer | its median | "
             "tensorjit speed ÷ best peer |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        ours = median(row["peers"].get(TENSORJIT, {}))
        fraction = limit_fraction(row, limits)
        theirs, best = best_peer(row)
        ratio = f"**{theirs / ours:.2f}**" if ours and theirs else "—"
        lines.append(f"| {title(row)} | {row['threads']} | {cell(row['peers'].get(TENSORJIT)) or 'error'} | "
                     f"{f'{fraction:.0%}' if fraction is not None else '—'} | {best or '—'} | "
                     f"{format_time(theirs) if theirs else '—'} | {ratio} |")
    return lines


def detail_table(rows):
    present = [name for name in names() if name != TENSORJIT and any(
        row["peers"].get(name, {}).get("status") not in (None, "absent") for row in rows)]
    lines = ["| workload | threads | " + " | ".join(present) + " |", "|---|---|" + "---|" * len(present)]
    for row in rows:
        lines.append(f"| {title(row)} | {row['threads']} | " +
                     " | ".join(cell(row["peers"].get(name)) for name in present) + " |")
    return lines


def write_markdown(path, run, rows, chart_name):
    limits = run["limits"]
    text = [
        "# tensorjit against its peers: the latest run",
        "",
        f"Made by `{run['command']}` on {run['date']} (commit {run['commit']}; "
        f"load average {run['load_start']} at the start, {run['load_end']} at the end).",
        "",
        f"Machine: {run['machine']['cpu'].get('Model name', '?')}, {run['machine']['cores_usable']} cores usable, "
        f"{', '.join(run['machine']['isa'])}; {run['machine']['os']}; {run['machine']['compiler']}.",
        "",
        "Limits measured in this run (bench/limits):",
        "",
        "| threads | STREAM triad | FMA peak f32 | FMA peak f64 |",
        "|---|---|---|---|",
    ]
    for threads, limit in sorted(limits.items()):
        text.append(f"| {threads} | {limit['triad_gb_per_s']:.1f} GB/s | {limit['f32_gflops']:.0f} GFLOP/s | "
                    f"{limit['f64_gflops']:.0f} GFLOP/s ({limit['vector_bits']}-bit) |")
    text += [
        "",
        f"Each figure is seconds per call: one warm-up, then {run['rounds']} samples per peer taken alternating "
        f"(each sample repeats the call for at least {run['min_seconds']} s); at one thread every other "
        "peer's process is stopped while one takes its sample; in bandwidth-bound rows, *triad* is the median STREAM triad "
        "bandwidth measured right before each of that peer's samples. Single-thread runs are pinned with "
        "`taskset -c 0`. **tensorjit speed ÷ best peer** is the best peer's median over tensorjit's: above 1 "
        "tensorjit is faster. *Of the limit* is tensorjit's least memory traffic per second over the triad "
        "bandwidth (elementwise, reductions, rows) or its flop rate over the FMA peak (W7, W8); a small "
        "working set that stays in cache can exceed 100%. Every peer's answer was checked against "
        "tensorjit's before it was timed (`bench/driver/workloads.py` states each tolerance).",
        "",
        f"![tensorjit's speed relative to each peer]({chart_name})",
        "",
        "## Summary",
        "",
        *summary_table(rows, limits),
        "",
        "## Where tensorjit loses",
        "",
        tally(rows),
        "",
        *(losses(rows) or ["- nowhere in this run"]),
        "",
        "## Every peer (median, min–max; — the peer does not do this workload)",
        "",
        *detail_table(rows),
        "",
        "## Peers",
        "",
    ]
    for threads, infos in sorted(run["peer_info"].items()):
        for name in names():
            if name in infos:
                text.append(f"- {name} ({threads} thread(s)): {infos[name]}")
            elif name in run["absent"].get(threads, {}):
                text.append(f"- {name} ({threads} thread(s)): {run['absent'][threads][name]}")
    if "training" in run:
        text += ["", "## W17: a training loop as a new user writes it", "", *training.summary(run["training"])]
    if "storage" in run:
        text += ["", "## f16, bf16 and model files", "", *storage.summary(run["storage"])]
    text += ["", "## Errors and rejected answers", "", *(problems(rows) or ["- none"])]
    for name, failures in run.get("latency_exit_failures", {}).items():
        text.append(f"- W10, {name}: the measuring process then failed: {'; '.join(failures)}")
    text.append("")
    with open(path, "w") as file:
        file.write("\n".join(text))


def write_json(path, run, rows):
    def serial(row):
        case = dataclasses.asdict(row["case"]) if row["case"] is not None else None
        return {"title": title(row), "case": case, "threads": row["threads"], "peers": row["peers"]}

    with open(path, "w") as file:
        json.dump({**run, "rows": [serial(row) for row in rows]}, file, indent=1, default=str)
        file.write("\n")
