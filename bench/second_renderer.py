"""A second, independent renderer of ZomBee dice trays, for bench/other_renderer.py only.

Written from scratch without looking at vision/demo or tools/: the dice reader was never tuned on
these pictures. A scene is built in 3D: the tray is the plane z = 0 (a die's side is 1 unit), dice
are cubes with rounded edges standing on it, a pinhole camera looks down at it tilted 0-25 degrees
and a directional lamp shades the cubes' sides and casts soft shadows. Every face is drawn flat as a
texture and warped onto its projected quadrilateral; the photo then gets the lamp's falloff, a
white-balance tint, blur, sensor noise and a JPEG round trip.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

FACES = ("bee", "honey", "zzz", "zombee")
LAYOUT = ("bee", "bee", "honey", "honey", "zzz", "zombee")  # the six faces of one die
W, H = 640, 480
TEX = 160  # a face texture's side in pixels
AA = cv2.LINE_AA
BODIES = {"white": (238, 240, 240), "cream": (200, 228, 240), "light grey": (200, 202, 200),
          "pale yellow": (170, 232, 245), "black": (38, 36, 34), "navy": (80, 42, 28), "purple": (85, 35, 60)}
DARK_BODIES = ("black", "navy", "purple")
SURFACES = {"green felt": (45, 105, 35), "blue felt": (120, 70, 30), "red felt": (40, 40, 130),
            "grey felt": (95, 95, 92), "wood": (45, 95, 150), "dark wood": (30, 55, 90), "cardboard": (110, 160, 195),
            "white card": (232, 236, 236), "pale felt": (200, 204, 206), "paper": (205, 225, 235)}
# what docs/dice-reader.md asks of a table: a light, matte tray under a camera looking (nearly) straight down
LIGHT_SURFACES = ("white card", "pale felt", "paper")
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX,
         cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_PLAIN)


@dataclass(frozen=True, eq=False)
class Table:
    """Everything one simulated table keeps fixed: camera, lamp, tray, dice and their symbol style."""
    surface: str
    body: str
    tilt: float  # degrees from straight down
    die_px: float  # the top face's side in pixels at the middle of the picture
    R: np.ndarray  # world -> camera rotation (rows: image right, image down, forward)
    C: np.ndarray  # camera centre in world units
    focal: float
    light: np.ndarray  # unit vector towards the lamp
    ambient: float
    shadow: float  # how much a shadow darkens the tray
    glare: float  # chance of a glare spot on a die's top
    tray: np.ndarray  # the lit empty tray, float32 BGR 0..1 (before falloff, tint and camera)
    falloff: np.ndarray  # HxWx1 lamp falloff and vignette
    tint: np.ndarray  # per channel gains
    blur: float
    noise: float
    jpeg: tuple[int, int]
    area: tuple[float, float, float, float]  # x0, y0, x1, y1 of the tray in world units
    textures: dict = field(default_factory=dict)  # face -> float32 BGR TEX x TEX
    style: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Scene:
    image: np.ndarray  # HxWx3 uint8 BGR
    dice: list  # (x, y, face): the centre of each die's top face in image pixels


def project(t: Table, P: np.ndarray) -> np.ndarray:
    c = (np.asarray(P, np.float64) - t.C) @ t.R.T
    return np.stack([t.focal * c[:, 0] / c[:, 2] + W / 2, t.focal * c[:, 1] / c[:, 2] + H / 2], 1)


def _noise(rng, shape, cell, stretch=1.0) -> np.ndarray:
    small = rng.standard_normal((max(2, int(shape[0] / cell)), max(2, int(shape[1] / cell / stretch))))
    small = small.astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _surface(rng, kind: str, shape) -> np.ndarray:
    base = np.array(SURFACES[kind], np.float32) / 255 * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    lum = 1 + 0.05 * _noise(rng, shape, 60) + 0.03 * _noise(rng, shape, 12)
    if "wood" in kind:
        yy = np.arange(shape[0], dtype=np.float32)[:, None] + 10 * _noise(rng, shape, 60, 6)
        yy += 3 * _noise(rng, shape, 8, 8)  # the grain wanders
        lum += 0.07 * np.sin(yy / rng.uniform(3, 6)) + 0.05 * np.sin(yy / rng.uniform(12, 25))
        lum += 0.05 * _noise(rng, shape, 1.5, 30)  # streaks along the grain
        plank = rng.uniform(150, 260)
        lum[(np.arange(shape[0]) % int(plank)) < 3] *= 0.6
    elif kind in ("cardboard", "paper", "white card"):
        lum += 0.04 * _noise(rng, shape, 3) + 0.03 * np.abs(_noise(rng, shape, 25))
    else:  # felt: fine fuzz
        lum += 0.06 * rng.standard_normal(shape).astype(np.float32)
    return np.clip(lum[..., None] * base, 0, 1)


def _fit(img, mark, S, c):
    """Paste mark (BGRA, drawn anywhere on its canvas) scaled to fit an S x S box centred at c."""
    ys, xs = np.nonzero(mark[..., 3])
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    k = S / max(y1 - y0, x1 - x0)
    w, h = max(1, int((x1 - x0) * k)), max(1, int((y1 - y0) * k))
    m = cv2.resize(mark[y0:y1, x0:x1], (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    ox, oy, a = int(c - w / 2), int(c - h / 2), m[..., 3:] / 255
    roi = img[oy:oy + h, ox:ox + w]
    roi[:] = np.clip(roi * (1 - a) + m[..., :3] * a, 0, 255).astype(np.uint8)


def _ink(colour) -> tuple:
    return tuple(int(v) for v in colour) + (255,)


def _bee(st, zombie: bool, dark_body: bool) -> np.ndarray:
    """A bee (or a green zombie bee) drawn big on its own BGRA canvas."""
    img = np.zeros((400, 400, 4), np.uint8)
    lw = max(2, int(8 * st["line"]))
    ink = _ink((30, 50, 30) if zombie else (30, 30, 30))
    wing = _ink((190, 205, 185) if zombie else (235, 228, 215))
    for sgn in (-1, 1):  # wings behind the body
        centre, axes = (200 + sgn * 40, 125), (50, 85)
        cv2.ellipse(img, centre, axes, sgn * 30, 0, 360, wing, -1, AA)
        cv2.ellipse(img, centre, axes, sgn * 30, 0, 360, ink, lw, AA)
        for k in range(2 if zombie else 0):  # torn wings
            tip = (200 + sgn * (60 + 20 * k), 70 + 60 * k)
            cv2.fillPoly(img, [np.array([tip, (tip[0] + sgn * 40, tip[1] - 10), (tip[0] + sgn * 40, tip[1] + 25)])], 0)
    centre, axes = (215, 230), (130, 80)
    cv2.ellipse(img, centre, axes, 0, 0, 360, _ink(st["zombee" if zombie else "bee"]), -1, AA)
    inside = np.zeros((400, 400), np.uint8)
    cv2.ellipse(inside, centre, axes, 0, 0, 360, 255, -1)
    cols = np.arange(400)[None, :]
    for k in range(st["stripes"]):
        x = 190 + (k - (st["stripes"] - 1) / 2) * 260 / (st["stripes"] + 1.5)
        img[(np.abs(cols - x) < 14 * st["line"] + 8) & (inside > 0)] = _ink((40, 60, 70) if zombie else (20, 20, 20))
    if st["outline"] or dark_body:
        cv2.ellipse(img, centre, axes, 0, 0, 360, ink if st["outline"] else _ink((200, 200, 200)), lw, AA)
    cv2.fillPoly(img, [np.array([(338, 212), (385, 230), (338, 248)])], ink, AA)  # sting
    head = (75, 230)
    cv2.circle(img, head, 52, _ink((70, 110, 80) if zombie else (40, 40, 40)), -1, AA)
    for sgn in (-1, 1):  # antennae
        end = (45 + sgn * 20, 130)
        cv2.line(img, (head[0] + sgn * 15, 185), end, ink, lw, AA)
        cv2.circle(img, end, 10, ink, -1, AA)
    if zombie:  # X eyes and stiff arms
        for ex, ey, dy in ((60, 215, 9), (92, 215, 9), (60, 215, -9), (92, 215, -9)):
            cv2.line(img, (ex - 9, ey - dy), (ex + 9, ey + dy), _ink((40, 40, 210)), 5, AA)
        for dx in (150, 230):
            cv2.line(img, (dx, 300), (dx - 60, 370), ink, lw, AA)
    else:
        cv2.circle(img, (62, 215), 10, _ink((245, 245, 245)), -1, AA)
    return img


def _honey(st) -> np.ndarray:
    """A honey drop (filled amber, or a pale one with an amber rim) on a BGRA canvas."""
    img = np.zeros((400, 400, 4), np.uint8)
    t = np.linspace(0, 2 * np.pi, 120)
    pts = np.stack([200 + 150 * np.sin(t) * np.sin(t / 2) ** st["drop"], 200 - 170 * np.cos(t)], 1).astype(np.int32)
    amber = np.array(st["honey"])
    cv2.fillPoly(img, [pts], _ink(amber if st["filled"] else amber * 0.6 + 90), AA)
    if st["filled"]:  # darker where it is thick
        lower = np.zeros((400, 400), np.uint8)
        cv2.ellipse(lower, (200, 330), (170, 60), 0, 0, 360, 255, -1)
        img[lower > 0, :3] = (img[lower > 0, :3] * 0.8).astype(np.uint8)
    cv2.polylines(img, [pts], True, _ink(amber * 0.45 if st["outline"] else amber), max(3, int(12 * st["line"])), AA)
    cv2.ellipse(img, (150, 270), (22, 40), 20, 0, 360, _ink((250, 250, 250)), -1, AA)
    return img


def _zzz(st, colour) -> np.ndarray:
    """"Zzz" in a row or as a rising stair of smaller z's, in one of cv2's fonts, on a BGRA canvas."""
    alpha = np.zeros((600, 600), np.uint8)
    th = max(2, int(round(6 * st["line"] * (1.6 if st["font"] == cv2.FONT_HERSHEY_PLAIN else 1))))
    if st["stair"]:
        for k, (letter, scale) in enumerate((("Z", 5.0), ("z", 3.6), ("z", 2.6))):
            cv2.putText(alpha, letter, (30 + 140 * k, 520 - 130 * k), st["font"], scale, 255, th + 6 - 2 * k, AA)
    else:
        cv2.putText(alpha, "Zzz", (20, 380), st["font"], 4.0, 255, th + 4, AA)
    return np.dstack([np.full((600, 600, 3), colour, np.uint8), alpha])


def _symbol_texture(face: str, st: dict, body_bgr, dark_body: bool) -> np.ndarray:
    tex = np.zeros((TEX, TEX, 3), np.uint8)
    tex[:] = body_bgr
    mark = (_bee(st, face == "zombee", dark_body) if face in ("bee", "zombee") else _honey(st) if face == "honey"
            else _zzz(st, st["light_ink"] if dark_body else st["ink"]))
    _fit(tex, mark, st["frac"] * TEX, TEX / 2)
    return tex.astype(np.float32) / 255


def random_table(rng: np.random.Generator, bodies: tuple[str, ...] | None = None,
                 surfaces: tuple[str, ...] | None = None, most_tilt: float = 25.0,
                 sizes: tuple[float, float] = (40.0, 80.0)) -> Table:
    """bodies: the die colours to choose from (default: mostly light, a quarter dark); surfaces: the
    trays (default: any); most_tilt: the camera's largest angle from straight down, in degrees; sizes:
    the least and most pixels across a die's top in the middle of the picture (larger: a closer camera,
    which shows more of the dice's sides away from the middle)."""
    surface = str(rng.choice(list(surfaces or SURFACES)))
    weights = {"white": 3, "cream": 2, "light grey": 1.5, "pale yellow": 1.5, "black": 1.5, "navy": 1, "purple": 0.5}
    names = [b for b in BODIES if bodies is None or b in bodies]
    p = np.array([weights[b] for b in names])
    body = str(rng.choice(names, p=p / p.sum()))
    dark_body = body in DARK_BODIES
    tilt, roll, die_px = rng.uniform(0, most_tilt), rng.uniform(-12, 12), rng.uniform(*sizes)
    focal = rng.uniform(480, 720)
    dist = focal / die_px + 1  # camera to the top of a die in the middle, in die sides
    t, r = np.radians(tilt), np.radians(roll)
    right, down = np.array([1.0, 0, 0]), np.array([0, -np.cos(t), -np.sin(t)])
    fwd = np.cross(right, down)
    right, down = np.cos(r) * right + np.sin(r) * down, -np.sin(r) * right + np.cos(r) * down
    R, C = np.stack([right, down, fwd]), np.array([0, -dist * np.sin(t), dist * np.cos(t)])
    Hp = np.array([[focal, 0, W / 2], [0, focal, H / 2], [0, 0, 1]]) @ np.column_stack([R[:, 0], R[:, 1], -R @ C])
    corners = cv2.perspectiveTransform(np.float32([[[0, 0]], [[W, 0]], [[W, H]], [[0, H]]]), np.linalg.inv(Hp))[:, 0]
    x0, y0 = corners.min(0) - 1
    x1, y1 = corners.max(0) + 1
    ppu = die_px * 1.5  # texture pixels per world unit
    shape = (int((y1 - y0) * ppu), int((x1 - x0) * ppu))
    ground = _surface(rng, surface, shape)
    area = (float(x0), float(y0), float(x1), float(y1))
    if rng.random() < 0.4:  # a tray rim along one or two sides of the picture
        rim = np.array(SURFACES[str(rng.choice(["dark wood", "grey felt"]))], np.float32) / 255 * 0.7
        a = list(area)
        for side in rng.choice(4, size=rng.integers(1, 3), replace=False):
            cut = rng.uniform(0.8, 1.8)
            a[side] = a[side] + cut if side < 2 else a[side] - cut
        ix0, iy0, ix1, iy1 = [int((v - o) * ppu) for v, o in zip(a, (x0, y0, x0, y0))]
        out = np.ones(shape, bool)
        out[max(iy0, 0):iy1, max(ix0, 0):ix1] = False
        ground[out] = rim * (1 + 0.05 * _noise(rng, shape, 20)[out][:, None])
        cv2.rectangle(ground, (ix0, iy0), (ix1, iy1), (0.08, 0.08, 0.08), max(2, int(ppu * 0.08)), AA)
        area = tuple(a)
    tex_to_world = np.array([[1 / ppu, 0, x0], [0, 1 / ppu, y0], [0, 0, 1]])
    tray = cv2.warpPerspective(ground, Hp @ tex_to_world, (W, H), borderMode=cv2.BORDER_REFLECT)
    az, el = rng.uniform(0, 2 * np.pi), np.radians(rng.uniform(35, 75))
    light = np.array([np.cos(az) * np.cos(el), np.sin(az) * np.cos(el), np.sin(el)])
    ambient = rng.uniform(0.3, 0.55)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    gx, gy = rng.uniform(-0.25, 0.25, 2)
    rr = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / (W / 2) ** 2
    falloff = (1 + gx * (xx - W / 2) / W + gy * (yy - H / 2) / H - rng.uniform(0, 0.3) * rr)[..., None]
    body_bgr = np.array(BODIES[body]) * rng.uniform(0.93, 1.05)
    body_bgr = tuple(int(v) for v in np.clip(body_bgr, 0, 255))
    st = {"frac": rng.uniform(0.45, 0.75), "line": rng.uniform(0.6, 1.6), "outline": bool(rng.random() < 0.7),
          "filled": bool(rng.random() < 0.7), "stripes": int(rng.integers(2, 4)), "font": int(rng.choice(FONTS)),
          "stair": bool(rng.random() < 0.5), "drop": float(rng.uniform(0.8, 1.6)),
          "bee": tuple(int(v) for v in (rng.uniform(0, 40), rng.uniform(190, 225), rng.uniform(230, 255))),
          "zombee": tuple(int(v) for v in (rng.uniform(30, 90), rng.uniform(140, 200), rng.uniform(40, 110))),
          "honey": tuple(int(v) for v in (rng.uniform(0, 40), rng.uniform(120, 170), rng.uniform(210, 250))),
          "ink": tuple(int(v) for v in rng.choice([(30, 30, 30), (110, 40, 30), (90, 30, 70)])),
          "light_ink": (235, 235, 235), "body_bgr": body_bgr}
    textures = {f: _symbol_texture(f, st, body_bgr, dark_body) for f in FACES}
    return Table(surface, body, float(tilt), float(die_px), R, C, float(focal), light, float(ambient),
                 float(rng.uniform(0.35, 0.6)), float(rng.choice([0.0, 0.3, 0.7])), tray.astype(np.float32),
                 falloff.astype(np.float32), rng.uniform(0.85, 1.15, 3).astype(np.float32),
                 float(rng.uniform(0.3, 1.3)), float(rng.uniform(1.0, 5.0)),
                 (int(rng.integers(60, 80)), int(rng.integers(80, 96))), area, textures, st)


