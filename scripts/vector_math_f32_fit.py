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


def tanh_pieces():
    """tanh's table (f32_tanh.cpp): |x| in [0, 1/16] and then four pieces per binade up to 8,
    the last piece [8, 9.75] (|x| is clamped at 9.75, where tanh rounds to 1). Each piece has a
    degree-5 polynomial in t = |x| - centre. The first piece's centre is 0 and its polynomial
    t + c3 t^3 + c5 t^5 (tanh(0) = 0 and tanh(t) = t for tiny t, exactly); the others' centre is
    the f32 nearest the middle whose tanh is closest to an f32 (Gal's accurate tables), so that c0
    is tanh(centre) to within 2^-12 ulp or so and the fit's error is the polynomial's alone; but
    the last piece's centre is the clamp, 9.75, where tanh rounds to c0 = 1 (0.11 ulp), so that
    every clamped |x| gives exactly 1.
    Errors relative to tanh(x); prints the C++ table."""
    edges = [0.0, 1 / 16]
    while edges[-1] < 8:
        edges.append(edges[-1] + 2.0 ** np.floor(np.log2(edges[-1])) / 4)
    edges.append(9.75)
    rows = []
    t = chebyshev_grid(1e-7, edges[1])
    basis = np.stack([t**3, t**5], axis=1)
    odd, error = fit_f32(basis, values(lambda v: mpmath.tanh(v) - v, t),
                         values(mpmath.tanh, t))
    rows.append((0.0, [0.0, 1.0, 0.0, odd[0], 0.0, odd[1]], error))
    for lo, hi in zip(edges[1:-1], edges[2:]):
        middle = np.float32((lo + hi) / 2).view(np.uint32)
        candidates = (np.uint32(middle + k).view(np.float32) for k in range(-1500, 1500))

        def rounding(c):
            v = mpmath.tanh(mpmath.mpf(float(c)))
            r = np.float32(float(v))
            return abs(float(v - mpmath.mpf(float(r)))) / float(np.spacing(r))
        centre = hi if hi == edges[-1] else float(min(candidates, key=rounding))
        a = chebyshev_grid(lo, hi)
        basis = np.stack([(a - centre)**j for j in range(6)], axis=1)
        f = values(mpmath.tanh, a)
        coefficients, error = fit_f32(basis, f, f)
        rows.append((centre, list(coefficients), error))
    worst = max(error for _, _, error in rows)
    print(f"tanh: {len(rows)} pieces of degree 5, worst error 2^{np.log2(worst):.1f}")
    for (centre, coefficients, error), lo, hi in zip(rows, edges, edges[1:]):
        values_text = ", ".join(f32_literal(c) for c in coefficients)
        print(f"    {{{f32_literal(centre)}, {{{values_text}}}}},  // [{lo:g}, {hi:g}] "
              f"2^{np.log2(error):.1f}")


def activation_pieces(name, function, first, count=32, width=0.25, degree=6):
    """The table of an activation with the sign of x (f32_activation_pieces.hpp): `count` pieces
    of `width` centred at n width for n = first ... first + count - 1. With t = x - n width
    (exact) each piece is c0 + c1 t + t^2 q(t), q of degree `degree` - 2, and c0 = function(n
    width) as an f32 pair (hi, lo), so the result rounds c0's bits once; the piece at 0 has c0 =
    -0, -0 and c1 = 1/2 (function(t) = t/2 + ...). c1 ... c_degree are fitted to function(x) - c0,
    errors relative to function(x); prints the C++ table."""
    rows = []
    for n in range(first, first + count):
        centre = mpmath.mpf(n) * mpmath.mpf(width)
        x = chebyshev_grid(n * width - width / 2, n * width + width / 2)
        exact = function(centre)
        hi = float(np.float32(float(exact)))
        lo = float(np.float32(float(exact - mpmath.mpf(hi))))
        t = x - n * width
        target = np.array([float(function(mpmath.mpf(float(v))) - exact) for v in x])
        if n == 0:  # c0 = -0 and c1 = 1/2 exactly: tiny x give x/2 rounded once
            hi = lo = -0.0
            basis = np.stack([t**i for i in range(2, degree + 1)], axis=1)
            rest, error = fit_f32(basis, target - t / 2, np.abs(values(function, x)))
            coefficients = [0.5] + list(rest)
        else:
            basis = np.stack([t**i for i in range(1, degree + 1)], axis=1)
            coefficients, error = fit_f32(basis, target, np.abs(values(function, x)))
        rows.append((n, [hi, lo] + list(coefficients), error))
    worst = max(error for _, _, error in rows)
    print(f"{name}: {len(rows)} pieces of degree {degree}, worst error 2^{np.log2(worst):.1f}")
    for n, coefficients, error in rows:
        text = ", ".join(f32_literal(c) for c in coefficients)
        print(f"    {{{text}}},  // x = {n * width:g} +- {width / 2:g}, 2^{np.log2(error):.1f}")


def gelu_tanh_pieces():
    """gelu_tanh's table: 32 pieces of width 1/4 and degree 6, n = -11 ... 20 (x in [-2.875,
    5.125)): the op's formula with its constants rounded to f32 (ir/scalar_ops.hpp)."""
    c1 = mpmath.mpf(float(np.float32(0.79788456080286535588)))
    c2 = mpmath.mpf(float(np.float32(0.044715)))
    activation_pieces("gelu_tanh", lambda v: v / 2 * (1 + mpmath.tanh(c1 * (v + c2 * v**3))), -11)


