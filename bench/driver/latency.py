"""W10, JIT latency: each sample is a new process (bench/latency's programs) that times its first
eval of W1, then a second and a third one; the warm-disk variant runs with a cache folder that an earlier,
unrecorded process filled. tensorjit and JAX alternate process by process, pinned to core 0.
"""
import json
import os
import shutil
import subprocess
import tempfile

from . import environment
from .peers import BENCH, VENV_PYTHON, TENSORJIT

ELEMENTS = 65536
VARIANTS = [
    ("cold", "first_eval_s", "W10 first eval of W1, new process (compiles)"),
    ("cold", "second_eval_s", "W10 second eval (tensorjit: optimizing the kernel, once per process)"),
    ("cold", "third_eval_s", "W10 third eval, in-memory cache hit"),
    ("warm", "first_eval_s", "W10 first eval, new process, warm disk cache"),
]


def commands(build_dir):
    programs = {TENSORJIT: [os.path.join(build_dir, "bench", "latency", "w10_latency"), str(ELEMENTS)]}
    if os.path.exists(VENV_PYTHON):
        programs["JAX"] = [VENV_PYTHON, os.path.join(BENCH, "latency", "jax_latency.py"), str(ELEMENTS)]
    return programs


def spawn(command, cache_folder):
    variables = environment.for_threads(1)
    if cache_folder:
        variables["TENSORJIT_CACHE_DIR"] = cache_folder
        variables["JAX_CACHE_DIR"] = cache_folder
    result = subprocess.run(["taskset", "-c", "0"] + command, capture_output=True, text=True, env=variables,
                            timeout=300)
    lines = result.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "no output")
    sample = json.loads(lines[-1])
    if result.returncode != 0:  # measured, but the process failed afterwards: kept, and reported
        last_error = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
        sample["exit_failure"] = f"exit status {result.returncode} after the measurement {last_error}".strip()
    return sample


def measure(build_dir, runs, log):
    """{"variants": [...], "peers": {name: {"cold": [json...], "warm": [json...]}}, "absent": {...}}."""
    programs = commands(build_dir)
    absent = {} if "JAX" in programs else {"JAX": "absent (bench/.venv missing); install: bash bench/setup_peers.sh jax"}
    samples = {name: {"cold": [], "warm": []} for name in programs}
    errors = {}
    caches = {name: tempfile.mkdtemp(prefix=f"tensorjit-w10-{name}-") for name in programs}
    try:
        for name, command in programs.items():  # fill each warm cache once, unrecorded
            try:
                spawn(command, caches[name])
            except (RuntimeError, subprocess.TimeoutExpired, ValueError) as error:
                errors[name] = str(error)
        for run in range(runs):
            log(f"  W10 · process {run + 1}/{runs} · {', '.join(programs)} (cold, then warm disk cache)",
                transient=True)
            for variant in ("cold", "warm"):
                for name, command in programs.items():
                    if name in errors:
                        continue
                    try:
                        samples[name][variant].append(spawn(command, caches[name] if variant == "warm" else None))
                    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as error:
                        errors[name] = str(error)
    finally:
        for folder in caches.values():
            shutil.rmtree(folder, ignore_errors=True)
    failures = {name: sorted({sample["exit_failure"] for variant in by_variant.values() for sample in variant
                              if "exit_failure" in sample}) for name, by_variant in samples.items()}
    return {"elements": ELEMENTS, "samples": samples, "errors": errors, "absent": absent,
            "exit_failures": {name: found for name, found in failures.items() if found}}


def as_results(latency):
    """W10 in the shape measure.py's results have: one row per variant, peers' samples in seconds."""
    rows = []
    for variant, field, title in VARIANTS:
        peers = {}
        for name, by_variant in latency["samples"].items():
            values = [sample[field] for sample in by_variant[variant]]
            if values:
                peers[name] = {"status": "timed", "samples": values, "calls": [1] * len(values)}
            elif name in latency["errors"]:
                peers[name] = {"status": "error", "detail": latency["errors"][name]}
        for name, reason in latency["absent"].items():
            peers[name] = {"status": "absent", "detail": reason}
        rows.append({"case": None, "title": title, "group": "W10", "threads": 1, "peers": peers})
    return rows
