"""W17, a training loop as a new user writes it (bench/training/w17_naive_loop.cpp): the figures
issue 20's "Done when" asks for. Each sample is a new process pinned to core 0:

- the side-by-side run (250 Adam steps, naive then explicit, each cold then again warm): the
  kernels compiled after step 3, the warm step time around steps 10 and 100, the naive loop's
  whole run over the explicit one's, and whether both printed the same losses bit for bit;
- the naive loop alone at 250 and at 1000 steps: the process's peak resident memory (ru_maxrss of
  that child), so that its growth per step shows whether a step's values outlive it;
- bench/training/named_temporaries: blocks written with named intermediates against the same as
  one expression, so that the rule that keeps the loop's state is seen not to cost their fusion.
"""
import json
import os
import statistics

from . import environment

STEPS = 250
LONG_STEPS = 1000


def program(build_dir):
    return os.path.join(build_dir, "bench", "training", "w17_naive_loop")


def measure_one(command):
    """Runs `command` pinned to core 0 with one thread, as W10's processes run; returns (its parsed
    JSON line or None, its exit status, its own peak resident memory in MB (wait4's rusage, not
    RUSAGE_CHILDREN, which is the largest of every child so far), its stderr's tail)."""
    command = ["taskset", "-c", "0"] + command
    variables = environment.for_threads(1)
    read_end, write_end = os.pipe()
    error_read, error_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(write_end, 1)
        os.dup2(error_write, 2)
        for descriptor in (read_end, write_end, error_read, error_write):
            os.close(descriptor)
        try:
            os.execvpe(command[0], command, variables)
        finally:
            os._exit(127)
    os.close(write_end)
    os.close(error_write)
    with os.fdopen(read_end) as out, os.fdopen(error_read) as err:
        stdout = out.read()
        stderr = err.read()
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    parsed = json.loads(lines[-1]) if lines else None
    return parsed, code, usage.ru_maxrss / 1024.0, stderr.strip()[-300:]


def measure(build_dir, runs, log):
    binary = program(build_dir)
    result = {"steps": STEPS, "long_steps": LONG_STEPS, "side_by_side": [], "naive_alone": {}, "errors": []}
    for run in range(runs):
        log(f"  W17 · side by side, process {run + 1}/{runs}", transient=True)
        parsed, code, _, stderr = measure_one([binary, str(STEPS)])
        if parsed is None:
            result["errors"].append(f"side by side: exit status {code}: {stderr}")
            continue
        parsed["exit_status"] = code
        result["side_by_side"].append(parsed)
    for steps in (STEPS, LONG_STEPS):
        log(f"  W17 · the naive loop alone, {steps} steps", transient=True)
        parsed, code, maxrss_mb, stderr = measure_one([binary, str(steps), "64", "naive"])
        if parsed is None or code != 0:
            result["errors"].append(f"naive alone, {steps} steps: exit status {code}: {stderr}")
            continue
        result["naive_alone"][steps] = {"maxrss_mb": maxrss_mb, **parsed}
    log("  W17 · named intermediates against one expression", transient=True)
    parsed, code, _, stderr = measure_one([os.path.join(build_dir, "bench", "training", "named_temporaries")])
    if parsed is None or code != 0:
        result["errors"].append(f"named temporaries: exit status {code}: {stderr}")
    else:
        result["named_temporaries"] = parsed
    return result


def summary(training):
    """The figures, one per line, for the markdown report and the console."""
    lines = [f"W17 (`bench/training/w17_naive_loop`, {training['steps']} Adam steps, batch 64, one process per "
             f"sample pinned to core 0; issue 20's targets in brackets):", ""]
    samples = training["side_by_side"]
    if samples:
        ratios = [s["naive_over_explicit"] for s in samples]
        step_ratios = [s["naive"]["step100_ms"] / s["naive"]["step10_ms"] for s in samples]
        lines += [
            f"- kernels compiled after step 3: naive {max(s['naive']['compiles_after_step3'] for s in samples)}, "
            f"explicit {max(s['explicit']['compiles_after_step3'] for s in samples)} [0]",
            f"- naive step 100 ÷ step 10: median {statistics.median(step_ratios):.2f} "
            f"(runs: {', '.join(f'{r:.2f}' for r in step_ratios)}) [at most 1.2]",
            f"- naive ÷ explicit, whole warm run: median {statistics.median(ratios):.3f} "
            f"(runs: {', '.join(f'{r:.3f}' for r in ratios)}) [at most 1.1]",
            f"- naive step 10 / step 100: {statistics.median(s['naive']['step10_ms'] for s in samples):.3f} / "
            f"{statistics.median(s['naive']['step100_ms'] for s in samples):.3f} ms; explicit "
            f"{statistics.median(s['explicit']['step10_ms'] for s in samples):.3f} / "
            f"{statistics.median(s['explicit']['step100_ms'] for s in samples):.3f} ms",
            f"- same losses bit for bit: {'yes' if all(s['same_losses'] for s in samples) else 'NO'} [yes]",
        ]
    alone = training["naive_alone"]
    if STEPS in alone and LONG_STEPS in alone:
        short, long = alone[STEPS]["maxrss_mb"], alone[LONG_STEPS]["maxrss_mb"]
        growth = (long - short) * 1024 / (LONG_STEPS - STEPS)
        lines.append(f"- naive loop alone, peak memory: {short:.0f} MB at {STEPS} steps, {long:.0f} MB at "
                     f"{LONG_STEPS} steps ({growth:.1f} KB a step) [flat]")
    named = training.get("named_temporaries")
    if named:
        blocks = [name for name, value in named.items() if isinstance(value, dict)]
        lines.append("- named intermediates ÷ one expression (`bench/training/named_temporaries`, median of "
                     f"{named['samples']} alternating samples): " + ", ".join(
                         f"{name} {named[name]['named_over_expression']:.2f} ({named[name]['named_ms']:.2f} vs "
                         f"{named[name]['expression_ms']:.2f} ms)" for name in blocks) + " [near 1]")
    lines += [f"- error: {error}" for error in training["errors"]]
    return lines
