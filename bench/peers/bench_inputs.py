"""The inputs every peer computes on: bench_inputs.hpp's splitmix64 values, made with NumPy.

A hash of (stream, index) cut to its top 24 bits gives k * 2^-23 - 1, a value in [-1, 1) that f32
and f64 both hold exactly, so the C++ and the Python peers see identical inputs without files.
"""
import numpy as np


def make_input(stream, shape, dtype, positive=False):
    count = int(np.prod(shape)) if len(shape) else 1
    with np.errstate(over="ignore"):  # the hash relies on uint64 wrap-around
        z = (np.uint64(stream) << np.uint64(40)) + np.arange(count, dtype=np.uint64)
        z = z * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    values = (z >> np.uint64(40)).astype(np.float64) * 2.0**-23 - 1.0
    if positive:
        values = values * 0.5 + 0.5
    return values.astype(dtype).reshape(shape)