def _footprint(x, y, yaw, grow=1.0) -> np.ndarray:
    c, s = np.cos(yaw), np.sin(yaw)
    loc = 0.5 * grow * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    return (loc @ np.array([[c, s], [-s, c]]) + (x, y)).astype(np.float32)


def _cube(x, y, yaw) -> np.ndarray:
    f = _footprint(x, y, yaw)
    return np.vstack([np.column_stack([f, np.zeros(4)]), np.column_stack([f, np.ones(4)])])  # bottom 0-3, top 4-7


def _fits(t: Table, x, y, yaw) -> bool:
    x0, y0, x1, y1 = t.area
    f = _footprint(x, y, yaw, 1.2)
    if f[:, 0].min() < x0 or f[:, 0].max() > x1 or f[:, 1].min() < y0 or f[:, 1].max() > y1:
        return False
    p = project(t, _cube(x, y, yaw))
    m = 0.15 * t.die_px
    return bool(p[:, 0].min() > m and p[:, 0].max() < W - m and p[:, 1].min() > m and p[:, 1].max() < H - m)


def place(rng, t: Table, n: int, touching: bool) -> list[tuple[float, float, float]] | None:
    """n dice (x, y, yaw) in the tray, apart from each other; the first two touching when asked."""
    x0, y0, x1, y1 = t.area
    for _ in range(50):
        dice = []
        while len(dice) < n:
            for _ in range(300):
                d = (rng.uniform(x0, x1), rng.uniform(y0, y1), rng.uniform(0, 2 * np.pi))
                if touching and len(dice) == 1:
                    ax, ay, ayaw = dice[0]
                    k, delta = rng.integers(4), np.radians(rng.uniform(-10, 10))
                    u = np.array([np.cos(ayaw + k * np.pi / 2), np.sin(ayaw + k * np.pi / 2)])
                    v = np.array([-u[1], u[0]])
                    reach = 0.5 + 0.5 * (abs(np.cos(delta)) + abs(np.sin(delta))) + 0.004
                    p = np.array([ax, ay]) + u * reach + v * rng.uniform(-0.3, 0.3)
                    d = (p[0], p[1], ayaw + delta)
                    ok = _fits(t, *d)
                else:
                    ok = _fits(t, *d) and all(cv2.intersectConvexConvex(_footprint(*d, 1.35), _footprint(*e, 1.35))[0]
                                              <= 1e-6 for e in dice)  # a gap of over a third of a side
                if ok:
                    dice.append(d)
                    break
            else:
                break
        if len(dice) == n:
            return dice
    return None


