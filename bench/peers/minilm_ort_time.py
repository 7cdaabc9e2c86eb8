"""ONNX Runtime on W16's MiniLM latency shapes, printed as `minilm --bench` prints tensorjit's: per
shape the median and range of the wall time per run and the median of the process's CPU time per
run (all threads), so that the two programs, run one after the other, compare on a machine other
processes share (their time slices are in the wall time, not in the CPU time).

    bench/.venv/bin/python bench/peers/minilm_ort_time.py [--threads N] [--runs-16 R] [--runs-128 R]

The model is exported as bench/run.py's W16 exports it (minilm_peers.onnx_session, kept in the
system's temporary folder), with the same synthetic ids.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minilm_peers import minilm_ids, onnx_session  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs-16", type=int, default=50)
    parser.add_argument("--runs-128", type=int, default=30)
    args = parser.parse_args()
    import onnxruntime
    import torch

    for tokens, runs in ((16, args.runs_16), (128, args.runs_128)):
        session = onnx_session(torch, onnxruntime, 1, tokens, args.threads)
        ids = minilm_ids(1, tokens)
        feeds = {"ids": ids, "mask": np.ones_like(ids)}
        session.run(None, feeds)
        wall, cpu = [], []
        for _ in range(runs):
            cpu_start, wall_start = time.process_time(), time.perf_counter()
            session.run(None, feeds)
            cpu.append((time.process_time() - cpu_start) * 1e3)
            wall.append((time.perf_counter() - wall_start) * 1e3)
        wall.sort()
        cpu.sort()
        print(f"onnxruntime 1x{tokens}: median {wall[len(wall) // 2]:.3f} ms (min {wall[0]:.3f}, max {wall[-1]:.3f}, "
              f"{runs} runs), CPU time median {cpu[len(cpu) // 2]:.3f} ms", flush=True)


if __name__ == "__main__":
    main()
