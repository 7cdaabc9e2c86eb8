"""What NumPy and PyTorch say each oracle op gives, and within which bound: one row an op.

The names are those of tests/oracle/oracle_ops.cpp. A row is Row(dtype, value, bound):
  dtype(args, attrs)  the result dtype: PyTorch's (torch.result_type, 0-d operands counting by
                      category) unless docs/numpy_differences.md lists the op
  value(args, attrs)  the expected values, as a NumPy array: exact ops in the result dtype itself
                      (NumPy's IEEE operations, integers wrapping), bounded ops in a wider type
                      (f64 for f32 results, long double or f64 for f64 ones), for Bound to compare
  bound               how close tensorjit must be (check.py): EXACT bit for bit (any NaN equals any
                      NaN); ulp(f32, f64) the documented vector-math bound (docs/contracts.md,
                      contract 4) plus the reference's own error; or a summation bound over the
                      operands (sum, mean, prod, matmul, the layers)

args are tensorjit's own operand values (the v_ arrays of the driver), so each op is checked on its
own, without the error of earlier statements.
"""
import math
from dataclasses import dataclass
from typing import Callable

import ml_dtypes
import mpmath
import numpy as np
import torch

mpmath.mp.dps = 40

LONG = np.longdouble  # 64-bit mantissa on x86-64: a reference for f64 results
BF16 = np.dtype(ml_dtypes.bfloat16)  # numpy has no bf16; ml_dtypes' computes in f32 and rounds, as tensorjit
STORAGE = (np.dtype(np.float16), BF16)  # the storage types: each op computes in f32 and rounds once


def is_float(dtype):
    return np.dtype(dtype).kind == 'f' or np.dtype(dtype) == BF16


def cast(a, dtype):
    """a.astype(dtype), but to f16 and bf16 through f32 as tensorjit and PyTorch convert (an f64 or
    an i64 rounds twice)."""
    a = np.asarray(a)
    if np.dtype(dtype) in STORAGE and a.dtype != np.dtype(dtype):
        return a.astype(np.float32).astype(dtype)
    return a.astype(dtype)


@dataclass(frozen=True)
class Bound:
    kind: str  # exact, ulp, or a formula of check.py's tolerance(): sum, prod, mean, mse, matmul, the layers
    ulp_f32: float = 0
    ulp_f64: float = 0


EXACT = Bound('exact')


def ulp(f32, f64):
    return Bound('ulp', f32, f64)


@dataclass(frozen=True)
class Row:
    dtype: Callable
    value: Callable
    bound: Bound = EXACT
    # For a reference computed through f64 functions (erf, erfc): the exact value of one element
    # (mpmath, 40 digits) and the documented bounds (f32, f64), which check.py applies to the few
    # elements outside `bound`, whose slack covers the f64 reference's own error.
    precise: Callable = None
    documented: tuple = (0, 0)
    # -0.0 and 0.0 tie and either may come out (max, min: the strict order picks, contract 4)
    either_zero: bool = False


# ---- dtypes: PyTorch's promotion -------------------------------------------------------------

def tt(a):
    """A torch tensor of a NumPy array; a 0-d one stays 0-d (np.ascontiguousarray would make it 1-d,
    and a 0-d tensor promotes differently)."""
    a = np.array(a, copy=True, order='C')
    if a.dtype == BF16:  # torch.from_numpy knows no bf16: the bits, viewed
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def to_np_dtype(t):
    return {torch.float32: np.float32, torch.float64: np.float64, torch.int32: np.int32,
            torch.int64: np.int64, torch.bool: np.bool_, torch.float16: np.float16, torch.bfloat16: BF16}[t]


def promoted(*args):
    """PyTorch's result dtype of the operands: 0-d ones count only by a higher category."""
    if len(args) == 2:
        return to_np_dtype(torch.result_type(tt(args[0]), tt(args[1])))
    return to_np_dtype(torch.clamp(*(tt(a) for a in args)).dtype)  # clamp promotes its three alike


def floating(dtype):
    return np.dtype(dtype) if is_float(dtype) else np.dtype(np.float32)


def same(args, attrs):
    return args[0].dtype


def float_of(args, attrs):
    return floating(args[0].dtype)


def bool_result(args, attrs):
    return np.dtype(np.bool_)


def i64_result(args, attrs):
    return np.dtype(np.int64)


def binary_dtype(args, attrs):
    return np.dtype(promoted(args[0], args[1]))


def scalar_of(attrs):
    kind, value = attrs['scalar'], attrs['value']
    return int(value) if kind == 'i' else (value == '1') if kind == 'b' else float(value)


def scalar_dtype(args, attrs):  # a C++ scalar is weak: torch's rule for a Python scalar
    return np.dtype(to_np_dtype(torch.result_type(tt(args[0]), scalar_of(attrs))))


def sum_dtype(args, attrs):  # integers and bool accumulate in i64
    return np.dtype(np.int64) if args[0].dtype.kind in 'biu' else args[0].dtype


# ---- helpers ---------------------------------------------------------------------------------

def wide(a):
    """The values in a wider type for a bounded reference: f64 for f32 and integers, long double for f64."""
    return a.astype(LONG) if a.dtype == np.float64 else a.astype(np.float64)


def quiet(f):
    def run(*a, **k):
        with np.errstate(all='ignore'):
            return f(*a, **k)
    return run


def axes_of(attrs, x):
    if attrs.get('axes', 'all') == 'all':
        return tuple(range(x.ndim))
    return tuple(sorted({int(a) % x.ndim for a in attrs['axes'].split(',')}))


def keep(attrs):
    return attrs.get('keepdims') == '1'


def axis_of(attrs, x, key='axis'):
    return int(attrs[key]) % max(x.ndim, 1)


