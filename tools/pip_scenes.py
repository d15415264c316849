"""Rendered trays of pip dice for training the pip reader (tools/train_pips.py), never for judging it.

The real photos show one camera, one sheet and a few dozen dice; the reader must also read other
people's dice on other cloths under other lamps and tilted cameras. So the renderer varies what a
die maker and a table vary: body colour (plain, marbled, translucent, glossy), pip colour, size and
spacing, a red or large single pip, corner radius, side faces of a tilted view, shading, lamp
highlights, shadows, dice touching or cut by the photo's edge, and trays of plain colour, felt,
wood, cloth and printed boards with marks, holes, bars and pens that are no dice. A die the reader must
call unknown is drawn too: covered by a finger, leaning on another (cocked), or cut by the edge.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.demo.art import texture

FPX = 64  # a face is drawn this large, then warped to its place
PLACES = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
          4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
          6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}
UNKNOWN = 0  # the value of a die that cannot be read (covered, cocked, cut)
NONE_HERE = -1  # the value of a place that looks like a die and holds none (a pen's end)


def _colour(rng, light=None):
    """A BGR colour of any hue; light True/False asks for a light or a dark one."""
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(0, 256), rng.integers(20, 256)]]])
    if light is True:
        hsv[0, 0, 2] = rng.integers(170, 256)
        hsv[0, 0, 1] = rng.integers(0, 120)
    elif light is False:
        hsv[0, 0, 2] = rng.integers(10, 90)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _hue_apart(rng) -> tuple[np.ndarray, np.ndarray]:
    """A body and pips of about one brightness, told apart by their hue: red pips on a blue or smoky
    die, gold on red. The real photos' dice the reader missed were of this kind, and a grey picture
    of them shows hardly any pips."""
    weights = np.float32([0.11, 0.59, 0.3])
    hue = int(rng.integers(0, 180))
    body = cv2.cvtColor(np.uint8([[[hue, rng.integers(0, 256), rng.integers(30, 230)]]]), cv2.COLOR_HSV2BGR)[0, 0]
    body = body.astype(np.float32)
    want = float(body @ weights) + rng.choice([-1, 1]) * rng.uniform(8, 60)
    pip_hue = (hue + int(rng.integers(30, 91))) % 180
    sat = int(rng.integers(120, 256))
    # the pip's brightness nearest the one wanted; a paler pip where its hue cannot be that bright (blue)
    tries = cv2.cvtColor(np.uint8([[[pip_hue, s, v] for s in (sat, sat // 2, sat // 4) for v in range(20, 256, 5)]]),
                         cv2.COLOR_HSV2BGR)[0].astype(np.float32)
    return body, tries[int(np.argmin(np.abs(tries @ weights - want)))]


def look(rng) -> dict:
    """One die maker's style."""
    kind = rng.random()
    if kind < 0.25:
        body, pip = _colour(rng, True) * 0 + rng.uniform(200, 250), _colour(rng, False)  # white with dark pips
        if rng.random() < 0.3:
            pip = np.float32([40, 40, 200]) * rng.uniform(0.6, 1.1)  # red pips
    elif kind < 0.45:
        body, pip = _colour(rng, False), _colour(rng, True)  # dark body, light pips
    elif kind < 0.65:
        body, pip = _hue_apart(rng)
    else:
        body = _colour(rng)
        lum = float(body @ np.float32([0.11, 0.59, 0.3]))
        pip = _colour(rng, lum < 130)
        if abs(float(pip @ np.float32([0.11, 0.59, 0.3])) - lum) < 60:
            pip = np.float32([245, 245, 245]) if lum < 130 else np.float32([25, 25, 25])
    return {"body": body, "pip": pip, "corner": rng.uniform(0.04, 0.25), "pip_r": rng.uniform(0.065, 0.11),
            "gap": rng.uniform(0.23, 0.3), "one_r": rng.uniform(1.0, 1.6), "one_red": rng.random() < 0.15,
            "marbled": rng.random() < 0.2, "gloss": rng.uniform(0, 0.6) if rng.random() < 0.4 else 0.0,
            "ring": rng.random() < 0.2, "depth": rng.uniform(0.0, 0.18)}


