"""Writes the seed corpus of the file-format fuzz targets (tests/fuzz/corpus/{npy,npz,safetensors,
disk_cache}): small valid files of each dtype and layout the loaders take. Run once with NumPy and
the safetensors package (bench/.venv); the files are checked in, so tests never need Python.

    bench/.venv/bin/python tests/fuzz/make_corpus.py
"""
import io
import pathlib
import struct

import numpy as np
from safetensors.numpy import save as save_safetensors

corpus = pathlib.Path(__file__).resolve().parent / "corpus"


def write(folder, name, data):
    path = corpus / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def npy_bytes(array):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


arrays = {
    "f32_2x3": np.arange(6, dtype="<f4").reshape(2, 3),
    "f64_fortran": np.asfortranarray(np.linspace(-1, 1, 12).reshape(3, 4)),
    "i32_big_endian": np.arange(5, dtype=">i4"),
    "i64_scalar": np.array(-7, dtype="<i8"),
    "bool_mask": np.array([True, False, True]),
    "f32_empty": np.zeros((0, 3), dtype="<f4"),
}
for name, array in arrays.items():
    write("npy", name + ".npy", npy_bytes(array))

for compressed in (False, True):
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(
        buffer, a=arrays["f32_2x3"], b=arrays["i32_big_endian"], c=arrays["bool_mask"])
    write("npz", ("deflated" if compressed else "stored") + ".npz", buffer.getvalue())

write("safetensors", "mixed.safetensors", save_safetensors(
    {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "ids": np.array([3, 1], dtype=np.int64),
     "mask": np.array([True, False])}, metadata={"format": "np"}))
write("safetensors", "bytes.safetensors", save_safetensors(
    {"u": np.array([0, 255], dtype=np.uint8), "s": np.array([-128, 127], dtype=np.int8)}))

# The disk cache reader's format (codegen/src/jit/disk_cache.hpp), with the identity the target
# expects; odd length, so the target fixes the checksum (tests/fuzz/target_disk_cache.cpp).
identity = b"tensorjit fuzz identity\n"
payload = b"\x7fELF not a real object, only bytes for the reader"
if (32 + len(identity) + len(payload)) % 2 == 0:
    payload += b"!"
header = b"TJKCACHE" + struct.pack("<IIQQ", 1, len(identity), len(payload), 0)
write("disk_cache", "valid_shape.tjk", header + identity + payload)