def unary_float(f_wide):
    """A floating function: integer and bool operands as f32 (PyTorch's rule), the reference wide."""
    return lambda args, attrs: quiet(f_wide)(wide(args[0].astype(floating(args[0].dtype))))


def exact_unary(f):
    return lambda args, attrs: quiet(f)(args[0])


def exact_binary(f):
    def value(args, attrs):
        d = promoted(args[0], args[1])
        return quiet(f)(cast(args[0], d), cast(args[1], d))
    return value


def exact_scalar(f):
    def value(args, attrs):
        d = scalar_dtype(args, attrs)
        s = scalar_of(attrs)
        return quiet(f)(cast(args[0], d), cast(np.array(s), d))
    return value


def erf_wide(x):
    t = torch.from_numpy(np.asarray(x, dtype=np.float64))
    return torch.special.erf(t).numpy()


def erfc_wide(x):
    return torch.special.erfc(torch.from_numpy(np.asarray(x, dtype=np.float64))).numpy()


def in_dtype(constant, x):
    """A formula constant rounded to the op's dtype, as scalar_ops.hpp defines it (f32 for f32 ops;
    the wide reference itself stands for f64), then widened: gelu's value is the formula's with
    that constant, which for f32 is up to ~20 ulp from the exact gelu at x = -10 (PyTorch's f32
    kernel uses the same f32 constant)."""
    return np.asarray(constant, dtype=np.float32 if x.dtype == np.float64 else np.float64).astype(x.dtype)


def gelu_wide(x):
    """x/2 erfc(-x c), with erfc(t) = erfcx(t) exp(-t^2) for t > 2: no cancellation for negative
    x, and no underflow of an f64 erfc before the product (t^2 and exp in the wide type)."""
    t = -(x * in_dtype(0.70710678118654752440, x))
    t64 = torch.from_numpy(np.asarray(t, dtype=np.float64))
    with np.errstate(all='ignore'):
        scaled = torch.special.erfcx(t64).numpy().astype(x.dtype) * np.exp(-(t * t))
        e = np.where(t > 2, scaled, torch.special.erfc(t64).numpy().astype(x.dtype))
        return 0.5 * x * e


def gelu_precise(x, dtype):
    c = mpmath.mpf(float(np.asarray(0.70710678118654752440, dtype=dtype)))
    return mpmath.mpf(0.5) * x * mpmath.erfc(-x * c)


def sigmoid_wide(x):
    return 1 / (1 + np.exp(-x))


def gelu_tanh_wide(x):  # (x/2)(1 + tanh v) = x * sigmoid(2v)
    v = in_dtype(0.79788456080286535588, x) * (x + in_dtype(0.044715, x) * (x * x * x))
    return x * sigmoid_wide(2 * v)


def softplus_wide(x):
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


def logical(f):
    """Each operand to bool on its own, NumPy's rule; PyTorch casts both to their common dtype
    first, where an f64 1e-300 is an f32 0 (docs/numpy_differences.md)."""
    return lambda args, attrs: f(args[0] != 0, args[1] != 0)


def shift(left):
    def value(args, attrs):
        d = promoted(args[0], args[1])
        a, s = args[0].astype(d), args[1].astype(d)
        bits = np.dtype(d).itemsize * 8
        inside = (s >= 0) & (s < bits)
        safe = np.where(inside, s, 0)
        if left:
            return np.where(inside, np.left_shift(a, safe), np.zeros_like(a))
        return np.where(inside, np.right_shift(a, safe), np.where(a < 0, -1, 0).astype(d))
    return value


@quiet
def int_pow(a, b):
    """Integers: wrapping repeated multiplication; a negative exponent gives 0 (1 for base 1, +-1 for -1)."""
    out = np.power(a, np.where(b < 0, 0, b))
    neg = b < 0
    minus_one = np.where(b % 2 == 0, 1, -1).astype(a.dtype)
    return np.where(neg, np.where(a == 1, 1, np.where(a == -1, minus_one, 0)).astype(a.dtype), out)


@quiet
def float_pow(a, b):
    """C99 Annex F's pow, as tensorjit's contract states: NumPy and PyTorch compute x ** 0.5 as
    sqrt, so their pow(-inf, 0.5) is NaN where Annex F gives +inf (docs/numpy_differences.md)."""
    a, b = wide(a), wide(b)
    odd = (np.mod(b, 2) == 1)
    return np.where((a == -np.inf) & (b > 0) & ~odd, np.inf, np.power(a, b))


def pow_value(args, attrs):
    d = promoted(args[0], args[1])
    a, b = cast(args[0], d), cast(args[1], d)
    if np.dtype(d).kind in 'iu':
        return int_pow(a, b)
    return float_pow(a, b)


def pow_dtype(args, attrs):
    return np.dtype(promoted(args[0], args[1]))


def pow_scalar_value(args, attrs):
    d = scalar_dtype(args, attrs)
    a, b = cast(args[0], d), cast(np.array(scalar_of(attrs)), d)
    if np.dtype(d).kind in 'iu':
        return int_pow(a, b)
    return float_pow(a, b)


def cast_value(args, attrs):
    """astype: floats to integers truncate and saturate, NaN gives 0; anything to bool is != 0."""
    x, d = args[0], cast_dtype(args, attrs)
    if d == np.bool_:
        return x != 0
    if is_float(x.dtype) and d.kind == 'i':
        info = np.iinfo(d)
        limit = 2.0 ** (info.bits - 1)
        t = np.trunc(x.astype(np.float64))
        high, low, nan = t >= limit, t < -limit, np.isnan(t)
        inside = ~(high | low | nan)
        out = np.zeros(x.shape, dtype=d)
        out[high], out[low] = info.max, info.min
        out[inside] = t[inside].astype(d)
        return out
    return quiet(cast)(x, d)