_EDGE = np.minimum((np.arange(TEX) + 0.5) / TEX, 1 - (np.arange(TEX) + 0.5) / TEX)
BEVEL = (1 - 0.35 * np.clip(1 - np.minimum(_EDGE[None, :], _EDGE[:, None]) / 0.09, 0, 1) ** 2)[..., None]
BEVEL = BEVEL.astype(np.float32)  # rounded edges turn away from the lamp


def _draw_die(rng, t: Table, img: np.ndarray, x, y, yaw, face: str) -> None:
    P = _cube(x, y, yaw)
    p = project(t, P)
    (bx0, by0), (bx1, by1) = np.maximum(p.min(0).astype(int) - 2, 0), np.minimum(p.max(0).astype(int) + 3, (W, H))
    size = (bx1 - bx0, by1 - by0)
    layer, alpha = np.zeros((size[1], size[0], 3), np.float32), np.zeros((size[1], size[0]), np.float32)
    rest = list(LAYOUT)
    rest.remove(face)
    rng.shuffle(rest)
    jitter = rng.uniform(0.97, 1.03, 3).astype(np.float32)
    src = np.float32([[0, 0], [TEX, 0], [TEX, TEX], [0, TEX]])
    faces = [(face, [7, 6, 5, 4], np.array([0, 0, 1.0]))]  # texture x along world x, texture y down world y
    for k in range(4):  # side faces: top edge first, so their symbols stand upright
        a, b = k, (k + 1) % 4
        n = np.append((P[a, :2] + P[b, :2]) / 2 - (x, y), 0) * 2
        faces.append((rest[k], [a + 4, b + 4, b, a], n))
    top = (t.ambient + (1 - t.ambient) * t.light[2]) / 0.97  # the top face as lit as the tray
    for name, idx, n in faces:
        if n @ (t.C - P[idx].mean(0)) <= 0:
            continue
        shade = (t.ambient + (1 - t.ambient) * max(0.0, float(n @ t.light))) / top
        tex = t.textures[name] if n[2] else np.rot90(t.textures[name], rng.integers(4))
        tex = tex * BEVEL * jitter * shade
        if n[2] and rng.random() < t.glare:  # a glare spot
            gy, gx = np.mgrid[0:TEX, 0:TEX].astype(np.float32)
            cx, cy, sx = rng.uniform(0.2, 0.8) * TEX, rng.uniform(0.2, 0.8) * TEX, rng.uniform(0.06, 0.16) * TEX
            g = np.exp(-((gx - cx) ** 2 + (gy - cy) ** 2 * rng.uniform(0.5, 2)) / (2 * sx ** 2))[..., None]
            tex = tex + (1.2 - tex) * g * rng.uniform(0.5, 0.9)
        elif not n[2]:  # darker towards the tray
            tex = tex * np.linspace(1.0, 0.75, TEX, dtype=np.float32)[:, None, None]
        side = max(8, int(t.die_px * 1.4))
        tex = cv2.resize(np.ascontiguousarray(tex), (side, side), interpolation=cv2.INTER_AREA)
        M = cv2.getPerspectiveTransform(src * side / TEX, (p[idx] - (bx0, by0)).astype(np.float32))
        warped = cv2.warpPerspective(tex, M, size, flags=cv2.INTER_LINEAR)
        a = cv2.warpPerspective(np.ones((side, side), np.float32), M, size, flags=cv2.INTER_LINEAR)
        layer += warped * a[..., None] * (1 - alpha[..., None])
        alpha = np.maximum(alpha, a)
    r = max(1, int(round(0.09 * t.die_px)))  # round the silhouette's corners
    rounded = cv2.morphologyEx(alpha, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2))
    rounded = cv2.GaussianBlur(rounded, (0, 0), 0.6)[..., None]
    layer = layer / np.maximum(alpha[..., None], 1e-3)
    roi = img[by0:by1, bx0:bx1]
    roi[:] = roi * (1 - rounded) + layer * rounded


