"""Checks what oracle_driver wrote against NumPy and PyTorch (peer_ops.py's rows).

  python check.py DIR             every DIR/<seed>.txt with its .npz (or .error)
  python check.py PROGRAM OUT.npz  one program

Prints one JSON object a failure a line, and exits 1 when there was any. Each statement is
checked on tensorjit's own operand values (the v_ arrays), so every op meets its own bound; each
`out` evaluated fused must equal the same statement evaluated on its own, bit for bit
(docs/contracts.md, contracts 3 and 4).
"""
import json
import math
import os
import sys
import warnings

import numpy as np

from peer_ops import BF16, LONG, OPS, STORAGE, cast, floating

warnings.filterwarnings('ignore')


def parse_program(text):
    statements, outputs = [], []
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith('#'):
            continue
        if words[0] == 'out':
            outputs.append(words[1])
            continue
        name, op, rest = words[0], words[2], words[3:]
        operands = [w for w in rest if '=' not in w]
        attrs = dict(w.split('=', 1) for w in rest if '=' in w)
        statements.append((name, op, operands, attrs))
    return statements, outputs


def unit_roundoff(dtype):
    return {np.dtype(np.float32): 2.0 ** -24, np.dtype(np.float64): 2.0 ** -53, np.dtype(np.float16): 2.0 ** -11,
            BF16: 2.0 ** -8}[np.dtype(dtype)]


# Bounds of ops built from primitives (runtime/src/layers.cpp, ...): on f16 and bf16 every primitive
# rounds to the storage type (contract 11), so their formulas take its unit roundoff.
COMPOSITE = {'softmax', 'log_softmax', 'layernorm', 'rmsnorm', 'mse', 'var', 'std', 'logsumexp'}


def storage_spacing(values, dtype):
    """One ulp of the f16 or bf16 each value rounds to, the binade of |value| (its subnormal spacing
    below the least normal)."""
    mantissa, emin = (10, -14) if np.dtype(dtype) == np.float16 else (7, -126)
    with np.errstate(all='ignore'):
        v = np.abs(np.asarray(values, dtype=np.float64))
        e = np.floor(np.log2(np.maximum(np.where(np.isfinite(v), v, 1.0), 2.0 ** emin)))
        return np.exp2(e - mantissa)


def gamma(n, u):
    return n * u / (1 - n * u) if n * u < 1 else math.inf