def reduce_value(f, dtype_of):
    def value(args, attrs):
        x = args[0]
        d = dtype_of(args, attrs)
        xs = wide(x) if is_float(d) else x.astype(d)
        return quiet(f)(xs, axis=axes_of(attrs, x), keepdims=keep(attrs))
    return value


def mean_dtype(args, attrs):  # integer and bool means are f32 (docs/numpy_differences.md)
    return floating(args[0].dtype)


def mean_value(args, attrs):
    x = args[0]
    return quiet(np.mean)(wide(x) if is_float(x.dtype) else x.astype(np.float64),
                          axis=axes_of(attrs, x), keepdims=keep(attrs))


def minmax_value(f):
    return lambda args, attrs: quiet(f)(args[0], axis=axes_of(attrs, args[0]), keepdims=keep(attrs))


def logical_reduce(f):
    return lambda args, attrs: f(args[0] != 0, axis=axes_of(attrs, args[0]), keepdims=keep(attrs))


def arg_value(descending):
    def value(args, attrs):
        x = args[0]
        if attrs['axis'] == 'all':
            flat = x.reshape(-1)
            return np.array(first_extreme(flat, descending, 0), dtype=np.int64)
        axis = axis_of(attrs, x)
        out = first_extreme(x, descending, axis)
        return np.expand_dims(out, axis) if keep(attrs) else out
    return value


def first_extreme(x, largest, axis):
    """The first index of the extreme along axis, NaN counting as the extreme (numpy's argmax)."""
    if is_float(x.dtype):
        x = x.astype(np.float64)  # exact, and an order numpy knows for f16 and bf16
        nan = np.isnan(x)
        any_nan = nan.any(axis=axis)
        base = np.argmax(x, axis=axis) if largest else np.argmin(x, axis=axis)
        return np.where(any_nan, np.argmax(nan, axis=axis), base).astype(np.int64)
    return (np.argmax(x, axis=axis) if largest else np.argmin(x, axis=axis)).astype(np.int64)


def cumsum_value(args, attrs):
    x = args[0]
    d = sum_dtype(args, attrs)
    if x.ndim == 0:
        return x.astype(d)
    if np.dtype(d) in STORAGE:  # an f32 running sum, each element rounded once (contract 11)
        return cast(np.cumsum(x.astype(np.float32), axis=axis_of(attrs, x), dtype=np.float32), d)
    return quiet(np.cumsum)(x.astype(d), axis=axis_of(attrs, x), dtype=d)


def stable_order(x, axis, descending):
    """Stable argsort, NaN the largest (PyTorch's sort(stable=True))."""
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    t = tt(x)
    return torch.sort(t, dim=axis, descending=descending, stable=True).indices.numpy()


def sort_value(args, attrs):
    x = args[0]
    if x.ndim == 0:
        return x
    order = stable_order(x, axis_of(attrs, x), attrs['descending'] == '1')
    return np.take_along_axis(x, order, axis=axis_of(attrs, x))


def argsort_value(args, attrs):
    return stable_order(args[0], axis_of(attrs, args[0]), attrs['descending'] == '1').astype(np.int64)


def topk(args, attrs, values):
    x, k = args[0], int(attrs['k'])
    if x.ndim == 0:
        return x if values else np.zeros((), dtype=np.int64)
    axis = axis_of(attrs, x)
    order = np.take(stable_order(x, axis, True), np.arange(k), axis=axis)
    return np.take_along_axis(x, order, axis=axis) if values else order.astype(np.int64)


def matmul_dtype(args, attrs):
    return np.dtype(promoted(args[0], args[1]))


def matmul_value(args, attrs):
    d = promoted(args[0], args[1])
    a, b = cast(args[0], d), cast(args[1], d)
    if is_float(d):
        return np.matmul(wide(a), wide(b))
    return quiet(np.matmul)(a, b)


def softmax_value(log):
    def value(args, attrs):
        x = wide(args[0].astype(floating(args[0].dtype)))
        if x.ndim == 0:
            x = x.reshape(1)
            squeeze = True
        else:
            squeeze = False
        axis = axis_of(attrs, args[0])
        with np.errstate(all='ignore'):
            m = np.max(x, axis=axis, keepdims=True) if x.shape[axis] else x
            e = np.exp(x - m)
            s = np.sum(e, axis=axis, keepdims=True)
            out = (x - m) - np.log(s) if log else e / s
        return out.reshape(()) if squeeze else out
    return value


@quiet
def layernorm_value(args, attrs):
    x, g, b = (wide(cast(a, layer_dtype(args, attrs))) for a in args)
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + float(attrs['eps'])) * g + b


@quiet
def rmsnorm_value(args, attrs):
    x, g = (wide(cast(a, layer_dtype(args, attrs))) for a in args)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + float(attrs['eps'])) * g


def mse_value(args, attrs):
    """torch.nn.functional.mse_loss: the mean of (a - b)^2 over the broadcast shape."""
    d = promoted(args[0], args[1])
    a, b = wide(cast(args[0], d)), wide(cast(args[1], d))
    return quiet(np.mean)((a - b) ** 2)


def layer_dtype(args, attrs):
    """x as floating, then times gamma and plus beta, each promoting as PyTorch does."""
    d = floating(args[0].dtype)
    for weight in args[1:]:
        d = promoted(np.zeros(1, dtype=d), weight.reshape(-1)[:1])
    return np.dtype(d)


DTYPES = {'f32': np.float32, 'f64': np.float64, 'i32': np.int32, 'i64': np.int64}
ALL_DTYPES = dict(DTYPES, bool=np.bool_, f16=np.float16, bf16=BF16)


