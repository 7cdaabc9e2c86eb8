"""NumPy's side of vecmath_peers: prints `name ns_per_element` for each case, median of `runs`
timed calls after one warm-up, on the same value ranges (own random draws). erf is SciPy's
(scipy.special.erf), NumPy having none, and so is gelu's. Usage: numpy_peer.py ELEMENTS RUNS"""
import sys
import time

import numpy as np

try:
    from scipy.special import erf
except ImportError:
    erf = None


def main():
    count, runs = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(1)
    uniform = lambda low, high: rng.uniform(low, high, count).astype(np.float32)
    cases = [
        ("x+1", uniform(-5, 5), lambda x: x + np.float32(1)),
        ("exp", uniform(-87, 88), np.exp),
        ("log", np.exp(uniform(-69, 69)).astype(np.float32), np.log),
        ("tanh", uniform(-9, 9), np.tanh),
        ("erf", uniform(-4, 4), erf),
        ("sin", uniform(-100, 100), np.sin),
        ("cos", uniform(-100, 100), np.cos),
        ("gelu", uniform(-5, 5),
         None if erf is None else lambda x: np.float32(0.5) * x * (1 + erf(x * np.float32(0.70710678118654752)))),
        ("pow", np.exp(uniform(-5, 5)).astype(np.float32),
         lambda x, y=uniform(-10, 10): np.power(x, y)),
        ("w2", uniform(-5, 5), lambda x: np.tanh(x) * (1 / (1 + np.exp(-x))) + np.exp(-x * x)),
    ]
    for name, x, function in cases:
        if function is None:
            continue
        function(x)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            function(x)
            times.append(time.perf_counter() - start)
        print(name, float(np.median(times)) / count * 1e9, flush=True)


main()