def same_bits(a, b):
    """Bit equality, any NaN equal to any NaN (the sign of a NaN is not part of the contract)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return np.zeros(np.broadcast_shapes(a.shape, b.shape) if a.shape == b.shape else (1,), dtype=bool)
    if a.dtype.kind == 'f' or a.dtype == BF16:
        both_nan = np.isnan(a) & np.isnan(b)
        view = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
        return both_nan | (a.view(view) == b.view(view))
    return a == b


def spacing(values, dtype):
    """One ulp of each value in dtype; the subnormal spacing at zero."""
    v = np.abs(np.asarray(values, dtype=np.float64 if dtype == np.float32 else LONG)).astype(dtype)
    return np.spacing(np.where(np.isinf(v), np.finfo(dtype).max, v)).astype(np.float64 if dtype == np.float32 else LONG)


def tolerance(bound, dtype, args, attrs, ref, got, storage=None):
    """The largest |got - ref| allowed for each element, by the bound's formula (peer_ops.py).
    dtype is the one the op computes in (f32 for f16 and bf16); `storage` the f16 or bf16 every
    primitive of a composite rounds to."""
    wide_type = np.float64 if dtype == np.float32 else LONG
    limits = np.finfo(storage if storage is not None and bound.kind in COMPOSITE else dtype)
    u = unit_roundoff(storage if storage is not None and bound.kind in COMPOSITE else dtype)
    s = unit_roundoff(dtype)  # the sums' (a reduction of f16/bf16 accumulates in f32, contract 11)
    tiny = float(limits.smallest_subnormal)
    x = args[0] if args else None
    with np.errstate(all='ignore'):
        huge = float(limits.max)
        if bound.kind == 'ulp':
            return (bound.ulp_f32 if dtype == np.float32 else bound.ulp_f64) * spacing(ref, dtype)
        if bound.kind in ('sum', 'mean', 'prod'):
            axes = tuple(range(x.ndim)) if attrs.get('axes', 'all') == 'all' else tuple(sorted({int(a) % x.ndim for a in attrs['axes'].split(',')}))
            keep = attrs.get('keepdims') == '1'
            n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
            magnitude = np.abs(x.astype(wide_type))
            g = gamma(max(n - 1, 1), u)
            if bound.kind == 'prod':
                big = np.prod(np.maximum(magnitude, 1), axis=axes, keepdims=keep)
                return np.where(big >= huge, np.inf, g * np.abs(ref) + n * tiny * big * 4 + spacing(ref, dtype))
            # a partial sum beyond the dtype's range may overflow whatever the order: no bound then
            total = np.sum(magnitude, axis=axes, keepdims=keep)
            total = np.where(total >= huge, np.inf, total)
            if bound.kind == 'mean':  # the sum's error divided by n, the division's and the cast's rounding
                return g * total / max(n, 1) + 2 * spacing(ref, dtype)
            return g * total + spacing(ref, dtype)
        if bound.kind == 'mse':  # a - b and its square round (3u relative), then a mean of n squares
            squares = np.broadcast_arrays(*(v.astype(wide_type) for v in args))
            squares = (squares[0] - squares[1]) ** 2
            n = squares.size
            total = np.sum(squares)
            return np.inf if total >= huge else (gamma(n, s) + 3 * u) * total / max(n, 1) + 2 * spacing(ref, dtype)
        if bound.kind == 'matmul':
            a, b = (np.abs(v.astype(wide_type)) for v in args)
            k = a.shape[-1]
            products = np.matmul(a, b)
            return np.where(products >= huge, np.inf, gamma(k, u) * products + spacing(ref, dtype))
        if bound.kind in ('var', 'std', 'logsumexp'):
            axes = tuple(range(x.ndim)) if attrs.get('axes', 'all') == 'all' else tuple(sorted({int(a) % x.ndim for a in attrs['axes'].split(',')}))
            keep = attrs.get('keepdims') == '1'
            n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
            xs = x.astype(wide_type)
            if n == 0:
                return np.zeros(ref.shape)
            if bound.kind == 'logsumexp':  # exp of x - m within u|x - m| e^-(m - x) <= u/e each, the sum, the log, + m
                m = np.max(xs, axis=axes, keepdims=keep)
                return n * (u + s) + 8 * u + 2 * u * (np.abs(ref) + np.where(np.isfinite(m), np.abs(m), 0)) + spacing(ref, dtype)
            # the mean's error d moves the centred sum S to S + n d^2; then n + 8 roundings of it
            divisor = max(0.0, n - float(attrs['correction']))
            peak = np.max(np.abs(xs), axis=axes, keepdims=True)
            d = (n * s + 2 * u) * peak
            centred = np.sum((xs - np.mean(xs, axis=axes, keepdims=True)) ** 2, axis=axes, keepdims=True)
            # (and each square may underflow by half the least subnormal)
            tol_var = (n * d * d + (n * s + 8 * u) * (centred + n * d * d) + n * tiny) / divisor if divisor else np.zeros(centred.shape)
            tol_var = np.where((n * peak * peak >= huge) | ~np.isfinite(peak), np.inf, tol_var)
            if not keep:
                tol_var = np.squeeze(tol_var, axis=axes)
            if bound.kind == 'var':
                return tol_var + 2 * spacing(ref, dtype)
            var = np.asarray(ref, dtype=wide_type) ** 2
            return np.fmin(tol_var / (2 * np.sqrt(var)), np.sqrt(tol_var)) + 2 * spacing(ref, dtype)  # fmin: 0/0 at var 0
        n = x.shape[int(attrs.get('axis', -1)) % x.ndim] if x.ndim else 1
        if bound.kind == 'softmax':  # x - max rounds (exp's condition number |x - max|), exp 1 ulp, the sum gamma(n), one division
            xs = x.astype(wide_type).reshape(ref.shape)
            shifted = np.abs(xs - np.max(xs, axis=int(attrs['axis']) % max(x.ndim, 1), keepdims=True)) if x.ndim else 0
            return ((n * s + 8 * u) + 2 * u * np.where(np.isfinite(shifted), shifted, 0)) * np.abs(ref) + 8 * tiny
        if bound.kind == 'log_softmax':  # x - max exact; log of the sum within (n + 4) u absolute
            return (n * s + 8 * u) * (2 * np.abs(ref) + 2)
        # x's own dtype computes the normalisation (an integer x as f32); gamma and beta may widen
        # the result after it. An f16 or bf16 x rounds every primitive of it to its own type and
        # sums in f32 (contract 11), whatever the result's dtype: f64 weights give an f64 result
        # with the storage type's error, its range and its subnormals.
        norm = floating(x.dtype)
        u = max(u, unit_roundoff(norm))
        s = max(s, unit_roundoff(np.float64 if norm == np.float64 else np.float32))
        huge = min(huge, float(np.finfo(norm).max))
        tiny = max(tiny, float(np.finfo(norm).smallest_subnormal))
        xs = x.astype(wide_type)
        gamma_row = np.abs(args[1].astype(wide_type))
        if bound.kind == 'rmsnorm':  # no bound when the sum of squares overflows the dtype
            squares = np.sum(xs * xs, axis=-1, keepdims=True)
            return np.where(squares >= huge, np.inf, (n * s + 8 * u) * np.abs(ref) + 8 * tiny * (1 + gamma_row))
        if bound.kind == 'layernorm':  # the centring's error is u*max|x| over the row, scaled by 1/std
            mean = np.mean(xs, axis=-1, keepdims=True)
            var = np.mean((xs - mean) ** 2, axis=-1, keepdims=True)
            spread = np.max(np.abs(xs), axis=-1, keepdims=True) / np.sqrt(var + float(attrs['eps']))
            xhat = (xs - mean) / np.sqrt(var + float(attrs['eps']))
            bound = (n * s + 16 * u) * ((np.abs(xhat) + spread) * gamma_row + np.abs(args[2].astype(wide_type))) + spacing(ref, dtype)
            # the centring and the scaling may each round to a subnormal of the normalising dtype
            bound = bound + 4 * tiny * (1 + 1 / np.sqrt(var + float(attrs['eps']))) * gamma_row
            return np.where(n * var >= huge, np.inf, bound)  # the sum of squares overflows the dtype
    raise ValueError('no tolerance for bound ' + bound.kind)


def recheck_precisely(row, args, got, ok, limit=2000):
    """The elements outside the cheap bound, against the exact value (row.precise, mpmath) and the
    documented ulp bound."""
    import mpmath
    dtype = got.dtype.type
    x = np.broadcast_to(args[0].astype(floating(args[0].dtype)), got.shape)
    documented = row.documented[0 if dtype == np.float32 else 1]
    for index in list(zip(*np.nonzero(~ok)))[:limit] if got.ndim else ([()] if not ok else []):
        exact = row.precise(mpmath.mpf(float(x[index])), dtype)
        one_ulp = float(np.spacing(np.abs(dtype(float(exact))))) if mpmath.isfinite(exact) else 0
        error = abs(mpmath.mpf(float(got[index])) - exact)
        ok[index] = bool(error <= documented * one_ulp)
    return ok


def compare(row, args, attrs, got):
    """None when got is what the row allows, else a message naming the worst element."""
    expected_dtype = np.dtype(row.dtype(args, attrs))
    if got.dtype != expected_dtype:
        return f'dtype {got.dtype} where PyTorch\'s rule (or docs/numpy_differences.md) gives {expected_dtype}'
    ref = np.asarray(row.value(args, attrs))
    if got.shape != ref.shape:
        return f'shape {got.shape} where the peers give {ref.shape}'
    if got.size == 0:
        return None
    floating_result = got.dtype.kind == 'f' or got.dtype == BF16
    if row.bound.kind == 'exact' or not floating_result:
        ok = same_bits(got, cast(ref, got.dtype))
        if row.either_zero and floating_result:
            ok = ok | ((got == 0) & (ref == 0))
    else:
        # f16 and bf16 compute in f32 and round once: the f32 bound plus one ulp of the storage
        # type (two for a mean, a sum then a division, and for the composites, whose formulas
        # then take the storage type's unit roundoff)
        storage = got.dtype if got.dtype in STORAGE else None
        dtype = np.float32 if storage is not None else got.dtype.type
        wide_ref = ref.astype(np.float64 if dtype == np.float32 else LONG)
        wide_got = got.astype(wide_ref.dtype)
        tol = tolerance(row.bound, dtype, args, attrs, wide_ref, wide_got, storage)
        if storage is not None:
            ulps = 2 if row.bound.kind in COMPOSITE or row.bound.kind == 'mean' else 1
            tol = tol + ulps * storage_spacing(np.abs(wide_ref) + np.where(np.isfinite(tol), tol, 0), storage)
        tol = np.broadcast_to(tol, got.shape)
        with np.errstate(all='ignore'):
            finite = np.isfinite(wide_ref) & np.isfinite(wide_got)
            close = np.abs(wide_got - wide_ref) <= tol
            # beyond the dtype's range: the peers' wide value overflows to got's infinity
            overflow = np.isinf(wide_got) & ~np.isinf(wide_ref) & (np.abs(wide_ref) + tol >= float(np.finfo(got.dtype).max)) & (np.sign(wide_got) == np.sign(wide_ref))
            special = (np.isnan(wide_ref) & np.isnan(wide_got)) | (np.isinf(wide_ref) & (wide_got == wide_ref))
        ok = (finite & close) | overflow | special | np.isinf(tol)
        if row.precise is not None and storage is None and not ok.all():
            ok = recheck_precisely(row, args, got, np.array(ok, copy=True).reshape(got.shape))
    if ok.all():
        return None
    bad = np.argwhere(~np.asarray(ok).reshape(got.shape) if got.ndim else ~np.asarray(ok).reshape(1))
    first = tuple(bad[0]) if got.ndim else ()
    return (f'{len(bad)} of {got.size} elements outside the bound {row.bound.kind}; first at {list(first)}: '
            f'got {got[first]!r}, peers {ref[first]!r}')


def check_program(program_text, npz_path, label):
    statements, outputs = parse_program(program_text)
    failures = []
    with np.load(npz_path) as data:
        values = {k: data[k] for k in data.files}
    for key in [k for k in values if k.startswith('bf16_')]:  # the driver saved bf16 values as their f32
        for prefix in ('v_', 'fused_'):
            if prefix + key[5:] in values:
                values[prefix + key[5:]] = values[prefix + key[5:]].astype(BF16)
    for name, op, operands, attrs in statements:
        if op == 'input':
            continue
        if op not in OPS:
            failures.append({'program': label, 'statement': name, 'op': op, 'message': f'no row for {op} in peer_ops.py'})
            continue
        args = [values['v_' + o] for o in operands]
        try:
            message = compare(OPS[op], args, attrs, values['v_' + name])
        except Exception as e:  # a peer refusing what tensorjit accepts is worth reading
            message = f'the peers raised {type(e).__name__}: {e}'
        if message:
            failures.append({'program': label, 'statement': name, 'op': op, 'message': message})
    for name in outputs:
        fused, each = values['fused_' + name], values['v_' + name]
        if not same_bits(fused, each).all():
            op = next(s[1] for s in statements if s[0] == name)
            failures.append({'program': label, 'statement': name, 'op': op, 'kind': 'fused',
                             'message': 'evaluated fused with the other outputs, its bits differ from the statement evaluated on its own'})
    return failures


def main():
    failures = []
    if len(sys.argv) == 3:
        with open(sys.argv[1]) as f:
            failures = check_program(f.read(), sys.argv[2], sys.argv[1])
    else:
        folder = sys.argv[1]
        for file in sorted(os.listdir(folder)):
            if not file.endswith('.txt'):
                continue
            stem = os.path.join(folder, file[:-4])
            with open(stem + '.txt') as f:
                text = f.read()
            if os.path.exists(stem + '.error'):
                with open(stem + '.error') as f:
                    failures.append({'program': stem + '.txt', 'kind': 'error', 'message': f.read().strip()})
            elif not os.path.exists(stem + '.npz'):
                failures.append({'program': stem + '.txt', 'kind': 'crash', 'message': 'the driver died running it'})
            else:
                failures.extend(check_program(text, stem + '.npz', stem + '.txt'))
    for failure in failures:
        print(json.dumps(failure))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