def arange_value(args, attrs):
    """NumPy's count; floats start + i*step in f64 rounded once; integers NumPy's rule."""
    start, stop, step, d = float(attrs['start']), float(attrs['stop']), float(attrs['step']), DTYPES[attrs['dtype']]
    n = len(np.arange(start, stop, step, dtype=np.float64))
    if np.dtype(d).kind == 'f':
        return (start + np.arange(n, dtype=np.float64) * step).astype(d)
    return np.arange(start, stop, step, dtype=d)


def linspace_value(args, attrs):
    return np.linspace(float(attrs['start']), float(attrs['stop']), int(attrs['num']), dtype=DTYPES[attrs['dtype']])


def creation_dtype(args, attrs):
    return np.dtype(ALL_DTYPES[attrs['dtype']])


def cast_dtype(args, attrs):
    return np.dtype(ALL_DTYPES[attrs['dtype']])


def remainder_exact(a, b):
    """NumPy's %: fmod, plus b when the signs differ; integers x % 0 == 0."""
    return np.remainder(a, b)


@quiet
def floor_divide_exact(a, b):
    return np.floor_divide(a, b)  # x // 0 == 0 and INT_MIN // -1 == INT_MIN, as NumPy


def maximum_first(a, b):
    """NaN propagates; a tie gives the first operand, so maximum(-0.0, 0.0) is -0.0. NumPy 2 and
    PyTorch order -0.0 below 0.0 instead (docs/numpy_differences.md)."""
    return np.where((a >= b) | (a != a), a, b)


def minimum_first(a, b):
    return np.where((a <= b) | (a != a), a, b)


def div_scalar_dtype(args, attrs):
    return floating(scalar_dtype(args, attrs))


def div_scalar_value(args, attrs):
    d = div_scalar_dtype(args, attrs)
    return quiet(np.divide)(cast(args[0], d), cast(np.array(scalar_of(attrs)), d))


def where_dtype(args, attrs):
    return np.dtype(to_np_dtype(torch.where(*(tt(x) for x in args)).dtype))


@quiet
def clamp_value(args, attrs):
    """minimum(maximum(x, lo), hi) in the three operands' promoted dtype."""
    x, lo, hi = (cast(a, promoted(*args)) for a in args)
    return minimum_first(maximum_first(x, lo), hi)


def slice_value(args, attrs):
    x = args[0]
    axis = axis_of(attrs, x)
    start = int(attrs['start']) if 'start' in attrs else None
    stop = int(attrs['stop']) if 'stop' in attrs else None
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop, int(attrs['step']))
    return x[tuple(index)]


def unsqueeze_value(args, attrs):
    return np.expand_dims(args[0], int(attrs['axis']) % (args[0].ndim + 1))


def ints(text):
    return [int(v) for v in text.split(',') if v != '']


def integral(f):
    """floor, ceil, round, trunc: integers unchanged, floats in their dtype (np.round: halves to even)."""
    return exact_unary(lambda x: f(x) if is_float(x.dtype) else x)


def classify(f, integers):
    """isnan, isinf, isfinite: integers and bool are finite numbers."""
    return lambda args, attrs: f(args[0]) if is_float(args[0].dtype) else np.full(args[0].shape, integers)


def atan2_dtype(args, attrs):
    return floating(promoted(args[0], args[1]))


def atan2_value(args, attrs):
    d = atan2_dtype(args, attrs)
    return quiet(np.arctan2)(wide(cast(args[0], d)), wide(cast(args[1], d)))


def moment_terms(args, attrs):
    """x as floating in the wide type, the axes, n and the divisor max(0, n - correction)."""
    x = args[0]
    xs = wide(x.astype(floating(x.dtype)) if not is_float(x.dtype) else x)
    axes = axes_of(attrs, x)
    n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    return xs, axes, n, max(0.0, n - float(attrs['correction']))


@quiet
def var_value(args, attrs):
    xs, axes, n, divisor = moment_terms(args, attrs)
    mean = np.mean(xs, axis=axes, keepdims=True) if n else np.sum(xs, axis=axes, keepdims=True)
    return np.sum((xs - mean) ** 2, axis=axes, keepdims=keep(attrs)) / xs.dtype.type(divisor)


def std_value(args, attrs):
    return quiet(np.sqrt)(var_value(args, attrs))


@quiet
def logsumexp_value(args, attrs):
    """PyTorch's: log(sum(exp(x - m))) + m with m the max, an infinite max taken as 0."""
    x = args[0]
    xs = wide(x.astype(floating(x.dtype)) if not is_float(x.dtype) else x)
    axes = axes_of(attrs, x)
    if xs.size == 0 or any(x.shape[a] == 0 for a in axes):
        return np.log(np.sum(np.exp(xs), axis=axes, keepdims=keep(attrs)))
    m = np.max(xs, axis=axes, keepdims=True)
    m = np.where(np.isinf(m), 0, m)
    out = np.log(np.sum(np.exp(xs - m), axis=axes, keepdims=True)) + m
    return out if keep(attrs) else np.squeeze(out, axis=axes)


def eye_value(args, attrs):
    n, m = int(attrs['n']), int(attrs['m'])
    return cast(np.eye(n, n if m < 0 else m, dtype=np.float32), creation_dtype(args, attrs)) \
        if creation_dtype(args, attrs) in STORAGE else np.eye(n, n if m < 0 else m, dtype=creation_dtype(args, attrs))


def index_axis(args, attrs):
    return int(attrs['axis']) % args[0].ndim


def take_value(args, attrs):
    return np.take(args[0], args[1].astype(np.int64), axis=index_axis(args, attrs))


