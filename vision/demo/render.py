"""Synthetic tray photos with known labels, for training, tests and the demo camera.

A `Rig` is one table set-up (die size on screen, tray and rim colour, lamp
direction and tint, camera tilt, the dice's own ink). Calibration photos and
later readings come from the same rig, which is exactly why calibrating helps;
`render_scene` then adds what changes from photo to photo (where the dice lie,
glare, shadow strength, blur, noise, JPEG).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from companion.commands import DICE_FACES

from .art import (DEFAULT_ART, HELDOUT_ART, PIP_FACES, UNTAUGHT, Art, distort, face_alpha, gloss, random_art,
                  resize_symbol, side_rng)
from .art import bee as draw_bee
from .art import honey as draw_honey
from .art import pips as draw_pips
from .art import texture as surface
from .art import zzz as draw_zzz
from .layout import HEIGHT, WIDTH, place_dice

COCKED = "cocked"  # label of a die that does not lie flat: not a readable face
FACE_PX = 96  # faces are drawn large then shrunk, so small symbols keep smooth edges


@dataclass(frozen=True)
class DieTruth:
    face: str  # one of DICE_FACES, or COCKED
    x: float
    y: float
    size: float
    angle: float
    readable: bool = True


@dataclass
class Scene:
    image: np.ndarray
    dice: list[DieTruth]
    hand: bool = False
    moving: bool = False


@dataclass(frozen=True)
class Conditions:
    """Ranges of the per-photo degradations; held-out tests use a shifted set."""

    size: tuple[float, float] = (24.0, 40.0)
    tint: float = 0.12
    brightness: tuple[float, float] = (0.75, 1.15)
    gradient: float = 0.30
    tilt: float = 0.025
    blur: tuple[float, float] = (0.0, 1.0)
    noise: tuple[float, float] = (1.0, 5.0)
    jpeg: tuple[int, int] = (55, 95)
    glare: float = 0.4
    shadow: tuple[float, float] = (0.25, 0.55)
    touching: float = 0.5
    clusters: float = 0.0  # of touching groups: a 2x2 block, an L, corner to corner, not a straight row
    distort: float = 0.0  # how far each die's symbol may be drawn turned, stretched, sheared (art.distort)
    wider_art: bool = False  # draw the art's MORE_ symbol styles too (the default network's training)


TRAIN = Conditions()
HELDOUT = Conditions(size=(25.0, 38.0), tint=0.16, brightness=(0.65, 1.2), gradient=0.4, tilt=0.035,
                     blur=(0.3, 1.3), noise=(2.0, 7.0), jpeg=(45, 85), glare=0.45, shadow=(0.35, 0.65),
                     touching=0.6)


@dataclass(frozen=True)
class Rig:
    die_size: float
    tray: tuple[float, float, float]
    rim: tuple[float, float, float]
    rim_width: int
    light_dir: float
    tint: tuple[float, float, float]
    brightness: float
    corners: tuple[tuple[float, float], ...]  # camera tilt as corner offsets in pixels
    yellow: tuple[int, int, int]
    green: tuple[int, int, int]
    blur: float
    conditions: Conditions = field(default=TRAIN)
    art: Art = field(default=DEFAULT_ART)  # the dice maker's style and the tray's surface


def with_art(rig: Rig, art: Art) -> Rig:
    """The same table with dice of another maker (bench: art the default model never saw)."""
    return replace(rig, art=art)


def random_rig(rng: np.random.Generator, cond: Conditions = TRAIN) -> Rig:
    def u(lo, hi):
        return float(rng.uniform(lo, hi))

    light = u(0.85, 1.0)
    tray = tuple(light * u(200, 235) + u(-8, 8) for _ in range(3))
    rim = tuple(u(115, 170) for _ in range(3))
    t = cond.tint
    tilt = cond.tilt * WIDTH
    return Rig(
        die_size=u(*cond.size), tray=tray, rim=rim, rim_width=int(rng.integers(0, 32)),
        light_dir=u(0, 2 * math.pi), tint=(u(1 - t, 1 + t), u(1 - t / 2, 1 + t / 2), u(1 - t, 1 + t)),
        brightness=u(*cond.brightness), corners=tuple((u(-tilt, tilt), u(-tilt, tilt)) for _ in range(4)),
        yellow=(int(u(10, 60)), int(u(185, 225)), int(u(225, 255))),
        green=(int(u(40, 90)), int(u(165, 205)), int(u(40, 90))),
        blur=u(*cond.blur), conditions=cond, art=random_art(rng, cond.wider_art),
    )


# ---------------------------------------------------------------- faces
def draw_face(face: str, yellow=(35, 205, 240), green=(65, 185, 65), px: int = FACE_PX,
              art: Art = DEFAULT_ART) -> np.ndarray:
    """One die face, in the art's body colour with its symbol, as a px*px BGR image (symbol upright)."""
    img = np.full((px, px, 3), art.body, np.uint8)
    if art.pips is not None and face in PIP_FACES:
        draw_pips(img, art.pips, px, PIP_FACES[face])
    elif face == "bee":
        draw_bee(img, yellow, (235, 232, 225), px, art.bee)
    elif face == "zombee":
        draw_bee(img, green, (170, 200, 170), px, art.bee)
    elif face == "honey":
        draw_honey(img, yellow, px, art.honey)
    elif face == "zzz":
        draw_zzz(img, yellow, px, art.zzz)
    else:
        raise ValueError(f"unknown face {face!r}; faces are {', '.join(DICE_FACES)}")
    img = resize_symbol(img, art.body, art.scale)
    # a lighter bevel round the edge, as on real moulded dice
    cv2.rectangle(img, (1, 1), (px - 2, px - 2), (art.bevel, art.bevel, art.bevel + 2), 3)
    return img


