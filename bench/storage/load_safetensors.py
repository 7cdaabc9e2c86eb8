"""Load all-MiniLM-L6-v2's model.safetensors with tensorjit and with safetensors.numpy.load_file,
side by side (docs/files.md): the median time of a load and the resident set before, after the
load, and after every weight was read.

    bench/.venv/bin/python bench/storage/load_safetensors.py [model.safetensors] [--loads N] [--build-dir build] [--no-build]

The file defaults to the one scripts/fetch_minilm.sh fetches. tensorjit's figures come from the
load_safetensors program (built here with `cmake --build <build-dir> --target load_safetensors`);
safetensors' from this process, timed the same way: `loads` loads, the median. Both read the file
from the page cache (it is read once first). The last line is both rows as JSON (bench/run.py reads
it, with --no-build).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def resident_bytes():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return -1


def safetensors_figures(path, loads):
    from safetensors.numpy import load_file
    before = resident_bytes()
    seconds = []
    tensors = None
    for _ in range(loads):
        tensors = None
        start = time.perf_counter()
        tensors = load_file(path)
        seconds.append(time.perf_counter() - start)
    loaded = resident_bytes()
    total = sum(float(array.astype("float64").sum()) for array in tensors.values())
    read = resident_bytes()
    import safetensors
    return {"reader": f"safetensors {safetensors.__version__} numpy.load_file", "tensors": len(tensors),
            "loads": loads, "median_s": statistics.median(seconds), "min_s": min(seconds), "max_s": max(seconds),
            "rss_before": before, "rss_loaded": loaded, "rss_read": read, "checksum": total}


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cache = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
    parser = argparse.ArgumentParser()
    parser.add_argument("path", nargs="?", default=os.path.join(cache, "tensorjit/all-MiniLM-L6-v2/model.safetensors"))
    parser.add_argument("--loads", type=int, default=21)
    parser.add_argument("--build-dir", default=os.path.join(root, "build"))
    parser.add_argument("--no-build", action="store_true", help="use the load_safetensors program already built")
    args = parser.parse_args()
    if not os.path.exists(args.path):
        sys.exit(f"{args.path} is missing: run scripts/fetch_minilm.sh")
    with open(args.path, "rb") as file:  # into the page cache, for both readers alike
        while file.read(1 << 24):
            pass
    if not args.no_build:
        subprocess.run(["cmake", "--build", args.build_dir, "--target", "load_safetensors"], check=True,
                       stdout=subprocess.DEVNULL)
    program = os.path.join(args.build_dir, "bench", "storage", "load_safetensors")
    line = subprocess.run([program, args.path, str(args.loads)], check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line), safetensors_figures(args.path, args.loads)]
    size = os.path.getsize(args.path)
    print(f"{args.path}: {size / 1e6:.1f} MB, {rows[0]['tensors']} tensors, median of {args.loads} loads")
    print(f"{'reader':45} {'median':>10} {'min':>10} {'RSS before':>11} {'+ load':>9} {'+ read':>9}")
    mb = 1e6
    for row in rows:
        print(f"{row['reader']:45} {row['median_s'] * 1e3:8.3f}ms {row['min_s'] * 1e3:8.3f}ms "
              f"{row['rss_before'] / mb:9.1f}MB {(row['rss_loaded'] - row['rss_before']) / mb:7.1f}MB "
              f"{(row['rss_read'] - row['rss_loaded']) / mb:7.1f}MB")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
