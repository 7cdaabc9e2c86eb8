"""Writes torch_storage_floats.safetensors beside this script: inputs in f16 and bf16 and what
PyTorch's eager CPU ops give on them, for tests/runtime/test_torch_storage_floats.cpp, which
compares tensorjit's results with these stored ones (so the test needs no PyTorch).

    bench/.venv/bin/python tests/runtime/data/make_torch_storage_floats.py

The file records torch's version in its metadata. Every tensor is named "<dtype>.<name>": inputs x,
y [37, 53], gamma, beta [53], a [29, 64], b [64, 31], bt [31, 64] (a transposed operand), and the
exactly summable ea [29, 64], eb [64, 31], ex [37, 53] (multiples of 1/8 up to 2 in magnitude:
every product and partial sum is exact in f32, so any order of the f32 additions gives the same
sum); the outputs are named after the op.
"""
import os

import torch
from safetensors.torch import save_file


def main():
    generator = torch.Generator().manual_seed(23)
    tensors = {}
    for name, dtype in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        def normal(*shape, scale=2.0):
            return (torch.randn(*shape, generator=generator) * scale).to(dtype)

        def eighths(*shape):
            return (torch.randint(-16, 17, shape, generator=generator).float() / 8).to(dtype)

        x, y = normal(37, 53), normal(37, 53)
        gamma, beta = normal(53, scale=1.0), normal(53, scale=0.5)
        a, b, bt = normal(29, 64, scale=0.5), normal(64, 31, scale=0.5), normal(31, 64, scale=0.5)
        ea, eb, ex = eighths(29, 64), eighths(64, 31), eighths(37, 53)
        outputs = {
            "x": x, "y": y, "gamma": gamma, "beta": beta, "a": a, "b": b, "bt": bt, "ea": ea, "eb": eb, "ex": ex,
            # elementwise: each op computes in f32 and rounds (bit for bit)
            "add": x + y, "sub": x - y, "mul": x * y, "div": x / (y.abs() + 0.5), "sqrt": x.abs().sqrt(),
            "maximum": torch.maximum(x, y), "relu": torch.relu(x), "neg_abs": -(x.abs()),
            "chain": torch.maximum(x * y + x, -y) * 0.5,
            # transcendental: within one ulp of the 16-bit type
            "exp": torch.exp(x * 0.5), "tanh": torch.tanh(x), "sigmoid": torch.sigmoid(x),
            # reductions accumulate in f32 and round once
            "sum1": x.sum(1), "mean0": x.mean(0), "max1": x.amax(1), "esum1": ex.sum(1), "esum0": ex.sum(0),
            # rows
            "softmax": torch.softmax(x, -1), "layernorm": torch.nn.functional.layer_norm(x, (53,), gamma, beta, 1e-5),
            # products: f32 accumulation, rounded once
            "matmul": a @ b, "matmul_t": a @ bt.T, "ematmul": ea @ eb,
        }
        for key, value in outputs.items():
            assert value.dtype == dtype, key
            tensors[f"{name}.{key}"] = value.contiguous()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_storage_floats.safetensors")
    save_file(tensors, path, metadata={"torch": torch.__version__, "made_by": os.path.basename(__file__)})
    print(f"wrote {path}: {len(tensors)} tensors, torch {torch.__version__}")


if __name__ == "__main__":
    main()