def gelu_pieces():
    """gelu's table (the erf form): 16 pieces of width 1/2 and degree 8, n = -8 ... 7 (x in
    [-4.25, 3.75)): x/2 erfc(-x c) with c = 1/sqrt 2 rounded to f32, as the f32 kernel multiplies
    (ir/scalar_ops.hpp)."""
    c = mpmath.mpf(float(np.float32(0.70710678118654752440)))
    activation_pieces("gelu", lambda v: v / 2 * mpmath.erfc(-v * c), -8, 16, 0.5, 8)


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


def sin_fit(cut, terms):
    # sin(r) = r + r^3 S(r^2) on [0, cut]; error relative to sin(r).
    r = chebyshev_grid(1e-6, cut)
    tail = values(lambda v: mpmath.sin(v) - v, r)
    basis = np.stack([(r * r)**i for i in range(terms)], axis=1) * (r**3)[:, None]
    coefficients, error = fit_f32(basis, tail, values(mpmath.sin, r))
    show("sin: S(z), sin(r) = r + r^3 S(r^2)", (0, cut), coefficients, error)


def cos_fit(cut, terms):
    # cos(r) = 1 - r^2/2 + r^4 C(r^2) on [0, cut] (the 1/2 exact); error relative to cos(r).
    r = chebyshev_grid(1e-6, cut)
    tail = values(lambda v: mpmath.cos(v) - 1 + v * v / 2, r)
    basis = np.stack([(r * r)**i for i in range(terms)], axis=1) * (r**4)[:, None]
    coefficients, error = fit_f32(basis, tail, values(mpmath.cos, r))
    show("cos: C(z), cos(r) = 1 - r^2/2 + r^4 C(r^2)", (0, cut), coefficients, error)


def gelu_fits():
    # gelu's two forms (f32_gelu.cpp). |u| <= 1/2: erf(u) = u + u p(u^2); the error that matters is
    # relative to 1 + erf(u) >= 1 - erf(1/2).
    u = chebyshev_grid(1e-6, 0.5)
    tail = values(lambda v: mpmath.erf(v) - v, u)
    basis = np.stack([(u * u)**i for i in range(5)], axis=1) * u[:, None]
    coefficients, error = fit_f32(basis, tail, values(mpmath.erfc, u))
    show("gelu: p(z), erf(u) = u + u p(u^2), error relative to 1 - erf(u)", (0, 0.5),
         coefficients, error)
    # t in [1/2, 10.5]: erfc(t) = y exp(-t^2 - 0.28125 + Q(y - 0.3125)), y = 1 / (1 + t); Q's
    # error is absolute (a relative error of erfc). Q' is printed as a line for the first-order
    # correction of y's rounding.
    y = chebyshev_grid(1 / 11.5, 1 / 1.5)

    def rest(v):
        t = 1 / v - 1
        return mpmath.log(mpmath.erfc(t) * mpmath.exp(t * t) / v) + mpmath.mpf(0.28125)
    basis = np.stack([(y - 0.3125)**i for i in range(12)], axis=1)
    target = values(rest, y)
    coefficients, error = fit_f32(basis, target, np.ones_like(y))
    show("gelu: Q(w), erfc(t) = y exp(-t^2 - 0.28125 + Q(y - 0.3125)), error absolute",
         (y[0], y[-1]), coefficients, error)
    points = y[::30]
    slope = np.array([float(mpmath.diff(rest, mpmath.mpf(float(v)))) for v in points])
    line = np.linalg.lstsq(np.stack([np.ones_like(points), points], axis=1), slope, rcond=None)[0]
    line = [float(np.float32(c)) for c in line]
    print(f"  max |Q| {np.max(np.abs(target)):.3f}; Q'(y) = {f32_literal(line[0])} + "
          f"{f32_literal(line[1])} y within "
          f"{np.max(np.abs(line[0] + line[1] * points - slope)):.3f}")


def exp_powers():
    """f32 exp's table: 2^(j/32) rounded to f32, and its relative rounding error (2^(j/32) - hi) /
    hi rounded to f32, for j = 0 ... 31."""
    high, low = [], []
    for j in range(32):
        exact = mpmath.power(2, mpmath.mpf(j) / 32)
        hi = float(np.float32(float(exact)))
        high.append(hi)
        low.append(float(np.float32(float((exact - mpmath.mpf(hi)) / mpmath.mpf(hi)))))
    for name, column in (("2^(j/32) in f32", high), ("its relative rounding error", low)):
        print(f"exp: {name}:")
        for row in range(0, 32, 4):
            print("    " + ", ".join(f32_literal(v) for v in column[row:row + 4]) + ",")


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
    # sin and cos: 2/pi rounded to f32, and pi/2 as three f32 (each the rest rounded).
    two_over_pi = float(np.float32(float(2 / mpmath.pi)))
    print(f"2/pi in f32: {f32_literal(two_over_pi)} (relative error "
          f"2^{float(mpmath.log(abs(two_over_pi * mpmath.pi / 2 - 1), 2)):.1f})")
    rest, parts = mpmath.pi / 2, []
    for _ in range(3):
        parts.append(float(np.float32(float(rest))))
        rest -= mpmath.mpf(parts[-1])
    print(f"pi/2 in f32 as P1 + P2 + P3: {', '.join(f32_literal(p) for p in parts)} "
          f"(rest 2^{float(mpmath.log(abs(rest), 2)):.1f})")


if __name__ == "__main__":
    constants()
    exp_fit()
    exp_powers()
    log_fit()
    tanh_pieces()
    gelu_tanh_pieces()
    gelu_pieces()
    erf_small_fit(1.0)
    erfc_fit(1.0, 4.0, 15, 2.25)
    sin_fit(0.83, 3)
    cos_fit(0.83, 3)
    gelu_fits()
