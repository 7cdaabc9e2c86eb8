"""f16, bf16 and model files (bench/storage, issue 23's figures): tensorjit against itself, one
process per program, pinned to core 0 with one thread.

- storage_floats: matmul 1024^3 with bf16 and f16 operands against f32 (the 16-bit products
  convert in the GEMM's packing), and the W1 chain over 16 Mi elements in f16 and bf16 against f32,
  the dtypes alternating within each round of one process;
- load_safetensors.py: all-MiniLM-L6-v2's model.safetensors loaded by tensorjit (a mapping and
  zero-copy views) beside safetensors.numpy.load_file, with the resident memory after the load and
  after every weight was read. Needs the model (scripts/fetch_minilm.sh) and bench/.venv's
  safetensors; reported absent otherwise.
"""
import json
import os
import subprocess

from . import environment
from .peers import VENV_PYTHON

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def model_path():
    if os.environ.get("TENSORJIT_MINILM_DIR"):
        return os.path.join(os.environ["TENSORJIT_MINILM_DIR"], "model.safetensors")
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(cache, "tensorjit", "all-MiniLM-L6-v2", "model.safetensors")


def run_pinned(command):
    """(stdout, the error's text or None) of `command` pinned to core 0 with one thread."""
    try:
        done = subprocess.run(["taskset", "-c", "0"] + command, capture_output=True, text=True,
                              env=environment.for_threads(1), timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as error:
        return "", str(error)
    if done.returncode != 0:
        return done.stdout, f"exit status {done.returncode}: {done.stderr.strip()[-300:]}"
    return done.stdout, None


def measure(build_dir, rounds, log):
    result = {"floats": [], "load": [], "errors": [], "absent": None}
    log("  f16/bf16 beside f32: storage_floats", transient=True)
    stdout, error = run_pinned([os.path.join(build_dir, "bench", "storage", "storage_floats"), str(rounds)])
    result["floats"] = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    if error:
        result["errors"].append(f"storage_floats: {error}")
    path = model_path()
    if not os.path.exists(path):
        result["absent"] = f"{path} is missing: bash scripts/fetch_minilm.sh"
        return result
    # safetensors is bench/.venv's (bench/setup_peers.sh), not Debian's python3, which runs run.py.
    if not os.path.exists(VENV_PYTHON):
        result["absent"] = f"{VENV_PYTHON} is missing: bash bench/setup_peers.sh"
        return result
    log("  model.safetensors: tensorjit beside safetensors.numpy", transient=True)
    stdout, error = run_pinned([VENV_PYTHON, os.path.join(ROOT, "bench", "storage", "load_safetensors.py"), path,
                                "--build-dir", build_dir, "--no-build"])
    lines = [line for line in stdout.splitlines() if line.startswith("[")]
    if lines:
        result["load"] = json.loads(lines[-1])
        result["file_bytes"] = os.path.getsize(path)
    if error:
        result["errors"].append(f"load_safetensors.py: {error}")
    return result


def summary(storage):
    """The figures, one per line, for the markdown report and the console; issue 23's targets in
    brackets."""
    lines = ["f16 and bf16 beside f32 (`bench/storage/storage_floats`, one thread pinned to core 0, the dtypes "
             "alternating in one process, medians):", ""]
    targets = {("matmul", "bf16"): " [at least 0.9]", ("chain", "f16"): " [at least 1]"}
    for row in storage["floats"]:
        unit, scale = ("GFLOP/s", 1e-9) if row["workload"] == "matmul" else ("G elements/s", 1e-9)
        target = targets.get((row["workload"], row["dtype"]))
        lines.append(f"- {row['workload']} {row['dtype']}: {row['median_s'] * 1e3:.3f} ms, {row['rate'] * scale:.2f} {unit}"
                     + ("" if row["dtype"] == "f32" else f", {row['vs_f32']:.2f}× f32's rate{target or ''}"))
    if storage["absent"]:
        lines += ["", f"model.safetensors: absent ({storage['absent']})"]
    elif storage["load"]:
        mb = 1e6
        lines += ["", f"all-MiniLM-L6-v2's model.safetensors ({storage['file_bytes'] / mb:.1f} MB, "
                  "`bench/storage/load_safetensors.py`, median of its loads, the file in the page cache):", ""]
        for row in storage["load"]:
            lines.append(f"- {row['reader']}: {row['median_s'] * 1e3:.3f} ms a load (min {row['min_s'] * 1e3:.3f}), "
                         f"resident memory +{(row['rss_loaded'] - row['rss_before']) / mb:.1f} MB after the load, "
                         f"+{(row['rss_read'] - row['rss_loaded']) / mb:.1f} MB after reading every weight")
        lines.append("  [tensorjit: under 1 ms, nothing copied until the weights are read]")
    lines += [f"- error: {error}" for error in storage["errors"]]
    return lines
