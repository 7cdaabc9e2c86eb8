#!/usr/bin/python3
"""Derives and prints the polynomial coefficients of the native f32 vector math
(codegen/src/vector_math/f32_*.cpp): near-minimax fits with coefficients that are f32 values.

Each fit minimises the maximum relative error of the function it serves (not of the polynomial
alone) over a dense grid of Chebyshev points, by Lawson's iteratively reweighted least squares.
Coefficients are made f32 one at a time, lowest degree first: the lowest free coefficient is
rounded to f32 and the higher ones are fitted again around it (the idea of Sollya's fpminimax), so
the rounding of each is absorbed by the next. Reference values come from mpmath at 40 digits.
The printed error is the fit's with f32 coefficients evaluated exactly; the f32 evaluation adds its
roundings (bounds measured by tests/codegen/vector_math).

    /usr/bin/python3 scripts/vector_math_f32_fit.py
"""
import mpmath
import numpy as np

mpmath.mp.dps = 40
GRID = 3000
ITERATIONS = 60


def chebyshev_grid(lo, hi, count=GRID):
    k = np.arange(count)
    return 0.5 * (lo + hi) + 0.5 * (hi - lo) * np.cos(np.pi * (k + 0.5) / count)[::-1]


def lawson(basis, target, scale):
    """Coefficients c minimising max |basis @ c - target| / scale (near-minimax)."""
    weights = np.full(len(target), 1.0 / len(target))
    coefficients = None
    for _ in range(ITERATIONS):
        root = np.sqrt(weights) / scale
        coefficients = np.linalg.lstsq(basis * root[:, None], target * root, rcond=None)[0]
        error = np.abs(basis @ coefficients - target) / scale
        weights = weights * error
        weights /= weights.sum()
    return coefficients


def fit_f32(basis, target, scale):
    """f32 coefficients of the near-minimax fit, made f32 one at a time from the lowest."""
    fixed = []
    columns = basis.shape[1]
    while len(fixed) < columns:
        rest = target - basis[:, :len(fixed)] @ np.array(fixed, dtype=np.float64)
        free = lawson(basis[:, len(fixed):], rest, scale)
        fixed.append(float(np.float32(free[0])))
    coefficients = np.array(fixed)
    return coefficients, float(np.max(np.abs(basis @ coefficients - target) / scale))


def f32_literal(value):
    """A C++ hexadecimal float literal of an f32 value, without trailing zero digits."""
    mantissa, exponent = float(np.float32(value)).hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"


def show(name, interval, coefficients, error):
    values = ", ".join(f32_literal(c) for c in coefficients)
    print(f"{name} on [{interval[0]:.6g}, {interval[1]:.6g}]: error {error:.3g} "
          f"(2^{np.log2(error):.1f})\n  {{{values}}}")


def values(function, points):
    return np.array([float(function(mpmath.mpf(float(p)))) for p in points])


def exp_fit():
    # exp(r) = 1 + r + r^2 q(r) on |r| <= ln2/2; error relative to exp(r).
    half = float(mpmath.log(2)) / 2
    r = chebyshev_grid(-half, half)
    q = values(lambda v: (mpmath.exp(v) - 1 - v) / v**2 if v != 0 else mpmath.mpf(0.5), r)
    basis = np.stack([r**i for i in range(5)], axis=1) * (r * r)[:, None]
    coefficients, error = fit_f32(basis, q * r * r, values(mpmath.exp, r))
    show("exp: q(r), exp(r) = 1 + r + r^2 q(r)", (-half, half), coefficients, error)


def log_fit():
    # log(1 + f) = f - f^2 / 2 + f^3 p(f) on [sqrt(1/2) - 1, sqrt(2) - 1]; error relative to
    # log(1 + f). The -1/2 is kept exact so that f^2 / 2 can be formed exactly.
    lo, hi = float(mpmath.sqrt(0.5)) - 1, float(mpmath.sqrt(2)) - 1
    f = chebyshev_grid(lo, hi)
    f = f[np.abs(f) > 1e-9]
    tail = values(lambda v: mpmath.log1p(v) - v + v * v / 2, f)
    basis = np.stack([f**i for i in range(8)], axis=1) * (f**3)[:, None]
    coefficients, error = fit_f32(basis, tail, np.abs(values(mpmath.log1p, f)))
    show("log: p(f), log(1 + f) = f - f^2/2 + f^3 p(f)", (lo, hi), coefficients, error)


def tanh_fit(cut, terms):
    # tanh(x) = x + x^3 p(x^2) on [0, cut]; error relative to tanh(x).
    x = chebyshev_grid(1e-6, cut)
    tail = values(lambda v: mpmath.tanh(v) - v, x)
    basis = np.stack([(x * x)**i for i in range(terms)], axis=1) * (x**3)[:, None]
    coefficients, error = fit_f32(basis, tail, values(mpmath.tanh, x))
    show("tanh: p(z), tanh(x) = x + x^3 p(x^2)", (0, cut), coefficients, error)


def erf_small_fit(cut):
    # erf(x) = x + x p(x^2) on [0, cut]; error relative to erf(x).
    x = chebyshev_grid(1e-6, cut)
    tail = values(lambda v: mpmath.erf(v) - v, x)
    basis = np.stack([(x * x)**i for i in range(7)], axis=1) * x[:, None]
    coefficients, error = fit_f32(basis, tail, values(mpmath.erf, x))
    show("erf: p(z), erf(x) = x + x p(x^2)", (0, cut), coefficients, error)


def erfc_fit(lo, hi, degree, middle):
    # 1 - erf(x) = e(x - c); erf's error is e's, absolute. c below the interval's midpoint keeps
    # |x - c| small where erfc is largest (Horner's roundings grow with |x - c|^n there).
    x = chebyshev_grid(lo, hi)
    basis = np.stack([(x - middle)**i for i in range(degree + 1)], axis=1)
    coefficients, error = fit_f32(basis, values(mpmath.erfc, x), np.ones_like(x))
    show(f"erf: e(u), 1 - erf(x) = e(x - {middle!r}), error absolute", (lo, hi), coefficients,
         error)


def constants():
    """The f32 splits of ln 2 and the other constants the f32 emitters quote."""
    ln2 = mpmath.log(2)
    for bits in (24, 13):  # exp's Cody-Waite split, log's (k ln2_hi exact for |k| < 2^11)
        high = float(mpmath.nint(ln2 * 2**bits) / 2**bits)
        low = float(np.float32(float(ln2 - mpmath.mpf(high))))
        print(f"ln2 in f32 as hi ({bits} bits) + lo: {f32_literal(high)}, {f32_literal(low)}")
    inverse_high = float(np.float32(float(1 / ln2)))
    inverse_low = float(np.float32(float(1 / ln2 - mpmath.mpf(inverse_high))))
    print(f"1/ln2 in f32 as hi + lo: {f32_literal(inverse_high)}, {f32_literal(inverse_low)}")
    print(f"sqrt(1/2): {f32_literal(float(mpmath.sqrt(0.5)))} "
          f"(bits 0x{int(np.float32(float(mpmath.sqrt(0.5))).view(np.uint32)):08x})")


if __name__ == "__main__":
    constants()
    exp_fit()
    log_fit()
    tanh_fit(0.875, 6)
    erf_small_fit(1.0)
    erfc_fit(1.0, 4.0, 15, 2.25)