def take_along_value(args, attrs):
    x, indices, axis = args[0], args[1].astype(np.int64), index_axis(args, attrs)
    shape = list(np.broadcast_shapes(tuple(1 if a == axis else e for a, e in enumerate(x.shape)),
                                     tuple(1 if a == axis else e for a, e in enumerate(indices.shape))))
    x = np.broadcast_to(x, shape[:axis] + [x.shape[axis]] + shape[axis + 1:])
    indices = np.broadcast_to(indices, shape[:axis] + [indices.shape[axis]] + shape[axis + 1:])
    return np.take_along_axis(x, indices, axis=axis)


@quiet
def index_add_value(args, attrs):
    """base, plus values' slice j added at indices[j], in increasing j (np.add.at adds in order)."""
    base, indices, values = args
    axis = index_axis(args, attrs)
    out = np.moveaxis(np.array(base, copy=True), axis, 0)
    np.add.at(out, indices.astype(np.int64), np.moveaxis(values, axis, 0))
    return np.moveaxis(out, 0, axis)


@quiet
def scatter_add_value(args, attrs):
    """base, plus values[p] added at p with p[axis] := indices[p], in increasing row-major p."""
    base, indices, values = args
    axis = index_axis(args, attrs)
    where = list(np.indices(indices.shape, sparse=True))
    where[axis] = indices.astype(np.int64)
    out = np.array(base, copy=True)
    np.add.at(out, tuple(where), np.broadcast_to(values, indices.shape))
    return out


def one_hot_value(args, attrs):
    classes = int(attrs['classes'])
    hot = (args[0].astype(np.int64) % classes)[..., None] == np.arange(classes)
    return cast(hot, creation_dtype(args, attrs))


# ---- joining: numpy.concatenate, stack, split and pad; dtypes as torch.cat and torch.stack promote ----

def concat_dtype(args, attrs):
    return np.dtype(to_np_dtype(torch.cat([tt(a) for a in args], int(attrs['axis'])).dtype))


def concat_value(args, attrs):
    d = concat_dtype(args, attrs)
    return np.concatenate([cast(a, d) for a in args], axis=int(attrs['axis']))


def stack_dtype(args, attrs):
    return np.dtype(to_np_dtype(torch.stack([tt(a) for a in args], int(attrs['axis'])).dtype))


def stack_value(args, attrs):
    d = stack_dtype(args, attrs)
    return np.stack([cast(a, d) for a in args], axis=int(attrs['axis']))


def split_pieces(args, attrs):
    """numpy.split at the running sums of the sizes; torch.split(x, sizes) must give the same pieces."""
    x, sizes, axis = args[0], ints(attrs['sizes']), int(attrs['axis'])
    pieces = np.split(x, np.cumsum(sizes)[:-1], axis=axis)
    torch_shapes = [tuple(p.shape) for p in torch.split(tt(x), sizes, axis)]
    assert torch_shapes == [p.shape for p in pieces], f'numpy.split gives {[p.shape for p in pieces]}, torch.split {torch_shapes}'
    return pieces


def pad_widths(args, attrs):
    flat = ints(attrs['widths'])
    pairs = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
    return pairs * args[0].ndim if len(pairs) == 1 else pairs


def pad_value(args, attrs):
    """numpy.pad(mode='constant') with the value converted to x's dtype as astype converts it."""
    x = args[0]
    fill = cast_value([np.array(float(attrs['value']))], {'dtype': dtype_name(x.dtype)})
    out = np.pad(x, pad_widths(args, attrs), mode='constant', constant_values=np.array(fill, dtype=x.dtype))
    return out


def dtype_name(dtype):
    return next(k for k, v in ALL_DTYPES.items() if np.dtype(v) == np.dtype(dtype))


F = unary_float
B = exact_binary
S = exact_scalar