def face(value: int, lk: dict, rng) -> tuple[np.ndarray, np.ndarray]:
    """A die's top face seen from above, FPX square: colour (float BGR) and coverage (0-1)."""
    alpha = np.zeros((FPX, FPX), np.float32)
    r = max(1, int(FPX * lk["corner"]))
    cv2.rectangle(alpha, (r, 0), (FPX - 1 - r, FPX - 1), 1.0, -1)
    cv2.rectangle(alpha, (0, r), (FPX - 1, FPX - 1 - r), 1.0, -1)
    for cx in (r, FPX - 1 - r):
        for cy in (r, FPX - 1 - r):
            cv2.circle(alpha, (cx, cy), r, 1.0, -1, cv2.LINE_AA)
    body = np.broadcast_to(lk["body"], (FPX, FPX, 3)).astype(np.float32)
    if lk["marbled"]:
        swirl = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (FPX, FPX), interpolation=cv2.INTER_CUBIC)
        body = body * (1 + 0.25 * np.tanh(swirl))[..., None]
    dist = cv2.distanceTransform((alpha > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
    rim = 0.7 + 0.3 * np.clip(dist / (FPX * rng.uniform(0.04, 0.12)), 0, 1)  # the rounded edge falls away
    yy, xx = np.mgrid[0:FPX, 0:FPX].astype(np.float32) / FPX - 0.5
    a = rng.uniform(0, 2 * math.pi)
    slope = 1 + rng.uniform(0, 0.3) * (xx * math.cos(a) + yy * math.sin(a))  # the lamp from one side
    img = np.ascontiguousarray(body * (rim * slope)[..., None], np.float32)
    c, g = FPX / 2, FPX * lk["gap"]
    rad = FPX * lk["pip_r"]
    quarter = rng.random() < 0.5  # a 2, 3 or 6 lies along either diagonal / axis
    for dx, dy in PLACES[value]:
        if quarter:
            dx, dy = -dy, dx
        colour = lk["pip"]
        rr = rad * (lk["one_r"] if value == 1 else 1.0)
        if value == 1 and lk["one_red"]:
            colour = np.float32([40, 40, 210])
        centre = (int(round((c + dx * g) * 16)), int(round((c + dy * g) * 16)))
        if lk["ring"]:
            cv2.circle(img, centre, int(rr * 1.25 * 16), tuple(float(v) * 0.8 for v in lk["body"]), -1, cv2.LINE_AA, 4)
        cv2.circle(img, centre, int(rr * 16), tuple(float(v) for v in colour), -1, cv2.LINE_AA, 4)
    if lk["gloss"]:
        gx, gy = rng.uniform(0.2, 0.8, 2) * FPX
        spot = np.exp(-(((xx + 0.5) * FPX - gx) ** 2 + ((yy + 0.5) * FPX - gy) ** 2) / (2 * (FPX * rng.uniform(0.05, 0.2)) ** 2))
        img = img + spot[..., None] * 255 * lk["gloss"]
    return np.clip(img, 0, 255), alpha


def _paste(canvas: np.ndarray, src: np.ndarray, alpha: np.ndarray, hom: np.ndarray) -> None:
    """Warp src (FPX square, float) with coverage alpha by the 3x3 homography into canvas (float), in place."""
    h, w = src.shape[:2]
    pts = cv2.perspectiveTransform(np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), hom)[0]
    x0, y0 = np.maximum(np.floor(pts.min(0)) - 2, 0).astype(int)
    x1, y1 = np.minimum(np.ceil(pts.max(0)) + 2, (canvas.shape[1], canvas.shape[0])).astype(int)
    if x1 <= x0 or y1 <= y0:
        return
    m = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ hom
    size = (int(x1 - x0), int(y1 - y0))
    layer = cv2.warpPerspective(src, m, size, flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR)[..., None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + layer * a


def _hom(x, y, side, angle, tilt) -> np.ndarray:
    """FPX face square -> a die `side` across at (x, y), turned `angle` radians, squashed by a tilted camera."""
    s = side / FPX
    ca, sa = math.cos(angle) * s, math.sin(angle) * s
    c = FPX / 2
    rot = np.array([[ca, -sa, 0], [sa, ca, 0], [0, 0, 1]], np.float64)
    return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]]) @ tilt @ rot @ np.array([[1, 0, -c], [0, 1, -c], [0, 0, 1]])


