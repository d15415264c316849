"""What the table's dice really do: face chances from the first roll of each turn, tested.

Only first rolls count (all five dice, nothing chosen), so which dice were
picked up again cannot bias the counts; a roll later taken back with `undo`
does not count. Each face's chance gets a 95 % Wilson interval, and a
chi-square goodness-of-fit test compares the counts with the chances the coach
assumes. The chi-square tail is computed here with the stdlib (the regularized
upper incomplete gamma function), so nothing beyond Python is needed.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from .commands import DICE_FACES

Z95 = 1.959963984540054  # the standard normal quantile for a two-sided 95 % interval
ALPHA = 0.05  # below this p-value the dice are said to differ from the assumption
MIN_EXPECTED = 5  # the chi-square approximation wants at least this many expected of each face


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (0, 1 when nothing was seen)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) (series below a + 1, continued fraction above)."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        k = a
        for _ in range(10_000):
            k += 1
            term *= x / k
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Lentz's method for the continued fraction of Q.
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def chi_square_p(statistic: float, df: int) -> float:
    """P(X >= statistic) for a chi-square distribution with df degrees of freedom."""
    return gamma_q(df / 2, statistic / 2)


def dice_stats(first_rolls: Iterable[Iterable[str]], assumed: dict[str, float]) -> dict[str, Any]:
    """Counts, estimates with 95 % intervals, and the chi-square test against `assumed`."""
    rolls = [list(r) for r in first_rolls]
    counts = {f: 0 for f in DICE_FACES}
    for roll in rolls:
        for face in roll:
            counts[face] += 1
    n = sum(counts.values())
    faces = {}
    for f in DICE_FACES:
        low, high = wilson(counts[f], n)
        faces[f] = {"count": counts[f], "estimate": counts[f] / n if n else None, "low": low, "high": high,
                    "assumed": assumed[f], "expected": n * assumed[f]}
    used = [f for f in DICE_FACES if assumed[f] > 0]
    impossible = [f for f in DICE_FACES if assumed[f] == 0 and counts[f]]
    statistic = sum((counts[f] - n * assumed[f]) ** 2 / (n * assumed[f]) for f in used) if n else 0.0
    df = len(used) - 1
    p_value = None if not n else (0.0 if impossible else chi_square_p(statistic, df))
    enough = bool(n) and all(n * assumed[f] >= MIN_EXPECTED for f in used)
    differ = p_value is not None and enough and p_value < ALPHA
    return {
        "rolls": len(rolls), "dice": n, "faces": faces,
        "test": {"statistic": statistic, "df": df, "p_value": p_value, "alpha": ALPHA, "enough_data": enough,
                 "differ": differ},
        "observed": {f: counts[f] / n for f in DICE_FACES} if n else None,
        "verdict": verdict(n, p_value, enough, differ),
    }


def verdict(n: int, p_value: float | None, enough: bool, differ: bool) -> str:
    if not n:
        return "No first rolls in the log yet."
    if not enough:
        return f"Too few rolls to test yet ({n} dice): each face should be expected at least {MIN_EXPECTED} times."
    if differ:
        return (f"The dice differ from what the coach assumes (p = {p_value:.3g} < {ALPHA}): "
                "the coach can use the observed chances.")
    return f"No evidence that the dice differ from what the coach assumes (p = {p_value:.3g})."


def describe(stats: dict[str, Any]) -> str:
    """The figures for the terminal."""
    lines = [f"First rolls: {stats['rolls']} ({stats['dice']} dice)",
             f"{'face':<8}{'count':>7}{'seen':>9}{'95% interval':>18}{'assumed':>10}"]
    for f, s in stats["faces"].items():
        seen = "-" if s["estimate"] is None else f"{s['estimate']:.3f}"
        lines.append(f"{f:<8}{s['count']:>7}{seen:>9}{s['low']:>9.3f} - {s['high']:.3f}{s['assumed']:>10.3f}")
    t = stats["test"]
    if t["p_value"] is not None:
        lines.append(f"chi-square = {t['statistic']:.3f}, df = {t['df']}, p = {t['p_value']:.4g}")
    lines.append(stats["verdict"])
    if t["differ"]:
        lines.append("On the page (with the PIN) the coach can be told to use the observed chances.")
    return "\n".join(lines)
