#!/usr/bin/python3
"""Prints the constants of codegen/src/vector_math/ that are not published minimax coefficients:
splits of ln 2, 1/ln 2 and pi/2 into sums of doubles, the Taylor coefficients of exp and of
2*atanh, f64 exp's table of 2^(j/16) (each entry and its rounding error relative to it) and its
minimax polynomial. Exact arithmetic (decimal at 80 digits, fractions for correct rounding to
double); the polynomial by Remez's exchange in mpmath at 50 digits.
The fdlibm minimax coefficients (log, sin, cos, erf) are quoted at their use, not derived here.

    /usr/bin/python3 scripts/vector_math_constants.py   # the polynomial's fit takes ~5 s
"""
from decimal import Decimal, getcontext
from fractions import Fraction

import mpmath

getcontext().prec = 80
PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899"
             "86280348253421170679")


def double(value):
    """value (Decimal or Fraction) rounded to the nearest double."""
    return float(Fraction(value))


def split(value, parts):
    """value as a sum of `parts` doubles, each the rounding of what the previous ones left."""
    result, rest = [], Fraction(value)
    for _ in range(parts):
        head = float(rest)
        result.append(head)
        rest -= Fraction(head)
    return result


def show(name, values):
    print(f"{name:24s}" + "  ".join(v.hex() for v in values))


ln2 = Decimal(2).ln()
show("ln2 (hi, lo)", split(ln2, 2))
show("1/ln2 (hi, lo)", split(1 / ln2, 2))
show("pi/2 (3 parts)", split(PI / 2, 3))
show("2/pi", [double(2 / PI)])
show("sqrt(1/2)", [double(Decimal(0.5).sqrt())])
factorial = 1
taylor = []
for n in range(2, 14):
    factorial *= n
    taylor.append(double(Fraction(1, factorial)))
show("1/n!, n = 2..13", taylor)
show("2/(2n+1), n = 1..12", [double(Fraction(2, 2 * n + 1)) for n in range(1, 13)])
show("2/3 (hi, lo)", split(Fraction(2, 3), 2))


# f64 exp: 2^(j/16) for j = 0..15 rounded to double, and (2^(j/16) - hi) / hi rounded to double.
table_high, table_low = [], []
for j in range(16):
    exact = Fraction(Decimal(2) ** (Decimal(j) / 16))
    high = float(exact)
    table_high.append(high)
    table_low.append(float((exact - Fraction(high)) / Fraction(high)))
show("2^(j/16), j = 0..15", table_high)
show("(2^(j/16) - hi) / hi", table_low)


def remez_expm1(bound, degree, iterations=10, grid=4000):
    """q of `degree` minimising max |expm1(r) - r - r^2 q(r)| over |r| <= bound (Remez's second
    algorithm: the equioscillation system on a reference of degree + 2 points, the reference moved
    to the error's alternating extrema on a uniform grid). Returns q and the error with q's
    coefficients rounded to double, measured on a grid five times as fine."""
    mpmath.mp.dps = 50
    unknowns = degree + 1
    size = unknowns + 1
    reference = [bound * mpmath.cos(mpmath.pi * (size - 1 - j) / (size - 1)) for j in range(size)]
    target = lambda r: mpmath.expm1(r) - r
    points = [-bound + 2 * bound * i / grid for i in range(grid + 1)]
    values = [target(r) for r in points]
    for _ in range(iterations):
        system, right = mpmath.matrix(size, size), mpmath.matrix(size, 1)
        for row, r in enumerate(reference):
            for i in range(unknowns):
                system[row, i] = r ** (i + 2)
            system[row, unknowns] = (-1) ** row
            right[row] = target(r)
        solution = mpmath.lu_solve(system, right)
        q = [solution[i] for i in range(unknowns)]
        error = [sum(c * r ** (i + 2) for i, c in enumerate(q)) - v for r, v in zip(points, values)]
        extrema = []
        for i, e in enumerate(error):
            if all(abs(e) >= abs(error[n]) for n in (i - 1, i + 1) if 0 <= n < len(error)) and e:
                if extrema and mpmath.sign(extrema[-1][1]) == mpmath.sign(e):
                    if abs(e) > abs(extrema[-1][1]):
                        extrema[-1] = (points[i], e)
                else:
                    extrema.append((points[i], e))
        while len(extrema) > size:
            extrema.pop(0 if abs(extrema[0][1]) < abs(extrema[-1][1]) else -1)
        if len(extrema) == size:
            reference = [r for r, _ in extrema]
    rounded = [float(c) for c in q]
    fine = [-bound + 2 * bound * i / (5 * grid) for i in range(5 * grid + 1)]
    worst = max(abs(sum(mpmath.mpf(c) * r ** (i + 2) for i, c in enumerate(rounded)) - target(r))
                for r in fine)
    return rounded, worst


# exp(r) - 1 = r + r^2 q(r) for |r| <= ln2/32 (n = round(x 16/ln2); the bound widened by 2^-30
# for the rounding of x 16/ln2), q of degree 4: absolute error 2^-56.3.
exp_q, exp_q_error = remez_expm1(mpmath.log(2) / 32 * (1 + mpmath.mpf(2) ** -30), 4)
show(f"exp q (err 2^{float(mpmath.log(exp_q_error, 2)):.2f})", exp_q)