def tray(rng, h: int, w: int) -> np.ndarray:
    """An empty surface (float BGR): a colour, a texture, a lamp's fall-off."""
    base = _colour(rng, True if rng.random() < 0.4 else None)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    kind = rng.choice(["plain", "plain", "wood", "felt", "cloth", "printed", "noise"])
    if kind == "noise":
        blob = cv2.resize(rng.normal(0, 1, (h // 16 + 2, w // 16 + 2, 3)).astype(np.float32), (w, h))
        img += blob * rng.uniform(5, 30)
    else:
        img += texture(str(kind), (h, w), rng) * rng.uniform(0.5, 2.0)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(-0.5, 1.5) * w, rng.uniform(-0.5, 1.5) * h
    fall = 1 - rng.uniform(0, 0.45) * np.clip(((xx - cx) ** 2 + (yy - cy) ** 2) / (w * w + h * h), 0, 1)
    return img * fall[..., None]


def rod(img: np.ndarray, rng, x: float, y: float, size: float) -> None:
    """A pen, pencil or stick lying on the table from its end at (x, y): a long round body shaded as
    a cylinder, a shine along it, the end rounded or flat, sometimes a tip or cap of another colour.
    The end is what a finder takes for a die (a pen's end seen by a tilted camera was read as a six)."""
    h, w = img.shape[:2]
    r = size * rng.uniform(0.12, 0.35)
    length = size * rng.uniform(2, 10)
    a = rng.uniform(0, 2 * math.pi)
    ux, uy = math.cos(a), math.sin(a)
    colour, cap = _colour(rng), _colour(rng)
    capped = rng.random() < 0.4
    x0, x1 = int(max(0, min(x, x + ux * length) - r - 1)), int(min(w, max(x, x + ux * length) + r + 2))
    y0, y1 = int(max(0, min(y, y + uy * length) - r - 1)), int(min(h, max(y, y + uy * length) + r + 2))
    if x1 <= x0 or y1 <= y0:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    along = (xx - x) * ux + (yy - y) * uy
    across = -(xx - x) * uy + (yy - y) * ux
    if rng.random() < 0.6:  # a rounded end
        d = np.where(along < 0, np.hypot(along, across), np.abs(across))
    else:
        d = np.where(along < 0, np.inf, np.abs(across))
    inside = (d < r) & (along < length)
    c = np.clip(across / r, -1, 1)
    shade = 0.45 + 0.55 * np.sqrt(1 - c ** 2)  # a cylinder lit from above
    shine = np.exp(-((c - rng.uniform(-0.5, 0.5)) / 0.15) ** 2) * rng.uniform(0, 120)
    body = np.where((capped & (along < r * rng.uniform(1, 4)))[..., None], cap, colour)
    paint = body * shade[..., None] + shine[..., None]
    img[y0:y1, x0:x1][inside] = paint[inside]


def distractors(img: np.ndarray, rng, size: float) -> list[tuple[float, float]]:
    """Things on a table that are no die: holes, bars, lines, dots in clusters, a card's corner, pens.
    Returns the pens' ends, for the reader to learn that they are no die."""
    h, w = img.shape[:2]
    ends = []
    for _ in range(int(rng.integers(0, 7))):
        colour = tuple(float(v) for v in _colour(rng))
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        k = rng.random()
        if k < 0.12:  # a pen or a pencil
            rod(img, rng, x, y, size)
            ends.append((x, y))
        elif k < 0.3:  # a hole or a coin
            cv2.circle(img, (x, y), int(size * rng.uniform(0.2, 0.8)), colour, -1, cv2.LINE_AA)
        elif k < 0.48:  # a bar or a card
            bw, bh = size * rng.uniform(0.5, 6), size * rng.uniform(0.3, 2.5)
            box = cv2.boxPoints(((x, y), (bw, bh), rng.uniform(0, 180))).astype(np.int32)
            cv2.fillPoly(img, [box], colour, cv2.LINE_AA)
        elif k < 0.66:  # a line or an edge
            cv2.line(img, (x, y), (int(rng.integers(0, w)), int(rng.integers(0, h))), colour,
                     int(rng.integers(1, 4)), cv2.LINE_AA)
        elif k < 0.85:  # loose dots like pips with no die round them
            for _ in range(int(rng.integers(2, 7))):
                cv2.circle(img, (int(x + rng.normal(0, size * 0.3)), int(y + rng.normal(0, size * 0.3))),
                           max(1, int(size * 0.08)), colour, -1, cv2.LINE_AA)
        else:  # a shadow
            sh = np.zeros((h, w), np.float32)
            cv2.ellipse(sh, (x, y), (int(size * rng.uniform(0.5, 2)), int(size * rng.uniform(0.3, 1))),
                        rng.uniform(0, 180), 0, 360, 1.0, -1)
            img *= (1 - rng.uniform(0.2, 0.5) * cv2.GaussianBlur(sh, (0, 0), size * 0.2))[..., None]
    return ends


def _die(img, rng, lk, x, y, side, angle, tilt, value, light) -> None:
    """One die with its shadow and side faces; value UNKNOWN draws a cocked die."""
    _, alpha = face(1, lk, rng)
    sh = _hom(x + light[0] * side, y + light[1] * side, side * 1.05, angle, tilt)
    dark = cv2.GaussianBlur(alpha, (0, 0), FPX * 0.1) * rng.uniform(0.15, 0.55)
    ds = np.zeros_like(img)
    _paste(ds, np.ones((FPX, FPX, 3), np.float32), dark, sh)
    img *= 1 - ds
    if lk["depth"] > 0:  # the side faces a camera that is not straight above sees
        d = lk["depth"] * side
        a = rng.uniform(0, 2 * math.pi)
        side_face = np.broadcast_to(lk["body"] * rng.uniform(0.45, 0.8), (FPX, FPX, 3)).astype(np.float32)
        for t in np.linspace(0, 1, 4):
            _paste(img, side_face, alpha, _hom(x + math.cos(a) * d * t, y + math.sin(a) * d * t, side, angle, tilt))
    if value == UNKNOWN:  # cocked: the top face foreshortened, another face beside it
        squash = rng.uniform(0.35, 0.7)
        for v, off, shade in ((int(rng.integers(1, 7)), -0.5, 0.7), (int(rng.integers(1, 7)), squash / 2, 1.0)):
            f, fa = face(v, lk, rng)
            sq = np.diag([1.0, squash if shade == 1.0 else math.sqrt(1 - squash ** 2), 1.0])
            turn = np.array([[math.cos(angle), -math.sin(angle), 0], [math.sin(angle), math.cos(angle), 0], [0, 0, 1]])
            shift = turn @ np.array([[1, 0, 0], [0, 1, off * side * 0.5], [0, 0, 1]]) @ np.linalg.inv(turn)
            hom = shift @ _hom(x, y, side, angle, tilt) @ np.array([[1, 0, FPX / 2], [0, 1, FPX / 2], [0, 0, 1]]) @ sq \
                @ np.array([[1, 0, -FPX / 2], [0, 1, -FPX / 2], [0, 0, 1]])
            _paste(img, f * shade, fa, hom)
        return
    f, fa = face(value, lk, rng)
    _paste(img, f, fa, _hom(x, y, side, angle, tilt))


def scene(rng, h: int, w: int, count: int | None = None, sizes=(10.0, 70.0), centre=None):
    """A rendered tray, (uint8 BGR image, dice) with dice as (x, y, box side, value) where value is
    1-6 or UNKNOWN (covered, cocked or mostly outside the picture). centre=(x, y, side) puts one die
    there (for crops)."""
    img = tray(rng, h, w)
    size = float(np.exp(rng.uniform(*np.log(sizes)))) if centre is None else centre[2]
    ends = distractors(img, rng, size)
    if count is None:
        count = int(rng.integers(0, 26)) if rng.random() < 0.8 else int(rng.integers(0, 4))
    tilt = np.eye(3)
    if rng.random() < 0.5:  # a camera not straight above: faces squashed and sheared a little
        tilt[:2, :2] = np.eye(2) + rng.uniform(-0.12, 0.12, (2, 2))
    la = rng.uniform(0, 2 * math.pi)
    light = (math.cos(la) * rng.uniform(0, 0.15), math.sin(la) * rng.uniform(0, 0.15))
    looks = [look(rng) for _ in range(int(rng.integers(1, 5)))]
    dice, places = [], []
    if centre is not None:
        places.append((centre[0], centre[1]))
    for _ in range(count * 4):
        if len(places) >= count + (centre is not None):
            break
        if places and rng.random() < 0.5:  # near another: touching dice
            px, py = places[int(rng.integers(0, len(places)))]
            a = rng.uniform(0, 2 * math.pi)
            d = size * rng.uniform(0.95, 1.5)
            x, y = px + math.cos(a) * d, py + math.sin(a) * d
        else:
            x, y = rng.uniform(-0.1, 1.1) * w, rng.uniform(-0.1, 1.1) * h
        if all((x - qx) ** 2 + (y - qy) ** 2 > (0.95 * size) ** 2 for qx, qy in places):
            places.append((x, y))
    for x, y in places:
        side = size * rng.uniform(0.9, 1.1)
        angle = rng.uniform(0, 2 * math.pi)
        value = int(rng.integers(1, 7)) if rng.random() > 0.06 else UNKNOWN
        _die(img, rng, looks[int(rng.integers(0, len(looks)))], x, y, side, angle, tilt, value, light)
        box = side * (abs(math.cos(angle)) + abs(math.sin(angle)))  # the upright box round the turned die
        inside = (min(x + box / 2, w) - max(x - box / 2, 0)) * (min(y + box / 2, h) - max(y - box / 2, 0)) / box ** 2
        if inside < 0.75:
            value = UNKNOWN
        if not (0 <= x < w and 0 <= y < h):
            continue
        dice.append([x, y, box, value])
    if rng.random() < 0.15 and dice:  # a finger or a card over a die: it cannot be read
        d = dice[int(rng.integers(0, len(dice)))]
        cover = tuple(float(v) for v in _colour(rng))
        a = rng.uniform(0, 2 * math.pi)
        r = d[2] * rng.uniform(0.3, 0.7)
        cv2.ellipse(img, (int(d[0] + math.cos(a) * d[2] * 0.25), int(d[1] + math.sin(a) * d[2] * 0.25)),
                    (int(d[2] * 1.5), int(r)), math.degrees(a) + 90, 0, 360, cover, -1, cv2.LINE_AA)
        d[3] = UNKNOWN
    # a pen's end that no die was drawn over is a place with no die
    dice += [[x, y, size, NONE_HERE] for x, y in ends if 0 <= x < w and 0 <= y < h
             and all((x - qx) ** 2 + (y - qy) ** 2 > (1.2 * size) ** 2 for qx, qy in places)]
    return finish(img, rng), dice


def finish(img: np.ndarray, rng) -> np.ndarray:
    """Camera effects: exposure, colour cast, blur, noise."""
    img = img * rng.uniform(0.6, 1.3) + rng.uniform(-25, 25)
    img = img * rng.uniform(0.85, 1.15, 3)
    if rng.random() < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.5))
    img = img + rng.normal(0, rng.uniform(0, 8), img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)
