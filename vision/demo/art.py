"""How a maker draws the dice and how a table looks, for the renderer: more than one look, so a
model trained on rendered trays does not learn one renderer's habits.

An `Art` is one die maker's style: body colour (black, smoky, navy, purple),
symbol variants (bee, honey drop, Zzz lettering), symbol size, corner radius,
bevel and gloss. `random_art` draws from the training styles only (with
`wider`, the MORE_ styles the default network also learns from); HELDOUT_ART
holds symbol variants no training rig ever draws (a round bee, a honeycomb
cell, serif lettering), so bench/vision.py can report how the default model
does on dice it never saw. PIP_ART draws pip dice instead of ZomBee's symbols,
taught as 1-4 with 5 and 6 never taught, for bench/vision.py's check that a face
no calibration showed reads unknown. Tray textures (plain, wood, felt, cloth,
printed) are here as well.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

BEES = ("striped", "plain")
HONEYS = ("drop", "round")
ZZZS = ("simplex", "duplex", "small")
# More styles for the default network's training only (random_art(wider=True)): the bench's trays stay
# drawn as they were, so its figures compare with earlier ones
MORE_BEES = ("plump",)
MORE_HONEYS = ("outline", "shine")
MORE_ZZZS = ("thin", "italic")
BODIES = ((30, 30, 30), (22, 22, 24), (48, 30, 26), (44, 26, 40), (40, 40, 44))  # BGR: black, navy, purple, smoky
TRAYS = ("plain", "plain", "wood", "felt", "cloth", "printed")


@dataclass(frozen=True)
class Art:
    body: tuple[int, int, int] = (30, 30, 30)
    bee: str = "striped"  # striped | plain | plump | round (held out)
    honey: str = "drop"  # drop | round | outline | shine | hexagon (held out)
    zzz: str = "simplex"  # simplex | duplex | small | thin | italic | triplex (held out)
    scale: float = 1.0  # symbol size
    corner: int = 8  # corner radius = side // corner
    bevel: int = 58  # lightness of the rounded edge
    gloss: float = 0.0  # chance of a lamp's arc on a face
    tray: str = "plain"
    pips: tuple[int, int, int] | None = None  # a pip die's pip colour (BGR): faces drawn as 1-6 pips (PIP_FACES)


DEFAULT_ART = Art()
HELDOUT_ART = (
    Art(body=(44, 26, 40), bee="round", honey="hexagon", zzz="triplex", scale=0.9, corner=6, bevel=70, gloss=0.4),
    Art(body=(48, 30, 26), bee="round", honey="hexagon", zzz="triplex", scale=1.1, corner=12, bevel=50, gloss=0.2,
        tray="wood"),
)


# Pip dice stand in for a set the reader was never built for (as the real photos do): the four faces
# are taught as 1-4 pips, and a 5 or a 6 is a face no calibration taught, which must read unknown
PIP_FACES = {"bee": 1, "honey": 2, "zzz": 3, "zombee": 4, "five": 5, "six": 6}
UNTAUGHT = ("five", "six")
PIP_ART = (
    Art(body=(28, 28, 30), corner=6, bevel=60, gloss=0.3, pips=(235, 235, 232)),
    Art(body=(40, 40, 44), corner=9, bevel=50, gloss=0.5, pips=(60, 50, 215), tray="wood"),  # smoky, red pips
    Art(body=(50, 28, 24), corner=7, bevel=70, gloss=0.2, pips=(225, 230, 235), tray="felt"),
)


def side_rng(rng: np.random.Generator) -> np.random.Generator:
    """A generator seeded from rng's state without drawing from it: the look varies with the seed
    while every die lands where it did before looks were added (tests rely on those layouts)."""
    return np.random.default_rng(rng.bit_generator.state["state"]["state"] & 0xFFFFFFFFFFFF)


def random_art(rng: np.random.Generator, wider: bool = False) -> Art:
    """A training style of die art; wider: the MORE_ styles too."""
    r = side_rng(rng)
    bees, honeys, zzzs = BEES, HONEYS, ZZZS
    if wider:
        bees, honeys, zzzs = bees + MORE_BEES, honeys + MORE_HONEYS, zzzs + MORE_ZZZS
    return Art(body=BODIES[int(r.integers(len(BODIES)))], bee=str(r.choice(bees)), honey=str(r.choice(honeys)),
               zzz=str(r.choice(zzzs)), scale=float(r.uniform(0.85, 1.15)), corner=int(r.integers(6, 13)),
               bevel=int(r.integers(45, 80)), gloss=float(r.uniform(0, 0.6)), tray=str(r.choice(TRAYS)))


# ---------------------------------------------------------------- symbols
def bee(img, body, wing, s, style="striped"):
    c = s // 2
    k = s / 96
    for sign in (-1, 1):  # wings first: the body covers their roots
        cv2.ellipse(img, (c + int(sign * 9 * k), c - int(14 * k)), (int(13 * k), int(8 * k)), 35 * sign, 0, 360,
                    wing, -1, cv2.LINE_AA)
    mask = np.zeros((s, s), np.uint8)
    if style == "round":
        cv2.circle(mask, (c, c + int(6 * k)), int(17 * k), 255, -1)
    elif style == "plump":  # a short, fat body with no head of its own
        cv2.ellipse(mask, (c, c + int(6 * k)), (int(22 * k), int(19 * k)), 0, 0, 360, 255, -1)
    else:
        cv2.ellipse(mask, (c + int(3 * k), c + int(6 * k)), (int(24 * k), int(15 * k)), 0, 0, 360, 255, -1)
        cv2.circle(mask, (c - int(25 * k), c + int(6 * k)), int(8 * k), 255, -1)  # head
    stripes = np.zeros((s, s), np.uint8)
    cuts = {"striped": (-6, 4, 14), "plain": (), "round": (-5, 6), "plump": (-9, 0, 9)}[style]
    for dx in cuts:  # dark stripes: what tells a bee from a honey drop, when the maker draws them
        x = c + int(dx * k)
        cv2.line(stripes, (x, 0), (x, s), 255, max(2, int(4 * k)))
    img[(mask > 0) & (stripes == 0)] = body
    img[(mask > 0) & (stripes > 0)] = (28, 28, 28)
    if style == "plain":
        cv2.circle(img, (c - int(12 * k), c + int(4 * k)), max(1, int(3 * k)), (28, 28, 28), -1, cv2.LINE_AA)  # an eye


def honey(img, colour, px, style="drop"):
    c = px // 2
    r = 18 * px // 96
    cy = c + 9 * px // 96
    if style == "hexagon":
        ang = np.arange(6) * math.pi / 3 + math.pi / 6
        pts = np.stack([c + 1.25 * r * np.cos(ang), c + 1.25 * r * np.sin(ang)], 1).astype(np.int32)
        cv2.fillConvexPoly(img, pts, colour, cv2.LINE_AA)
        cv2.circle(img, (c, c), r // 2, (28, 28, 28), -1, cv2.LINE_AA)  # the cell's hollow
        return
    if style == "round":
        cv2.circle(img, (c, c), int(r * 1.25), colour, -1, cv2.LINE_AA)
        return
    _drop(img, colour, c, cy, r, px)
    if style == "outline":  # drawn as a thick line round a drop of the body's colour
        k = 0.55
        _drop(img, tuple(int(v) for v in img[2, 2]), c, int(cy + (1 - k) * 4), int(r * k), px, k)
    elif style == "shine":  # a lamp's reflection printed on the drop
        cv2.ellipse(img, (c - r // 3, cy - r // 4), (max(2, r // 4), max(2, r // 2)), 30, 0, 360, (225, 240, 250), -1,
                    cv2.LINE_AA)


def _drop(img, colour, c, cy, r, px, k=1.0):
    cv2.circle(img, (c, cy), r, colour, -1, cv2.LINE_AA)
    tip = int(cy - (cy - (c - 30 * px // 96)) * k)
    pts = np.array([(c, tip), (c - r + 1, cy - 4), (c + r - 1, cy - 4)], np.int32)
    cv2.fillConvexPoly(img, pts, colour, cv2.LINE_AA)


_FONTS = {"simplex": cv2.FONT_HERSHEY_SIMPLEX, "duplex": cv2.FONT_HERSHEY_DUPLEX,
          "triplex": cv2.FONT_HERSHEY_TRIPLEX, "small": cv2.FONT_HERSHEY_SIMPLEX,
          "thin": cv2.FONT_HERSHEY_PLAIN, "italic": cv2.FONT_HERSHEY_DUPLEX}


def zzz(img, colour, px, style="simplex"):
    c = px // 2
    text = "zzz" if style == "small" else "Zzz"
    scale = px / 96 * {"small": 1.3, "thin": 2.2}.get(style, 1.1)  # the plain Hershey font is drawn half size
    thick = max(2, 5 * px // 96)
    font = _FONTS[style]
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    if style != "italic":
        cv2.putText(img, text, (c - tw // 2, c + th // 2), font, scale, colour, thick, cv2.LINE_AA)
        return
    # OpenCV's FONT_ITALIC leaves the duplex font upright: the letters are slanted by hand instead
    ink = np.zeros(img.shape[:2], np.uint8)
    cv2.putText(ink, text, (c - tw // 2, c + th // 2), font, scale, 255, thick, cv2.LINE_AA)
    ink = cv2.warpAffine(ink, np.float32([[1, -0.25, 0.25 * c], [0, 1, 0]]), (px, px))
    a = ink[..., None].astype(np.float32) / 255
    img[:] = (img * (1 - a) + np.float32(colour) * a).astype(np.uint8)


def pips(img, colour, px, n: int):
    """n pips as a six-sided die lays them out (1-6)."""
    c, d = px // 2, int(px * 0.26)
    spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
             4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
             6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[n]
    r = max(2, int(px * (0.11 if n == 1 else 0.085)))
    for sx, sy in spots:
        cv2.circle(img, (c + sx * d, c + sy * d), r, colour, -1, cv2.LINE_AA)


def resize_symbol(img: np.ndarray, body, scale: float) -> np.ndarray:
    if abs(scale - 1) < 1e-3:
        return img
    px = img.shape[0]
    m = cv2.getRotationMatrix2D(((px - 1) / 2, (px - 1) / 2), 0, scale)
    return cv2.warpAffine(img, m, (px, px), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=tuple(int(v) for v in body))


def distort(img: np.ndarray, art: Art, rng: np.random.Generator, amount: float) -> np.ndarray:
    """The face with its symbol drawn a little differently: turned, stretched and sheared by up to
    amount times (12 degrees, 15 %, 0.15), the bevel left where it is. Training sees many more ways
    to draw each symbol than the styles above, so the network learns what a bee is, not one bee."""
    px = img.shape[0]
    turn = np.deg2rad(rng.uniform(-12, 12) * amount)
    sx, sy = 1 + rng.uniform(-0.15, 0.15, 2) * amount
    shear = rng.uniform(-0.15, 0.15) * amount
    lin = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]) @ np.array([[sx, shear], [0, sy]])
    c = (px - 1) / 2
    m = np.hstack([lin, (np.array([c, c]) - lin @ np.array([c, c]))[:, None]]).astype(np.float32)
    body = tuple(int(v) for v in art.body)
    img = img.copy()
    cv2.rectangle(img, (0, 0), (px - 1, px - 1), body, 7)  # the bevel is not part of the symbol
    out = cv2.warpAffine(img, m, (px, px), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=body)
    cv2.rectangle(out, (1, 1), (px - 2, px - 2), (art.bevel, art.bevel, art.bevel + 2), 3)
    return out


@functools.lru_cache(maxsize=16)
def face_alpha(px: int, corner: int = 8) -> np.ndarray:
    a = np.zeros((px, px), np.uint8)
    r = px // corner  # rounded corners
    cv2.rectangle(a, (r, 0), (px - 1 - r, px - 1), 255, -1)
    cv2.rectangle(a, (0, r), (px - 1, px - 1 - r), 255, -1)
    for x, y in ((r, r), (px - 1 - r, r), (r, px - 1 - r), (px - 1 - r, px - 1 - r)):
        cv2.circle(a, (x, y), r, 255, -1, cv2.LINE_AA)
    a.setflags(write=False)
    return a


def gloss(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A lamp seen in a glossy face: a thin light arc along the rounded top edge."""
    px = img.shape[0]
    arc = np.zeros((px, px), np.float32)
    start = float(rng.uniform(0, 360))
    r = px * float(rng.uniform(0.32, 0.44))
    cv2.ellipse(arc, (px // 2, px // 2), (int(r), int(r * rng.uniform(0.85, 1.15))), 0, start,
                start + float(rng.uniform(40, 150)), 1.0, max(2, px // 40), cv2.LINE_AA)
    arc = cv2.GaussianBlur(arc, (0, 0), px / 80)
    out = img.astype(np.float32) + arc[..., None] * float(rng.uniform(90, 190))
    return np.clip(out, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------- trays
def texture(kind: str, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A (h, w, 3) brightness change for a tray surface, around 0."""
    h, w = shape
    if kind == "wood":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = float(rng.uniform(0, math.pi))
        along = xx * math.cos(a) + yy * math.sin(a)
        across = -xx * math.sin(a) + yy * math.cos(a)
        wobble = cv2.resize(rng.normal(0, 6, (h // 40 + 2, w // 40 + 2)).astype(np.float32), (w, h))
        grain = np.sin((across + wobble + 0.02 * along) * float(rng.uniform(0.15, 0.35))) * float(rng.uniform(5, 14))
        return np.stack([grain * 0.7, grain * 0.9, grain], axis=2)
    if kind == "felt":
        fine = rng.normal(0, 6, (h, w)).astype(np.float32)
        return np.repeat(cv2.GaussianBlur(fine, (0, 0), 0.8)[..., None], 3, axis=2)
    if kind == "cloth":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        p = float(rng.uniform(3, 7))
        weave = (np.sin(xx * 2 * math.pi / p) * np.sin(yy * 2 * math.pi / p)) * float(rng.uniform(4, 9))
        return np.repeat(weave[..., None], 3, axis=2)
    if kind == "printed":
        out = np.zeros((h, w, 3), np.float32)
        for _ in range(int(rng.integers(6, 16))):  # a board's printing: light shapes and lines
            colour = tuple(float(v) for v in rng.uniform(-35, 10, 3))
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            if rng.random() < 0.5:
                cv2.circle(out, (x, y), int(rng.integers(15, 80)), colour, -1, cv2.LINE_AA)
            else:
                cv2.line(out, (x, y), (int(rng.integers(0, w)), int(rng.integers(0, h))), colour,
                         int(rng.integers(2, 6)), cv2.LINE_AA)
        return out
    return np.zeros((h, w, 3), np.float32)