# The table. One row an op; ops added to oracle_ops.cpp join here with one row.
OPS = {
    # creation
    'arange': Row(creation_dtype, arange_value),
    'linspace': Row(creation_dtype, linspace_value),
    'eye': Row(creation_dtype, eye_value),
    # unary elementwise
    'neg': Row(same, exact_unary(np.negative)),
    'abs': Row(same, exact_unary(np.abs)),
    'sign': Row(same, exact_unary(lambda x: np.where(x == 0, x, np.sign(x)) if is_float(x.dtype) else np.sign(x))),
    'square': Row(same, exact_unary(lambda x: x * x)),
    'sqrt': Row(float_of, F(np.sqrt), ulp(0.5, 0.5)),
    'rsqrt': Row(float_of, F(lambda x: 1 / np.sqrt(x)), ulp(1.5, 1.5)),  # two roundings: 0.5 + 0.5 + 0.5 of the division
    'reciprocal': Row(float_of, F(lambda x: 1 / x), ulp(0.5, 0.5)),
    'exp': Row(float_of, F(np.exp), ulp(1, 1)),
    'exp2': Row(float_of, F(np.exp2), ulp(1, 1)),
    'expm1': Row(float_of, F(np.expm1), ulp(2, 2)),
    'log': Row(float_of, F(np.log), ulp(1, 1)),
    'log2': Row(float_of, F(np.log2), ulp(1, 1)),
    'log1p': Row(float_of, F(np.log1p), ulp(2, 2)),
    'sin': Row(float_of, F(np.sin), ulp(2, 2)),
    'cos': Row(float_of, F(np.cos), ulp(2, 2)),
    'tanh': Row(float_of, F(np.tanh), ulp(2, 2)),
    'sigmoid': Row(float_of, F(sigmoid_wide), ulp(2, 2)),
    'erf': Row(float_of, F(erf_wide), ulp(2, 3), lambda x, d: mpmath.erf(x), (2, 2)),  # f64: torch's erf first
    'relu': Row(same, exact_unary(lambda x: np.where((x > 0) | (x != x), x, np.zeros_like(x)))),  # relu(-0.0) is +0.0
    'gelu': Row(float_of, F(gelu_wide), ulp(2, 6), gelu_precise, (2, 4)),  # f64: through torch's erfcx first
    'gelu_tanh': Row(float_of, F(gelu_tanh_wide), ulp(2, 4)),
    'silu': Row(float_of, F(lambda x: x * sigmoid_wide(x)), ulp(2, 4)),
    'softplus': Row(float_of, F(softplus_wide), ulp(2, 4)),
    'logical_not': Row(bool_result, exact_unary(np.logical_not)),
    'tan': Row(float_of, F(np.tan), ulp(2, 2)),
    'atan': Row(float_of, F(np.arctan), ulp(1, 1)),
    'floor': Row(same, integral(np.floor)),
    'ceil': Row(same, integral(np.ceil)),
    'round': Row(same, integral(np.round)),
    'trunc': Row(same, integral(np.trunc)),
    'isnan': Row(bool_result, classify(np.isnan, False)),
    'isinf': Row(bool_result, classify(np.isinf, False)),
    'isfinite': Row(bool_result, classify(np.isfinite, True)),
    'invert': Row(same, exact_unary(np.invert)),
    'astype': Row(cast_dtype, cast_value),
    # binary elementwise
    'add': Row(binary_dtype, B(np.add)),
    'sub': Row(binary_dtype, B(np.subtract)),
    'mul': Row(binary_dtype, B(np.multiply)),
    'div': Row(lambda a, t: floating(promoted(a[0], a[1])),
               lambda args, attrs: quiet(np.divide)(*(cast(x, floating(promoted(args[0], args[1]))) for x in args))),
    'floor_divide': Row(binary_dtype, B(floor_divide_exact)),
    'remainder': Row(binary_dtype, B(remainder_exact)),
    'maximum': Row(binary_dtype, B(maximum_first)),
    'minimum': Row(binary_dtype, B(minimum_first)),
    'pow': Row(pow_dtype, pow_value, ulp(2, 2)),
    'eq': Row(bool_result, B(np.equal)),
    'ne': Row(bool_result, B(np.not_equal)),
    'lt': Row(bool_result, B(np.less)),
    'le': Row(bool_result, B(np.less_equal)),
    'gt': Row(bool_result, B(np.greater)),
    'ge': Row(bool_result, B(np.greater_equal)),
    'logical_and': Row(bool_result, logical(np.logical_and)),
    'logical_or': Row(bool_result, logical(np.logical_or)),
    'bitwise_and': Row(binary_dtype, B(np.bitwise_and)),
    'bitwise_or': Row(binary_dtype, B(np.bitwise_or)),
    'bitwise_xor': Row(binary_dtype, B(np.bitwise_xor)),
    'left_shift': Row(binary_dtype, shift(True)),
    'right_shift': Row(binary_dtype, shift(False)),
    'atan2': Row(atan2_dtype, atan2_value, ulp(1, 2)),
    # with a weakly typed C++ scalar
    'add_scalar': Row(scalar_dtype, S(np.add)),
    'rsub_scalar': Row(scalar_dtype, S(lambda a, s: np.subtract(s, a))),
    'mul_scalar': Row(scalar_dtype, S(np.multiply)),
    'div_scalar': Row(div_scalar_dtype, div_scalar_value),
    'lt_scalar': Row(bool_result, S(np.less)),
    'maximum_scalar': Row(scalar_dtype, S(maximum_first)),
    'pow_scalar': Row(scalar_dtype, pow_scalar_value, ulp(2, 2)),
    # ternary
    'where': Row(where_dtype, lambda a, t: np.where(a[0], cast(a[1], where_dtype(a, t)), cast(a[2], where_dtype(a, t)))),
    'clamp': Row(lambda a, t: np.dtype(promoted(*a)), clamp_value),
    # reductions
    'sum': Row(sum_dtype, reduce_value(np.sum, sum_dtype), Bound('sum')),
    'prod': Row(sum_dtype, reduce_value(np.prod, sum_dtype), Bound('prod')),
    'mean': Row(mean_dtype, mean_value, Bound('mean')),
    'max': Row(same, minmax_value(np.max), either_zero=True),
    'min': Row(same, minmax_value(np.min), either_zero=True),
    'any': Row(bool_result, logical_reduce(np.any)),
    'all': Row(bool_result, logical_reduce(np.all)),
    'var': Row(float_of, var_value, Bound('var')),
    'std': Row(float_of, std_value, Bound('std')),
    'logsumexp': Row(float_of, logsumexp_value, Bound('logsumexp')),
    'argmax': Row(i64_result, arg_value(True)),
    'argmin': Row(i64_result, arg_value(False)),
    # scans and ordering
    'cumsum': Row(sum_dtype, cumsum_value),
    'sort': Row(same, sort_value),
    'argsort': Row(i64_result, argsort_value),
    'topk_values': Row(same, lambda a, t: topk(a, t, True)),
    'topk_indices': Row(i64_result, lambda a, t: topk(a, t, False)),
    'tril': Row(same, lambda a, t: np.tril(a[0], int(t['k']))),
    'triu': Row(same, lambda a, t: np.triu(a[0], int(t['k']))),
    # indexing: valid indices, in the order the contract fixes
    'take': Row(same, take_value),
    'take_along_axis': Row(same, take_along_value),
    'index_add': Row(same, index_add_value),
    'scatter_add': Row(same, scatter_add_value),
    'one_hot': Row(creation_dtype, one_hot_value),
    # products and layers
    'matmul': Row(matmul_dtype, matmul_value, Bound('matmul')),
    'softmax': Row(layer_dtype, softmax_value(False), Bound('softmax')),
    'log_softmax': Row(layer_dtype, softmax_value(True), Bound('log_softmax')),
    'layernorm': Row(layer_dtype, layernorm_value, Bound('layernorm')),
    'rmsnorm': Row(layer_dtype, rmsnorm_value, Bound('rmsnorm')),
    'mse_loss': Row(lambda a, t: np.dtype(promoted(a[0], a[1])), mse_value, Bound('mse')),
    # views and copies
    'reshape': Row(same, lambda a, t: a[0].reshape(ints(t['shape']))),
    'permute': Row(same, lambda a, t: np.transpose(a[0], ints(t['perm']))),
    'transpose': Row(same, lambda a, t: a[0].T),
    'expand': Row(same, lambda a, t: np.broadcast_to(a[0], [s if s != -1 else o for s, o in
                                                            zip(ints(t['shape']), [None] * (len(ints(t['shape'])) - a[0].ndim) + list(a[0].shape))])),
    'slice': Row(same, slice_value),
    'flip': Row(same, lambda a, t: np.flip(a[0], axis_of(t, a[0])) if a[0].ndim else a[0]),
    'squeeze': Row(same, lambda a, t: np.squeeze(a[0])),
    'unsqueeze': Row(same, unsqueeze_value),
    'detach': Row(same, lambda a, t: a[0]),
    'contiguous': Row(same, lambda a, t: a[0]),
    'copy': Row(same, lambda a, t: a[0]),
    # joining: bits moved, NaN payloads and -0.0 kept
    'concat': Row(concat_dtype, concat_value),
    'concat_new': Row(concat_dtype, concat_value),
    'stack': Row(stack_dtype, stack_value),
    'split': Row(same, lambda a, t: split_pieces(a, t)[int(t['part'])]),
    'split_concat': Row(same, lambda a, t: np.concatenate(split_pieces(a, t)[::-1], axis=int(t['axis']))),
    'pad': Row(same, pad_value),
}


