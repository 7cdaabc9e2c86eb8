"""The MLP forward relu(x @ w1 + b1) @ w2 + b2 in NumPy (its matmul is OpenBLAS's sgemm).

Prints the median time of one forward in microseconds over `rounds` rounds, each the mean of
enough calls to last 20 ms, on the calling thread's CPU clock ("cpu") or the wall clock ("wall").
Called by epilogue_peers with: rows in hidden out rounds clock.
"""
import sys
import time

import numpy as np


def main():
    rows, inputs, hidden, outputs, rounds = (int(a) for a in sys.argv[1:6])
    clock = time.thread_time if sys.argv[6] == "cpu" else time.perf_counter
    generator = np.random.default_rng(0)
    x = generator.uniform(-1, 1, (rows, inputs)).astype(np.float32)
    w1 = (generator.uniform(-1, 1, (inputs, hidden)) * 0.05).astype(np.float32)
    b1 = generator.uniform(-1, 1, hidden).astype(np.float32)
    w2 = (generator.uniform(-1, 1, (hidden, outputs)) * 0.05).astype(np.float32)
    b2 = generator.uniform(-1, 1, outputs).astype(np.float32)

    def forward():
        return np.maximum(x @ w1 + b1, 0) @ w2 + b2

    forward()
    times = []
    for _ in range(rounds):
        calls, start = 0, clock()
        while True:
            forward()
            calls += 1
            elapsed = clock() - start
            if elapsed >= 0.02:
                break
        times.append(elapsed / calls * 1e6)
    times.sort()
    print(f"{times[len(times) // 2]:.2f}")


if __name__ == "__main__":
    main()
