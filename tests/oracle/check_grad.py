"""Checks the gradients oracle_driver wrote (grad_batch) against torch.autograd.

  python check_grad.py DIR             every DIR/<seed>.txt with its .npz (or .error)
  python check_grad.py PROGRAM OUT.npz  one program

A gradient program (generate.hpp, generate_grad_program) has one output and an input `dy` of its
shape; the driver wrote tj::grad(output, floating inputs, dy) as g_<input>. This replays the
program in torch (peer_ops.GRAD_OPS) with every floating input in f64, takes
torch.autograd.grad(output, inputs, dy), and requires each gradient within

    |g - g_torch| <= rtol * max|g_torch| + atol   over each gradient tensor,

rtol 2^-12 when the program holds an f32 input (each of up to a dozen ops rounds at 2^-24
relative, and sums of up to 4100 terms gain at most n u), 2^-36 when it is all f64; atol the
same multiple of 1e-30. A norm-wise bound rather than per element: the reference differs from
tensorjit's forward values by their rounding, and the chain rule multiplies such differences.
A program whose f64 forward values or reference gradients are not finite (var with n <=
correction, exp of a sum of large values), or whose output is empty (docs/numpy_differences.md), is
counted as skipped, not passed. Prints one JSON object a failure a line; exits 1 when there was any.
"""
import json
import os
import sys
import warnings

import numpy as np
import torch

from check import parse_program
from peer_ops import GRAD_OPS

warnings.filterwarnings('ignore')
torch.set_num_threads(1)


def replay(statements, values):
    env, leaves = {}, {}
    for name, op, operands, attrs in statements:
        if op == 'input':
            a = values['v_' + name]
            t = torch.from_numpy(np.array(a, copy=True))
            if t.is_floating_point():
                t = t.to(torch.float64)
                if name != 'dy':
                    t.requires_grad_()
                    leaves[name] = t
            env[name] = t
        else:
            env[name] = GRAD_OPS[op]([env[o] for o in operands], attrs)
    return env, leaves


def check_program(program_text, npz_path, label):
    statements, outputs = parse_program(program_text)
    with np.load(npz_path) as data:
        values = {k: data[k] for k in data.files}
    f32 = any(values['v_' + name].dtype == np.float32 for name, op, _, _ in statements if op == 'input' and name != 'dy')
    rtol = 2.0 ** -12 if f32 else 2.0 ** -36
    try:
        env, leaves = replay(statements, values)
        out = env[outputs[0]]
        if out.numel() == 0:  # no gradient information; torch skips it, tensorjit multiplies (numpy_differences.md)
            return [], 'skipped'
        if not all(bool(torch.isfinite(v).all()) for v in env.values() if v.is_floating_point()):
            return [], 'skipped'
        if not out.requires_grad:
            refs = [torch.zeros_like(t) for t in leaves.values()]
        else:
            refs = torch.autograd.grad(out, list(leaves.values()), grad_outputs=env['dy'].to(out.dtype).reshape(out.shape),
                                       allow_unused=True)
    except Exception as e:  # a replay that torch refuses is worth reading
        return [{'program': label, 'kind': 'grad', 'message': f'the torch replay raised {type(e).__name__}: {e}'}], 'checked'
    failures = []
    refs = [torch.zeros_like(t) if r is None else r for r, t in zip(refs, leaves.values())]
    if not all(bool(torch.isfinite(r).all()) for r in refs):
        return [], 'skipped'
    for name, ref in zip(leaves, refs):
        ref = ref.detach().numpy()
        got = values['g_' + name].astype(np.float64)
        if got.shape != ref.shape:
            failures.append({'program': label, 'kind': 'grad', 'statement': name,
                             'message': f'gradient of {name}: shape {got.shape} where torch gives {ref.shape}'})
            continue
        if got.size == 0:
            continue
        tol = rtol * float(np.max(np.abs(ref))) + rtol * 1e-30
        error = np.abs(got - ref)
        bad = ~(error <= tol)
        if bad.any():
            first = tuple(np.argwhere(bad)[0])
            failures.append({'program': label, 'kind': 'grad', 'statement': name,
                             'message': f'gradient of {name}: {int(bad.sum())} of {got.size} elements beyond {tol:.3g}; '
                                        f'first at {list(first)}: got {got[first]!r}, torch {ref[first]!r}'})
    return failures, 'checked'


def main():
    failures, counts = [], {'checked': 0, 'skipped': 0}
    if len(sys.argv) == 3:
        with open(sys.argv[1]) as f:
            found, verdict = check_program(f.read(), sys.argv[2], sys.argv[1])
        failures.extend(found)
        counts[verdict] += 1
    else:
        folder = sys.argv[1]
        for file in sorted(os.listdir(folder)):
            if not file.endswith('.txt'):
                continue
            stem = os.path.join(folder, file[:-4])
            if os.path.exists(stem + '.error'):
                with open(stem + '.error') as f:
                    failures.append({'program': stem + '.txt', 'kind': 'error', 'message': f.read().strip()})
            elif not os.path.exists(stem + '.npz'):
                failures.append({'program': stem + '.txt', 'kind': 'crash', 'message': 'the driver died running it'})
            else:
                with open(stem + '.txt') as f:
                    found, verdict = check_program(f.read(), stem + '.npz', stem + '.txt')
                failures.extend(found)
                counts[verdict] += 1
    for failure in failures:
        print(json.dumps(failure))
    print(json.dumps({'counts': counts}))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
