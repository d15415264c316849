"""Where the renderer lays its dice on the tray: apart, in edge-to-edge rows, or touching in blocks,
Ls and corner to corner (the arrangements the detector must count, see counting.py)."""

from __future__ import annotations

import math

WIDTH, HEIGHT = 640, 480  # the rendered frame, a small camera's


# touching dice as (along, across) steps of one die in the dice's own frame
SHAPES = {
    "row": [(0, 0), (1, 0), (2, 0), (3, 0)],
    "block": [(0, 0), (1, 0), (0, 1), (1, 1)],  # 2x2
    "L": [(0, 0), (1, 0), (0, 1)],
    "corner": [(0, 0), (1, 1)],  # touching corner to corner, a diagonal
    "offset": [(0, 0), (1, 0.5)],  # side by side, half a die along
}


def cluster_spots(shape: str, x: float, y: float, size: float, angle: float, n: int | None = None,
                  step: float = 1.01) -> list[tuple[float, float, float]]:
    """Centres and angles of dice touching in one of SHAPES, the first at x, y."""
    ux, uy = math.cos(angle), math.sin(angle)
    return [(x + (a * ux - b * uy) * size * step, y + (a * uy + b * ux) * size * step, angle)
            for a, b in SHAPES[shape][:n]]


def place_dice(rng, count: int, size: float, margin: float, touching: float, clusters: float = 0.0):
    """Centres and angles for count dice, not overlapping; some in edge-to-edge rows, and (clusters)
    some in blocks, Ls and corner to corner."""
    placed: list[tuple[float, float, float]] = []
    tries = 0
    while len(placed) < count and tries < 400:
        tries += 1
        angle = float(rng.uniform(0, math.pi / 2))
        n = 1
        if count - len(placed) >= 2 and rng.random() < touching:
            n = int(min(rng.integers(2, 4), count - len(placed)))
        step = size * float(rng.uniform(1.0, 1.04))
        ux, uy = math.cos(angle), math.sin(angle)
        x0 = float(rng.uniform(margin, WIDTH - margin - (n - 1) * step * abs(ux)))
        y0 = float(rng.uniform(margin, HEIGHT - margin - (n - 1) * step * abs(uy)))
        group = [(x0 + i * step * ux, y0 + i * step * uy, angle) for i in range(n)]
        if n >= 2 and clusters > 0 and rng.random() < clusters:
            shape = str(rng.choice([k for k, v in SHAPES.items() if k != "row" and len(v) <= count - len(placed)]))
            group = cluster_spots(shape, x0, y0, size, angle, step=step / size)
        if any(not (margin <= gx <= WIDTH - margin and margin <= gy <= HEIGHT - margin) for gx, gy, _ in group):
            continue
        if all(math.hypot(gx - px, gy - py) >= size * 1.6 for gx, gy, _ in group for px, py, _ in placed):
            placed.extend(group)
    return placed