def render(rng, table: Table, faces: list[str], spots=None) -> Scene:
    """One photo of dice showing faces; spots: their (x, y, yaw) on the tray (random when None)."""
    t = table
    if spots is None:
        spots = place(rng, t, len(faces), touching=len(faces) > 1 and rng.random() < 0.2) if faces else []
        if spots is None:
            raise ValueError(f"no room for {len(faces)} dice on this tray")
    img = t.tray.copy()
    shade = np.zeros((H, W), np.float32)
    for x, y, yaw in spots:  # the shadow is the cube pushed along the light onto the tray
        P = _cube(x, y, yaw)
        P[4:, :2] -= t.light[:2] / t.light[2]
        P[4:, 2] = 0
        cv2.fillConvexPoly(shade, cv2.convexHull(project(t, P).astype(np.float32)).astype(np.int32), 1.0, AA)
        foot = np.column_stack([_footprint(x, y, yaw, 1.08), np.zeros(4)])  # contact darkening
        cv2.fillConvexPoly(shade, project(t, foot).astype(np.int32), 1.0, AA)
    shade = cv2.GaussianBlur(shade, (0, 0), 0.12 * t.die_px)
    img *= (1 - t.shadow * np.clip(shade, 0, 1))[..., None]
    depth = [((t.R @ (np.array([x, y, 0.5]) - t.C))[2], i) for i, (x, y, _) in enumerate(spots)]
    for _, i in sorted(depth, reverse=True):  # far dice first
        _draw_die(rng, t, img, *spots[i], faces[i])
    img = img * t.falloff * t.tint * rng.uniform(0.95, 1.05)
    blur = t.blur * rng.uniform(0.8, 1.2)
    img = cv2.GaussianBlur(img, (0, 0), blur) if blur > 0.35 else img
    img = np.clip(img, 0, 1) * 255
    img += rng.standard_normal(img.shape).astype(np.float32) * t.noise * np.sqrt(np.maximum(img, 1) / 128)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*t.jpeg))])
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    centres = project(t, np.array([[x, y, 1.0] for x, y, _ in spots]).reshape(-1, 3))
    return Scene(img, [(float(cx), float(cy), f) for (cx, cy), f in zip(centres, faces)])


def write_calibration(folder, rng, table: Table, per_face: int = 6, empty: int = 3) -> None:
    """folder/empty/ and one folder per face, as vision.teach.calibrate reads them."""
    folder = Path(folder)
    for name, count in [("empty", empty)] + [(f, per_face) for f in FACES]:
        (folder / name).mkdir(parents=True, exist_ok=True)
        for k in range(count):
            n = 0 if name == "empty" else int(rng.integers(1, 5))
            spots = place(rng, table, n, touching=False) if n else []
            scene = render(rng, table, [name] * len(spots or []), spots=spots or [])
            cv2.imwrite(str(folder / name / f"{name}_{k:02d}.png"), scene.image)
