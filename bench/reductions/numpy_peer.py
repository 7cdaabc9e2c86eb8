"""NumPy side of bench/reductions: the same workloads, one thread, median milliseconds.

Prints one line per workload: `<name> <median ms>`. Run with OMP_NUM_THREADS=1 and
OPENBLAS_NUM_THREADS=1 (reductions and elementwise ops do not use threads in NumPy anyway).
"""
import sys
import time

import numpy as np

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 7


def median_ms(function):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2]


def softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def layernorm(x, gamma, beta, eps=1e-5):
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + eps) * gamma + beta


rng = np.random.default_rng(0)
full = rng.standard_normal(16 << 20, dtype=np.float32)
other = rng.standard_normal(16 << 20, dtype=np.float32)
square = full.reshape(4096, 4096)
square64 = rng.standard_normal((4096, 4096))
rows = rng.standard_normal((4096, 1024), dtype=np.float32)
gamma = rng.standard_normal(1024, dtype=np.float32)
beta = rng.standard_normal(1024, dtype=np.float32)

workloads = [
    ("w4_sum_16Mi_f32", lambda: full.sum()),
    ("w4_sum_axis0_4096x4096_f32", lambda: square.sum(axis=0)),
    ("w4_sum_axis1_4096x4096_f32", lambda: square.sum(axis=1)),
    ("w4_max_16Mi_f32", lambda: full.max()),
    ("w5_softmax_4096x4096_f32", lambda: softmax(square)),
    ("w5_softmax_4096x4096_f64", lambda: softmax(square64)),
    ("w6_layernorm_4096x1024_f32", lambda: layernorm(rows, gamma, beta)),
    ("fused_sq_diff_sum_16Mi_f32", lambda: ((full - other) * (full - other)).sum()),
    ("argmax_axis1_4096x4096_f32", lambda: square.argmax(axis=1)),
    ("argmin_axis0_4096x4096_f32", lambda: square.argmin(axis=0)),
]
for name, function in workloads:
    print(f"{name} {median_ms(function):.3f}", flush=True)