_ALPHA = face_alpha(FACE_PX)


def _composite(canvas: np.ndarray, src: np.ndarray, alpha: np.ndarray, hom: np.ndarray, motion=None) -> None:
    """Warp src (with alpha 0..255) by the 3x3 homography into canvas, in place, optionally motion-blurred."""
    h, w = src.shape[:2]
    pts = cv2.perspectiveTransform(np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), hom)[0]
    pad = 3 + (int(abs(motion[0]) + abs(motion[1])) if motion is not None else 0)
    x0, y0 = (np.floor(pts.min(0)) - pad).astype(int)
    x1, y1 = (np.ceil(pts.max(0)) + pad).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, canvas.shape[1]), min(y1, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    m = shift @ hom
    size = (x1 - x0, y1 - y0)
    layer = cv2.warpPerspective(src, m, size, flags=cv2.INTER_AREA if w > 2 * size[0] else cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    if motion is not None:
        k = _motion_kernel(*motion)
        layer = cv2.filter2D(layer.astype(np.float32) * a[..., None], -1, k)
        a = cv2.filter2D(a, -1, k)
        layer = layer / np.maximum(a[..., None], 1e-3)
    roi = canvas[y0:y1, x0:x1].astype(np.float32)
    canvas[y0:y1, x0:x1] = np.clip(roi * (1 - a[..., None]) + layer * a[..., None], 0, 255).astype(np.uint8)


def _motion_kernel(dx: float, dy: float) -> np.ndarray:
    n = int(max(abs(dx), abs(dy))) * 2 + 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1)
    return k / max(k.sum(), 1)


def _die_hom(x, y, size, angle, px=FACE_PX) -> np.ndarray:
    s = size / px
    ca, sa = math.cos(angle) * s, math.sin(angle) * s
    c = px / 2
    return np.array([[ca, -sa, x - ca * c + sa * c], [sa, ca, y - sa * c - ca * c], [0, 0, 1]], np.float64)


def _shadow(canvas, x, y, size, angle, rig, strength, scale=1.0):
    d = size * 0.18
    dx, dy = math.cos(rig.light_dir) * d, math.sin(rig.light_dir) * d
    hom = _die_hom(x + dx, y + dy, size * 1.1 * scale, angle)
    shade = np.zeros((FACE_PX, FACE_PX, 3), np.uint8)
    blurred = cv2.GaussianBlur(_ALPHA, (0, 0), FACE_PX * 0.08)
    _composite(canvas, shade, (blurred * strength).astype(np.uint8), hom)


def paste_die(canvas, face, x, y, size, angle, rig, rng, motion=None, shadow=0.4):
    """Draw one flat die (with its shadow) centred at x, y."""
    if shadow > 0 and motion is None:
        _shadow(canvas, x, y, size, angle, rig, shadow)
    img = draw_face(face, rig.yellow, rig.green, art=rig.art)
    quarter = int(rng.integers(0, 4))  # the symbol may point along any edge
    img = np.ascontiguousarray(np.rot90(img, quarter))
    look = side_rng(rng)
    if rig.conditions.distort:
        img = distort(img, rig.art, side_rng(look), rig.conditions.distort)
    if look.random() < rig.art.gloss:
        img = gloss(img, look)
    _composite(canvas, img, face_alpha(FACE_PX, rig.art.corner), _die_hom(x, y, size, angle), motion)


def paste_cocked(canvas, x, y, size, angle, rig, rng, shadow=0.4) -> tuple[float, float]:
    """A die leaning on something: its top face foreshortened about (x, y), one side face showing.
    Returns the centre of what shows, both faces (where its shadow falls)."""
    faces = rng.choice(DICE_FACES, 2)
    c = float(rng.uniform(0.5, 0.8))  # foreshortening of the top face
    side = math.sqrt(1 - c * c) * size
    shear = float(rng.uniform(-0.25, 0.25)) * size
    ux, uy = math.cos(angle), math.sin(angle)
    vx, vy = -uy, ux
    h = size * c
    top = [(x - ux * size / 2 - vx * h / 2 + ux * shear / 2, y - uy * size / 2 - vy * h / 2 + uy * shear / 2)]
    top.append((top[0][0] + ux * size, top[0][1] + uy * size))
    top.append((top[1][0] + vx * h - ux * shear, top[1][1] + vy * h - uy * shear))
    top.append((top[0][0] + vx * h - ux * shear, top[0][1] + vy * h - uy * shear))
    sidequad = [top[3], top[2], (top[2][0] + vx * side, top[2][1] + vy * side), (top[3][0] + vx * side, top[3][1] + vy * side)]
    middle = (x + vx * side / 2, y + vy * side / 2)  # of both faces
    if shadow > 0:
        _shadow(canvas, *middle, size, angle, rig, shadow, scale=1.15)
    src = np.float32([[0, 0], [FACE_PX, 0], [FACE_PX, FACE_PX], [0, FACE_PX]])
    for quad, face, shade in ((sidequad, faces[1], 0.7), (top, faces[0], 1.0)):
        img = (draw_face(str(face), rig.yellow, rig.green, art=rig.art).astype(np.float32) * shade).astype(np.uint8)
        img = np.ascontiguousarray(np.rot90(img, int(rng.integers(0, 4))))
        hom = cv2.getPerspectiveTransform(src, np.float32(quad)).astype(np.float64)
        _composite(canvas, img, _ALPHA, hom)
    return middle


def paste_hand(canvas, rng, rig):
    """A large skin-toned blob (palm and fingers) reaching in from one edge."""
    h, w = canvas.shape[:2]
    edge = int(rng.integers(0, 4))
    along = float(rng.uniform(0.2, 0.8))
    depth = float(rng.uniform(0.25, 0.55))
    base = {0: (along * w, -20), 1: (w + 20, along * h), 2: (along * w, h + 20), 3: (-20, along * h)}[edge]
    inward = {0: (0, 1), 1: (-1, 0), 2: (0, -1), 3: (1, 0)}[edge]
    reach = depth * min(w, h)
    skin = np.array([rng.uniform(110, 150), rng.uniform(145, 185), rng.uniform(195, 240)])
    mask = np.zeros((h, w), np.uint8)
    cx, cy = base[0] + inward[0] * reach * 0.5, base[1] + inward[1] * reach * 0.5
    ang = math.degrees(math.atan2(inward[1], inward[0]))
    cv2.ellipse(mask, (int(cx), int(cy)), (int(reach * 0.65), int(reach * 0.45)), ang, 0, 360, 255, -1)
    px, py = -inward[1], inward[0]
    for i in range(4):
        off = (i - 1.5) * reach * 0.22
        fx = cx + inward[0] * reach * 0.6 + px * off
        fy = cy + inward[1] * reach * 0.6 + py * off
        cv2.ellipse(mask, (int(fx), int(fy)), (int(reach * 0.3), int(reach * 0.08)), ang + rng.uniform(-12, 12), 0, 360, 255, -1)
    soft = cv2.GaussianBlur(mask, (0, 0), 2.0)
    shift = np.float32([[1, 0, 12], [0, 1, 12]])  # shifted, not rolled: no shadow wrapping round the frame
    shadow = cv2.warpAffine(cv2.GaussianBlur(mask, (0, 0), 8.0), shift, (w, h)).astype(np.float32) / 255 * 0.4
    out = canvas.astype(np.float32) * (1 - shadow[..., None])
    a = soft.astype(np.float32)[..., None] / 255
    shading = (0.85 + 0.15 * cv2.GaussianBlur(mask, (0, 0), 15).astype(np.float32) / 255)[..., None]
    canvas[:] = np.clip(out * (1 - a) + skin * shading * a, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- scenes
def _tray(rig: Rig, rng) -> np.ndarray:
    img = np.empty((HEIGHT, WIDTH, 3), np.float32)
    img[:] = rig.tray
    texture = cv2.resize(rng.normal(0, 3, (HEIGHT // 16, WIDTH // 16)).astype(np.float32), (WIDTH, HEIGHT))
    img += texture[..., None]
    img += surface(rig.art.tray, (HEIGHT, WIDTH), side_rng(rng))
    r = rig.rim_width
    if r:
        img[:r], img[-r:], img[:, :r], img[:, -r:] = rig.rim, rig.rim, rig.rim, rig.rim
        cv2.rectangle(img, (r, r), (WIDTH - 1 - r, HEIGHT - 1 - r), tuple(v * 0.8 for v in rig.tray), 3)
    return np.clip(img, 0, 255).astype(np.uint8)


def _light(img: np.ndarray, rig: Rig, rng) -> np.ndarray:
    cond = rig.conditions
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float32)
    d = rig.light_dir + rng.uniform(-0.3, 0.3)
    g = float(rng.uniform(0, cond.gradient))
    ramp = ((xx - WIDTH / 2) * math.cos(d) + (yy - HEIGHT / 2) * math.sin(d)) / WIDTH
    vign = 1 - 0.25 * (((xx - WIDTH / 2) / WIDTH) ** 2 + ((yy - HEIGHT / 2) / HEIGHT) ** 2)
    gain = (rig.brightness * float(rng.uniform(0.92, 1.08))) * (1 - g * ramp) * vign
    return img.astype(np.float32) * gain[..., None] * np.float32(rig.tint)


def _glare(img: np.ndarray, x, y, size, rng):
    gx, gy = x + rng.uniform(-0.25, 0.25) * size, y + rng.uniform(-0.25, 0.25) * size
    sig = size * rng.uniform(0.08, 0.18)  # a lamp's reflection: a spot, not the whole face
    r = int(sig * 3) + 1
    x0, y0 = int(gx) - r, int(gy) - r
    yy, xx = np.mgrid[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1].astype(np.float32)
    blob = rng.uniform(50, 150) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sig * sig))
    ys = slice(max(y0, 0), min(y0 + 2 * r + 1, HEIGHT))
    xs = slice(max(x0, 0), min(x0 + 2 * r + 1, WIDTH))
    img[ys, xs] += blob[ys.start - y0:ys.stop - y0, xs.start - x0:xs.stop - x0, None]


def finish(img: np.ndarray, rig: Rig, rng, dice, glare_at=()) -> tuple[np.ndarray, list[DieTruth]]:
    """Light, glare, tilt, blur, noise and JPEG; returns the photo and the labels moved by the tilt."""
    cond = rig.conditions
    f = _light(img, rig, rng)
    for x, y, size in glare_at:
        _glare(f, x, y, size, rng)
    src = np.float32([[0, 0], [WIDTH, 0], [WIDTH, HEIGHT], [0, HEIGHT]])
    dst = src + np.float32(rig.corners)
    hom = cv2.getPerspectiveTransform(src, dst)
    f = cv2.warpPerspective(f, hom, (WIDTH, HEIGHT), borderMode=cv2.BORDER_REPLICATE)
    sigma = max(0.0, rig.blur + float(rng.uniform(-0.2, 0.2)))
    if sigma > 0.05:
        f = cv2.GaussianBlur(f, (0, 0), sigma)
    f += rng.normal(0, float(rng.uniform(*cond.noise)), f.shape).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*cond.jpeg))])
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    moved = []
    if dice:
        pts = cv2.perspectiveTransform(np.float32([[(d.x, d.y) for d in dice]]), hom)[0]
        moved = [DieTruth(d.face, float(p[0]), float(p[1]), d.size, d.angle, d.readable) for d, p in zip(dice, pts)]
    return out, moved