# ---- the gradient oracle: each differentiable op (oracle_ops.cpp, differentiable_ops()) in torch ----
# check_grad.py replays a gradient program with these in f64 and takes torch.autograd's
# vector-Jacobian product. Each takes the torch operands and the statement's attributes and
# computes what the op's row above computes, so that autograd differentiates the same function.

def t_dims(attrs, x):
    return list(axes_of(attrs, x)) if x.ndim else []


def t_reduce(f):
    def run(a, attrs):
        x = a[0]
        dims = t_dims(attrs, x)
        return f(x, dims, keep(attrs)) if dims else x
    return run


def t_prod(x, dims, keepdim):
    for d in sorted(dims, reverse=True):
        x = x.prod(d, keepdim=True)
    return x if keepdim else x.squeeze(dims) if dims else x


def t_float(x):
    return x if x.is_floating_point() else x.to(torch.float64)  # the replay is in f64


def t_axis(attrs, x, key='axis'):
    return int(attrs[key]) % max(x.ndim, 1)


def t_along(f):
    """An op along one axis; a 0-d operand as one element."""
    def run(a, attrs):
        x = a[0]
        if x.ndim == 0:
            return f(x.reshape(1), 0, attrs).reshape(())
        return f(x, t_axis(attrs, x), attrs)
    return run


def t_scalar(f):
    """A bool scalar takes the tensor's dtype in tensorjit: 1 or 0 (torch refuses `True - x`)."""
    return lambda a, attrs: f(a[0], int(scalar_of(attrs)) if attrs['scalar'] == 'b' else scalar_of(attrs))


def t_matmul(a, attrs):
    d = torch.result_type(a[0], a[1])
    return torch.matmul(a[0].to(d), a[1].to(d))


def t_layer_dtype(a):
    d = t_float(a[0]).dtype
    for w in a[1:]:
        d = torch.promote_types(d, w.dtype)
    return d


def t_layernorm(a, attrs):
    x = t_float(a[0])
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + float(attrs['eps'])) * a[1] + a[2]


def t_rmsnorm(a, attrs):
    x = t_float(a[0])
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + float(attrs['eps'])) * a[1]


def t_slice(a, attrs):
    x = a[0]
    axis = t_axis(attrs, x)
    start = int(attrs['start']) if 'start' in attrs else None
    stop = int(attrs['stop']) if 'stop' in attrs else None
    picked = np.arange(x.shape[axis])[slice(start, stop, int(attrs['step']))]
    return torch.index_select(x, axis, torch.from_numpy(picked.astype(np.int64)))


def t_expand(a, attrs):
    return a[0].expand(*ints(attrs['shape']))


def t_take(a, attrs):
    x, indices = a[0], a[1].long()
    axis = t_axis(attrs, x)
    taken = x.movedim(axis, 0)[indices]  # indices.shape + x's other axes
    k = indices.ndim
    order = list(range(k, k + axis)) + list(range(k)) + list(range(k + axis, taken.ndim))
    return taken.permute(order)


def t_take_along(a, attrs):
    x, indices = a[0], a[1].long()
    axis = t_axis(attrs, x)
    shape = list(torch.broadcast_shapes(*(tuple(1 if d == axis else e for d, e in enumerate(t.shape)) for t in (x, indices))))
    x = x.expand(*(shape[:axis] + [x.shape[axis]] + shape[axis + 1:]))
    indices = indices.expand(*(shape[:axis] + [indices.shape[axis]] + shape[axis + 1:]))
    return torch.gather(x, axis, indices % max(x.shape[axis], 1))


def t_index_add(a, attrs):
    axis = t_axis(attrs, a[0])
    return torch.index_add(a[0], axis, a[1].long() % a[0].shape[axis], a[2])


def t_scatter_add(a, attrs):
    axis = t_axis(attrs, a[0])
    return torch.scatter_add(a[0], axis, a[1].long() % a[0].shape[axis], a[2].expand(a[1].shape))


