#!/usr/bin/python3
"""tensorjit against its peers, side by side, in one command (bench/README.md, issue 8).

    /usr/bin/python3 bench/run.py [--quick] [--only W5,W7] [--threads 1|all|both] [--build-dir build]
                                  [--baseline OTHER_BUILD]

Builds only the benchmark's own programs (`cmake --build <build-dir> --target ...`, printed before
it runs) in a build folder that `bash scripts/setup.sh build` configured; installs nothing. Then it
measures the machine's limits, runs every workload for tensorjit and each installed peer
alternating, and writes bench/results/latest.md, latest.json and latest.svg. bench/README.md says
what each figure means.
"""
import argparse
import datetime
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.driver import chart, environment, latency, limits, measure, report, storage, training, workloads  # noqa: E402
from bench.driver import peers  # noqa: E402
from bench.driver.peers import BUILD_TARGETS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a reduced set, 1 thread, in under three minutes")
    parser.add_argument("--only", default="", help="comma-separated workloads, e.g. W5 or W1,W10")
    parser.add_argument("--threads", choices=("1", "all", "both"), help="default: both, or 1 with --quick")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--no-build", action="store_true", help="use the programs already built")
    parser.add_argument("--baseline", metavar="DIR",
                        help="also run tensorjit as the configured build folder DIR has it (a checkout of "
                        "another commit), as a peer named after its commit")
    parser.add_argument("--jobs", type=int, default=2, help="parallel compile jobs for the build step")
    parser.add_argument("--rounds", type=int, default=5, help="measured samples per peer (default 5)")
    parser.add_argument("--output", help="default: bench/results for a full run (the committed figures), "
                        "bench/results/partial (git-ignored) for --quick, --only, --threads or --rounds")
    arguments = parser.parse_args()
    if arguments.output is None:
        # A partial run must not overwrite the committed results of the last full one.
        partial = arguments.quick or arguments.only or arguments.threads or arguments.rounds != 5 or arguments.baseline
        arguments.output = os.path.join(ROOT, "bench", "results", "partial" if partial else "")
    return arguments


class Log:
    """Progress on stdout; round-by-round lines overwrite each other on a terminal."""

    def __init__(self):
        self.terminal = sys.stdout.isatty()
        self.start = time.monotonic()

    def __call__(self, text, transient=False):
        stamp = f"[{time.monotonic() - self.start:6.1f}s] "
        if transient and self.terminal:
            sys.stdout.write("\r\033[K" + stamp + text[:150])
        else:
            sys.stdout.write(("\r\033[K" if self.terminal else "") + stamp + text + "\n")
        sys.stdout.flush()


def build(arguments, build_dir, targets, log):
    build_dir = os.path.abspath(build_dir)
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        sys.exit(f"{build_dir} is not a configured build folder: run `bash scripts/setup.sh build` first "
                 f"(or pass --build-dir)")
    command = ["cmake", "--build", build_dir, "-j", str(arguments.jobs), "--target", *targets]
    log("building the benchmark programs: " + shlex.join(command))
    if subprocess.run(command).returncode != 0:
        sys.exit("the build failed; see above")


def git_state():
    def git(*words):
        return subprocess.run(["git", "-C", ROOT, *words], capture_output=True, text=True).stdout.strip()

    changed = [line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()
               if not line[3:].startswith("bench/")]
    state = git("rev-parse", "--short", "HEAD")
    if changed:
        state += f", plus uncommitted changes to {len(changed)} tracked files outside bench/ in the checkout"
    return state


