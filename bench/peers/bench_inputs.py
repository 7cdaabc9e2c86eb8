"""The inputs every peer computes on: bench_inputs.hpp's splitmix64 values, made with NumPy.

A hash of (stream, index) cut to its top 24 bits gives k * 2^-23 - 1, a value in [-1, 1) that f32
and f64 both hold exactly, so the C++ and the Python peers see identical inputs without files.
Hashing 16 Mi values takes NumPy about a second, so when TENSORJIT_BENCH_INPUTS names a folder
(run.py gives one in /dev/shm) the first Python worker saves each array there and the others load it.
"""
import os

import numpy as np


def hash_values(stream, count):
    with np.errstate(over="ignore"):  # the hash relies on uint64 wrap-around
        z = (np.uint64(stream) << np.uint64(40)) + np.arange(count, dtype=np.uint64)
        z = z * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return (z >> np.uint64(40)).astype(np.float64) * 2.0**-23 - 1.0


def make_input(stream, shape, dtype, positive=False):
    count = int(np.prod(shape)) if len(shape) else 1
    folder = os.environ.get("TENSORJIT_BENCH_INPUTS")
    path = os.path.join(folder, f"{stream}-{count}-{np.dtype(dtype).name}-{int(positive)}.npy") if folder else None
    if path and os.path.exists(path):
        return np.load(path).reshape(shape)
    values = hash_values(stream, count)
    if positive:
        values = values * 0.5 + 0.5
    values = values.astype(dtype)
    if path:  # written under a temporary name and renamed, so no worker reads a partial file
        partial = f"{path}.{os.getpid()}.npy"
        np.save(partial, values)
        os.replace(partial, path)
    return values.reshape(shape)


def embedding_ids(stream, shape, vocabulary):
    """W12's token ids: the integers k of stream `stream`'s values (k * 2^-23 - 1), modulo the
    vocabulary (bench_inputs.hpp's embedding_ids)."""
    count = int(np.prod(shape))
    k = ((hash_values(stream, count) + 1.0) * 2.0**23).astype(np.int64)
    return (k % vocabulary).reshape(shape)