def t_topk(x, axis, attrs):
    return torch.sort(x, dim=axis, descending=True, stable=True).values.narrow(axis, 0, int(attrs['k']))


F_ = torch.nn.functional

def t_split(a, attrs):
    return torch.split(a[0], ints(attrs['sizes']), int(attrs['axis']))


def t_pad(a, attrs):
    """numpy.pad's order of axes (F.pad lists the last axis first); the value as the dtype converts it."""
    x = a[0]
    flat = []
    for before, after in reversed(pad_widths([x], attrs)):
        flat += [before, after]
    return F_.pad(x, flat, mode='constant', value=float(attrs['value']))


GRAD_OPS = {
    'neg': lambda a, t: -a[0],
    'abs': lambda a, t: torch.abs(a[0]),
    'square': lambda a, t: a[0] * a[0],
    'exp': lambda a, t: torch.exp(t_float(a[0])),
    'exp2': lambda a, t: torch.exp2(t_float(a[0])),
    'expm1': lambda a, t: torch.expm1(t_float(a[0])),
    'tanh': lambda a, t: torch.tanh(t_float(a[0])),
    'sigmoid': lambda a, t: torch.sigmoid(t_float(a[0])),
    'sin': lambda a, t: torch.sin(t_float(a[0])),
    'cos': lambda a, t: torch.cos(t_float(a[0])),
    'erf': lambda a, t: torch.erf(t_float(a[0])),
    'gelu': lambda a, t: F_.gelu(t_float(a[0])),
    'gelu_tanh': lambda a, t: F_.gelu(t_float(a[0]), approximate='tanh'),
    'silu': lambda a, t: F_.silu(t_float(a[0])),
    'softplus': lambda a, t: F_.softplus(t_float(a[0])),
    'atan': lambda a, t: torch.atan(t_float(a[0])),
    'relu': lambda a, t: torch.relu(a[0]),
    'add': lambda a, t: a[0] + a[1],
    'sub': lambda a, t: a[0] - a[1],
    'mul': lambda a, t: a[0] * a[1],
    'maximum': lambda a, t: torch.maximum(*(x.to(torch.result_type(a[0], a[1])) for x in a)),
    'minimum': lambda a, t: torch.minimum(*(x.to(torch.result_type(a[0], a[1])) for x in a)),
    'atan2': lambda a, t: torch.atan2(t_float(a[0]), t_float(a[1])),
    'add_scalar': t_scalar(lambda x, v: x + v),
    'rsub_scalar': t_scalar(lambda x, v: v - x),
    'mul_scalar': t_scalar(lambda x, v: x * v),
    'clamp': lambda a, t: torch.minimum(torch.maximum(a[0], a[1]), a[2]),  # tensorjit's definition (clamp_value)
    'sum': t_reduce(lambda x, d, k: x.sum(d, keepdim=k)),
    'prod': t_reduce(t_prod),
    'mean': t_reduce(lambda x, d, k: t_float(x).mean(d, keepdim=k)),
    'max': t_reduce(lambda x, d, k: torch.amax(x, d, keepdim=k)),
    'min': t_reduce(lambda x, d, k: torch.amin(x, d, keepdim=k)),
    'var': lambda a, t: torch.var(t_float(a[0]), t_dims(t, a[0]) or None, correction=float(t['correction']), keepdim=keep(t)),
    'std': lambda a, t: torch.std(t_float(a[0]), t_dims(t, a[0]) or None, correction=float(t['correction']), keepdim=keep(t)),
    'logsumexp': t_reduce(lambda x, d, k: torch.logsumexp(t_float(x), d, keepdim=k)),
    'cumsum': t_along(lambda x, axis, t: torch.cumsum(x, axis)),
    'sort': t_along(lambda x, axis, t: torch.sort(x, dim=axis, descending=t['descending'] == '1', stable=True).values),
    'topk_values': t_along(t_topk),
    'matmul': t_matmul,
    'softmax': t_along(lambda x, axis, t: torch.softmax(t_float(x), axis)),
    'log_softmax': t_along(lambda x, axis, t: torch.log_softmax(t_float(x), axis)),
    'layernorm': t_layernorm,
    'rmsnorm': t_rmsnorm,
    'mse_loss': lambda a, t: ((a[0] - a[1]) ** 2).mean(),
    'reshape': lambda a, t: a[0].reshape(ints(t['shape'])),
    'permute': lambda a, t: a[0].permute(ints(t['perm'])),
    'transpose': lambda a, t: a[0].permute(list(reversed(range(a[0].ndim)))),
    'expand': t_expand,
    'slice': t_slice,
    'flip': lambda a, t: torch.flip(a[0], [t_axis(t, a[0])]) if a[0].ndim else a[0],
    'squeeze': lambda a, t: a[0].squeeze(),
    'unsqueeze': lambda a, t: a[0].unsqueeze(int(t['axis'])),
    'copy': lambda a, t: a[0].clone(),
    'contiguous': lambda a, t: a[0].clone(),
    'tril': lambda a, t: torch.tril(a[0], int(t['k'])),
    'triu': lambda a, t: torch.triu(a[0], int(t['k'])),
    'take': t_take,
    'take_along_axis': t_take_along,
    'index_add': t_index_add,
    'scatter_add': t_scatter_add,
    'concat': lambda a, t: torch.cat(a, int(t['axis'])),
    'stack': lambda a, t: torch.stack(a, int(t['axis'])),
    'split': lambda a, t: t_split(a, t)[int(t['part'])],
    'split_concat': lambda a, t: torch.cat(t_split(a, t)[::-1], int(t['axis'])),
    'pad': t_pad,
}