def main():
    arguments = parse_arguments()
    log = Log()
    threads_choice = arguments.threads or ("1" if arguments.quick else "both")
    all_threads = environment.all_threads()
    thread_counts = {"1": [1], "all": [all_threads], "both": sorted({1, all_threads})}[threads_choice]
    rounds = arguments.rounds
    min_seconds = 0.03 if arguments.quick else 0.1
    only = {word.strip().upper() for word in arguments.only.split(",") if word.strip()}
    unknown = only - {case.group for case in workloads.all_cases()} - {"W10", "W17", "STORAGE"}
    if unknown:
        sys.exit(f"--only: no workload {', '.join(sorted(unknown))} (W1 ... W17, storage)")
    cases = workloads.select(arguments.quick, only)
    build_dir = os.path.abspath(arguments.build_dir)
    if not arguments.no_build:
        build(arguments, arguments.build_dir, BUILD_TARGETS, log)
    if arguments.baseline:
        if not arguments.no_build:
            build(arguments, arguments.baseline, ["tensorjit_worker"], log)
        peers.PEERS.append(peers.baseline_peer(arguments.baseline))

    run = {
        "command": "/usr/bin/python3 bench/run.py " + shlex.join(sys.argv[1:]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git_state(),
        "load_start": environment.load_average(),
        "machine": environment.machine(),
        "environment": environment.recorded_environment(),
        "rounds": rounds,
        "min_seconds": min_seconds,
        "peer_info": {},
        "absent": {},
    }
    log(f"load average {run['load_start']}; {len(cases)} cases, threads {thread_counts}, {rounds} rounds")
    run["limits"] = limits.measure(build_dir, thread_counts, arguments.quick, log)

    rows = []
    # The Python workers share their inputs through this folder (bench/peers/bench_inputs.py).
    os.environ["TENSORJIT_BENCH_INPUTS"] = tempfile.mkdtemp(
        prefix="tensorjit-bench-inputs-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        for threads in thread_counts if cases else []:
            log(f"starting the peers' workers, {threads} thread(s)")
            workers, absent, infos = measure.start_workers(build_dir, threads, arguments.quick, log)
            run["peer_info"][threads], run["absent"][threads] = infos, absent
            probe = measure.start_bandwidth_probe(build_dir, threads, log)
            try:
                rows += measure.measure_cases(cases, workers, build_dir, threads, rounds, min_seconds, log, probe)
            finally:
                for worker in workers.values():
                    worker.close()
                if probe:
                    probe.close()
    finally:
        shutil.rmtree(os.environ.pop("TENSORJIT_BENCH_INPUTS"), ignore_errors=True)
    if not only or "W10" in only:
        log("W10: JIT latency, one new process per sample")
        measured = latency.measure(build_dir, 3 if arguments.quick else rounds, log)
        run["latency"] = measured
        run["latency_exit_failures"] = measured["exit_failures"]
        rows += latency.as_results(measured)

    if not only or "W17" in only:
        log("W17: a training loop as a new user writes it, beside the explicit one; one process per sample")
        run["training"] = training.measure(build_dir, 1 if arguments.quick else 3, log)

    if not arguments.quick and (not only or "STORAGE" in only):
        log("storage: f16/bf16 beside f32, and model.safetensors beside safetensors.numpy")
        run["storage"] = storage.measure(build_dir, rounds, log)

    run["load_end"] = environment.load_average()
    os.makedirs(arguments.output, exist_ok=True)
    chart_path = os.path.join(arguments.output, "latest.svg")
    chart_problem = chart.write_chart(chart_path, rows)
    if chart_problem:
        log(f"chart skipped: {chart_problem}")
    report.write_markdown(os.path.join(arguments.output, "latest.md"), run, rows, "latest.svg")
    report.write_json(os.path.join(arguments.output, "latest.json"), run, rows)
    log(f"wrote {os.path.join(arguments.output, 'latest.md')}, latest.json" + ("" if chart_problem else ", latest.svg"))
    if os.path.abspath(arguments.output) == os.path.join(ROOT, "bench", "results"):
        # A full run is also kept per CPU kind, so that the last run on each kind measured stays.
        kept = os.path.join(ROOT, "bench", "results", "by-cpu", run["machine"]["cpu_kind"])
        os.makedirs(kept, exist_ok=True)
        for name in ("latest.md", "latest.json", "latest.svg"):
            if os.path.exists(os.path.join(arguments.output, name)):
                shutil.copy(os.path.join(arguments.output, name), kept)
        log(f"kept a copy in {os.path.relpath(kept, ROOT)}")
    print("\n".join(report.summary_table(rows, run["limits"])))
    if "training" in run:
        print("\n".join(training.summary(run["training"])))
    if "storage" in run:
        print("\n".join(storage.summary(run["storage"])))


if __name__ == "__main__":
    main()
