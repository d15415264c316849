"""Where a die's top face lies when the camera sees its sides too.

A camera above the tray sees every die away from the middle of the picture a little from the side: the
faces of the die that look toward the middle show beside its top, and the region found holds the top and
those sides. Cut there, a die shows a strip of another face with another symbol, and six photos a face
cannot teach every strip at every place on the tray: on trays drawn by a renderer the reader never saw
(bench/other_renderer.py), with the camera at 30-40 die sides above the tray as the guide asks, the
sides cost a quarter of the dice. The top is the part of the region farthest from the middle (the sides
show on the middle's side of it), so each die's centre is moved outward by half the width its sides show:
for a lens of about 62 degrees across (a Raspberry Pi camera, most phones), whose focal length is FOCAL
of the picture's width, looking straight down, a side at a distance r from the middle shows r * side /
focal pixels wide. The model's parallax scales that (0: no move); calibration chooses it (PARALLAXES),
since another lens or a tilted camera shows more or less.
"""

from __future__ import annotations

from dataclasses import replace

FOCAL = 0.83  # a 62-degree lens: 0.5 / tan(31 degrees) of the picture's width
# tried by calibration, none first (it wins a tie). The real photos under other lamps and dyes
# (bench/cameras.py --seeds 2) read two dice more with the quarter than without it, and no sure die wrong
# where without it one was
PARALLAXES = (0.0, 0.25, 0.5, 1.0)


def strip(x: float, y: float, shape: tuple, parallax: float) -> tuple[float, float]:
    """How far, in die sides across and down, the sides of a die at (x, y) of a picture of this shape
    show beside its top (with this parallax), toward the middle: a region there holds a die's top and
    that much more. (0, 0) in the middle."""
    h, w = shape[:2]
    k = parallax / (FOCAL * w)
    return (x - w / 2) * k, (y - h / 2) * k


def tops(dice: list, shape: tuple, side: float, parallax: float) -> list:
    """The dice (find/clusters.Blob) with each centre moved outward from the middle of a picture of this
    shape onto its top face, for dice side pixels across seen with this parallax."""
    if not parallax or not dice:
        return dice
    out = []
    for b in dice:  # half the strip the sides show, toward the middle, lies between the region's and the top's centre
        dx, dy = strip(b.x, b.y, shape, parallax)
        out.append(replace(b, x=b.x + 0.5 * side * dx, y=b.y + 0.5 * side * dy))
    return out