def render_scene(rng: np.random.Generator, rig: Rig | None = None, faces=None, count: int | None = None,
                 cocked: int = 0, hand: bool = False, motion: float = 0.0) -> Scene:
    """One tray photo. faces: the flat dice's faces (random if None); cocked: extra leaning dice;
    motion: pixels of sliding blur per die (0 = at rest)."""
    rig = rig or random_rig(rng)
    if faces is None:
        n = int(rng.integers(1, 8)) if count is None else count
        faces = [str(f) for f in rng.choice(DICE_FACES, n)]
    size = rig.die_size * float(rng.uniform(0.97, 1.03))
    spots = place_dice(rng, len(faces) + cocked, size, rig.rim_width + size * 1.2, rig.conditions.touching,
                       rig.conditions.clusters)
    order = list(faces) + [COCKED] * cocked
    order = [order[i] for i in rng.permutation(len(order))][:len(spots)]
    placed = [(face, x, y, a) for face, (x, y, a) in zip(order, spots)]
    return compose(rng, rig, placed, size, hand=hand, motion=motion)


def compose(rng: np.random.Generator, rig: Rig, placed, size: float, hand: bool = False,
            motion: float = 0.0) -> Scene:
    """Draw dice given as (face, x, y, angle) on the rig's tray; every random draw comes from rng,
    so the same rng seed gives the same light, glare and noise (a steady camera)."""
    cond = rig.conditions
    img = _tray(rig, rng)
    shadow = float(rng.uniform(*cond.shadow))
    truths, glare = [], []
    for face, x, y, a in placed:
        if face == COCKED:
            # where the leaning die is, as a reader sees it: its top face and the side below it. At
            # its top face's centre, the reader's die lay 0.3-0.45 of a side off, and was scored as
            # an extra die and a missed one when its measured centre strayed a little more
            middle = paste_cocked(img, x, y, size, a, rig, rng, shadow)
            truths.append(DieTruth(COCKED, *middle, size, a, readable=False))
            continue
        mv = None
        if motion > 0:
            t = rng.uniform(0, 2 * math.pi)
            mv = (motion * math.cos(t), motion * math.sin(t))
        paste_die(img, face, x, y, size, a, rig, rng, mv, shadow)
        # a face the set never taught (a pip die's 5 or 6) must read unknown, like a blurred one
        truths.append(DieTruth(face, x, y, size, a, readable=motion <= 2 and face not in UNTAUGHT))
        if rng.random() < cond.glare:
            glare.append((x, y, size))
    if hand:
        paste_hand(img, rng, rig)
    out, moved = finish(img, rig, rng, truths, glare)
    return Scene(out, moved, hand=hand, moving=motion > 0)


def write_calibration_set(folder, rng: np.random.Generator, rig: Rig, per_face: int = 6, empty: int = 3,
                          dice: int | None = None) -> None:
    """Photos laid out as `companion vision calibrate` wants them: empty/ and one folder per face, each
    photo with `dice` dice (1-4 at random when None)."""
    from pathlib import Path

    root = Path(folder)
    for name, n in [("empty", empty)] + [(f, per_face) for f in DICE_FACES]:
        (root / name).mkdir(parents=True, exist_ok=True)
        for i in range(n):
            faces = [] if name == "empty" else [name] * (dice if dice else int(rng.integers(1, 5)))
            scene = render_scene(rng, rig, faces=faces)
            cv2.imwrite(str(root / name / f"{name}{i}.png"), scene.image)
