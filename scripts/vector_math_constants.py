#!/usr/bin/python3
"""Prints the constants of codegen/src/vector_math/ that are not published minimax coefficients:
splits of ln 2, 1/ln 2 and pi/2 into sums of doubles, and the Taylor coefficients of exp and of
2*atanh. Exact arithmetic (decimal at 80 digits, fractions for correct rounding to double).
The fdlibm minimax coefficients (log, sin, cos, erf) are quoted at their use, not derived here."""
from decimal import Decimal, getcontext
from fractions import Fraction

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
