"""What the classifier sees of one die: a small map of its symbol, square to the die, and its views.

A die is cut out square to its own edges, a little inside them (the detector
measures the whole die, rounded rim included). Centre and size errors of the
detector are not undone here: calibration and training show the reader dice
cut a little off centre and off size instead (calibrate.augment). The map holds
how far each spot of the face is from the die's own colour ("ink", whatever
the symbol's colour: yellow, green, white or red) and the direction of that
colour, on a G x G grid. The corners are left out (rounded corners show the
tray). A quarter turn or a mirror of the crop is handled where maps are
compared (`dihedral`), not here.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

PATCH = 32  # pixels of the final square crop
G = 8  # side of the symbol map
CHANNELS = 4  # ink, then three colour-direction channels weighted by ink
DIM = G * G * CHANNELS
INK_SCALE = 0.5  # colour distance (in tray units) that counts as full ink
COLOUR_WEIGHT = 0.3  # how much the symbol's colour counts beside its shape
MARGIN = 0.08  # share of the crop cut off each side: the die's bevel
CROP = 0.95  # share of the detector's die side that is cut out
_s = PATCH - 2 * int(round(PATCH * MARGIN))
_yy, _xx = np.mgrid[0:_s, 0:_s].astype(np.float32) - (_s - 1) / 2
_R = (np.abs(_xx) ** 4 + np.abs(_yy) ** 4) ** 0.25 / (_s / 2)  # a rounded square
FACE_W = np.clip((0.8 - _R) / 0.1, 0, 1).astype(np.float32)
CENTRE = _R < 0.7
_MIDDLE = int(CENTRE.sum()) // 2  # the middle rank of the face's centre pixels, for their median


# numpy's reductions over a last axis of three (a pixel's channels) are several times slower than the
# same sums and maxima written out, and these run on every crop of every die
def channel_max(p: np.ndarray) -> np.ndarray:
    return np.maximum(np.maximum(p[..., 0], p[..., 1]), p[..., 2])


def channel_min(p: np.ndarray) -> np.ndarray:
    return np.minimum(np.minimum(p[..., 0], p[..., 1]), p[..., 2])


def channel_sum(p: np.ndarray) -> np.ndarray:
    """p.sum(axis=2), added in the same order."""
    return p[..., 0] + p[..., 1] + p[..., 2]


def crop(frame: np.ndarray, x: float, y: float, side: float, angle: float, scale: float = 1.05,
         size: int = PATCH) -> np.ndarray:
    """The die cut out square to its edges, size x size pixels."""
    s = size / (side * scale)
    ca, sa = math.cos(angle) * s, math.sin(angle) * s
    c = (size - 1) / 2
    m = np.array([[ca, sa, c - ca * x - sa * y], [-sa, ca, c + sa * x - ca * y]], np.float32)
    return cv2.warpAffine(frame, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def face_map(patch: np.ndarray, tray: np.ndarray) -> np.ndarray:
    """The symbol map of a PATCH x PATCH crop, as a unit vector of DIM numbers."""
    return face_maps(patch[None], tray)[0]


def face_maps(patches: np.ndarray, tray: np.ndarray) -> np.ndarray:
    """face_map of each of n crops (n, PATCH, PATCH, 3) -> (n, DIM), in one pass over all of them:
    numpy's cost on crops this small is in each call, not in each pixel."""
    p = patches.astype(np.float32) / tray.reshape(1, 1, 1, 3)
    m = int(round(PATCH * MARGIN))
    p = p[:, m:PATCH - m, m:PATCH - m]
    body = _median(p[:, CENTRE])  # the symbol covers less than half of the face's middle
    a = p - body[:, None, None]
    ink = np.minimum(np.sqrt(channel_sum(a * a)) / INK_SCALE, 1.0) * FACE_W
    chroma = a - (channel_sum(a) / 3)[..., None]
    chroma *= (ink * COLOUR_WEIGHT / (np.sqrt(channel_sum(chroma * chroma)) + 0.05))[..., None]
    maps = np.concatenate([ink[..., None], chroma], axis=3)
    out = np.empty((len(maps), DIM), np.float32)
    for i, one in enumerate(maps):  # OpenCV's area resize takes at most four channels: one die at a time
        d = cv2.resize(one, (G, G), interpolation=cv2.INTER_AREA).ravel()
        out[i] = d / max(float(np.linalg.norm(d)), 0.05)
    return out


def _median(a: np.ndarray) -> np.ndarray:
    """np.median(a, axis=-2) of each die's centre pixels (n, CENTRE.sum(), 3), without np.median's
    general machinery: it is read for every die twice."""
    if a.shape[-2] % 2:
        return np.partition(a, _MIDDLE, axis=-2)[..., _MIDDLE, :]
    return np.partition(a, (_MIDDLE - 1, _MIDDLE), axis=-2)[..., _MIDDLE - 1:_MIDDLE + 1, :].mean(axis=-2)


def _turns(n: int) -> list[np.ndarray]:
    """Where each cell of an n x n grid comes from in the 8 quarter turns and mirrors, in the order
    np.rot90(k) for k = 0..3, each followed by its rows upside down."""
    cells = np.arange(n * n).reshape(n, n)
    out = []
    for k in range(4):
        r = np.rot90(cells, k)
        out += [r.ravel(), r[::-1].ravel()]
    return out


_MAP_TURNS = np.stack(_turns(G))  # (8, G*G)


def dihedral(x: np.ndarray) -> np.ndarray:
    """The 8 quarter turns and mirrors of maps (n, DIM) -> (n, 8, DIM): a die's symbol may point
    along any edge, and a die seen from above is only known up to these."""
    g = x.reshape(-1, G * G, CHANNELS)
    return g[:, _MAP_TURNS].reshape(len(x), 8, DIM)


# ---------------------------------------------------------------- views: what a calibrated model compares
# A histogram of edge directions (HOG) over the brightness of the die's face says where the symbol's
# edges are and which way they run, whatever the symbol's colour and however bright the lamp: a red
# pip and a white one give the same edges, and glare moves a few cells, not the whole vector. On the
# real photos it put a left-out die nearer its own face than the symbol map did (24 of 25 against 21).
# The symbol map rides along at a small weight for the colour (a yellow bee and a green ZomBee have
# the same outline).
VIEW_PATCH = 38  # pixels of the crop a view is made from; its middle HOG_SIDE square is the face
HOG_SIDE = 32
# A calibrated model's views are made from the crop blurred a little first (Model.soften): the edge
# directions of a face 32 px across then follow its pips and symbol, not a noisy sensor's grain or a
# coarse JPEG's blocks. Over the changed real cameras, two calibration seeds, this read 2905 of 3150
# dice right instead of 2859 and 494 of 550 fives and sixes unknown instead of 486 (a dim, noisy room
# 105 -> 118 of 126). A sigma of 0.8 read 2896 and 501, but rendered pip dice then read 10 of 565 sure
# dice wrong (0.6: 5, none: 2); 1.1 read 2859 and 510. The shipped network learned unblurred edges:
# it is never given these.
SOFTEN = 0.6  # sigma of that blur, in pixels of the VIEW_PATCH crop
# A calibrated views model reads a die again from four more cuts, this much of a side off centre left,
# right, up and down, and takes each face's distance from the nearest of the five (model.Model.nudge,
# dice_views): the detector's centre is off by a pixel or two, more under a soft focus, a shake or a
# glare that moves the outline, and a HOG's 8 px cells then see a pip on the other side of a cell's
# edge. Only dice read less surely than reader.SURE are cut again, and only by a model with no
# network (which names the face from one cut: there five changed nothing and cost time). Over the
# real photos under the changed cameras (bench/cameras.py, four calibration seeds): 6066 of 6300
# dice right instead of 6035, combined changes 1852 of 2016 instead of 1832, fives and sixes
# `unknown` 1031 of 1100 as before; 0.02 or 0.05 of a side gained less. Calibration's own check reads
# one cut: read from five there as well, the confidence came out sharper and the combined changes
# read 907 instead of 921 (seeds 0, 1)
NUDGE = 0.03
# A glossy die under a lamp carries a highlight, a streak or a wedge across its face thinner than a
# pip, whose edges the views take for a symbol's: a real 3 with a glare V over its corner pip read
# `unknown` (0.58), and under the changed cameras (bench/cameras.py) it was 24 of the 53 dice read
# wrong. A grey opening of the die's brightness by a disc GLARE_DISC px across (of the VIEW_PATCH crop:
# about a sixth of the face, where a pip is a quarter) takes down whatever bright is thinner than the
# disc and leaves pips whole (deglared). A doubtful die is read so once more (reader.GLARE_SURE). 5 px
# kept more of the streak (the 3 read 0.60); 9 px read 1540 of the 1575 dice under the changed cameras
# (7 px: 1534) but took more of a 6's small pips (fives and sixes `unknown` 260 of 275; 7 px: 261)
GLARE_DISC = 7
_GLARE_DISC = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (GLARE_DISC, GLARE_DISC))
_HOG = cv2.HOGDescriptor((HOG_SIDE, HOG_SIDE), (16, 16), (8, 8), (8, 8), 9)
# A calibrated model's views tell the two sides of an edge apart (Model.signed): the directions over a
# whole turn, in 10 bins of 36 degrees, where the shipped model's (and its network's) fold a turn in
# half into 9 bins of 20. A pip's rim then says the pip is lighter than the face, and a glare arc's
# rim or a shadow's edge does not pass for it. Over the real photos under 25 changed cameras, two
# calibration seeds: 2977 of 3150 dice right instead of 2928, fives and sixes unknown 511 of 550
# times instead of 496, sure and wrong 3 dice instead of 4 (18 bins of 20 degrees: 2951, 511, 5)
SIGNED_BINS = 10
# the arguments after the bins are OpenCV's defaults (aperture, sigma, L2-Hys at 0.2, no gamma,
# levels), then signedGradient
_SIGNED_HOG = cv2.HOGDescriptor((HOG_SIDE, HOG_SIDE), (16, 16), (8, 8), (8, 8), SIGNED_BINS, 1, -1,
                                cv2.HOGDescriptor_L2Hys, 0.2, False, cv2.HOGDescriptor_DEFAULT_NLEVELS, True)
HOG_DIM = int(_HOG.getDescriptorSize())
VIEW_MAP_WEIGHT = 0.3
VIEW_DIM = HOG_DIM + DIM
SIGNED_VIEW_DIM = int(_SIGNED_HOG.getDescriptorSize()) + DIM


def view_dim(signed: bool = False) -> int:
    """Numbers in one view: its edge directions (signed or not, see SIGNED_BINS) and its symbol map."""
    return SIGNED_VIEW_DIM if signed else VIEW_DIM


def _face_brightness(patches: np.ndarray, tray: np.ndarray, soften: float = 0.0) -> np.ndarray:
    """The middle HOG_SIDE square of each VIEW_PATCH crop (n, VIEW_PATCH, VIEW_PATCH, 3): brightness
    in tray units, stretched to 0-255; each crop blurred by soften (sigma, pixels) first when given."""
    if soften:
        patches = np.stack([cv2.GaussianBlur(p, (0, 0), soften) for p in patches])
    v = channel_max(patches.astype(np.float32) / tray.reshape(1, 1, 1, 3))
    m = (VIEW_PATCH - HOG_SIDE) // 2
    v = v[:, m:m + HOG_SIDE, m:m + HOG_SIDE]
    stretch = np.array([255 / max(_bright_end(one), 1e-3) for one in v], np.float32)[:, None, None]
    return np.clip(v * stretch, 0, 255).astype(np.uint8)


_END = 0.98 * (HOG_SIDE * HOG_SIDE - 1)  # the rank of np.quantile(v, 0.98) in the face's pixels
_END_LOW, _END_T = int(_END), _END - int(_END)


def _bright_end(v: np.ndarray) -> float:
    """np.quantile(v, 0.98) of a HOG_SIDE square, as numpy works it out (between two ranks), without
    its general machinery: it is read for every die."""
    lo, hi = np.partition(v.ravel(), (_END_LOW, _END_LOW + 1))[_END_LOW:_END_LOW + 2]
    return float(hi - (hi - lo) * (1 - _END_T) if _END_T >= 0.5 else lo + (hi - lo) * _END_T)


def _joined(hogs: np.ndarray, maps: np.ndarray) -> np.ndarray:
    hogs = hogs / np.maximum(np.linalg.norm(hogs, axis=-1, keepdims=True), 1e-6)
    out = np.concatenate([hogs, VIEW_MAP_WEIGHT * maps], axis=-1)
    return (out / np.linalg.norm(out, axis=-1, keepdims=True)).astype(np.float32)


def _small(patch: np.ndarray) -> np.ndarray:
    return cv2.resize(patch, (PATCH, PATCH), interpolation=cv2.INTER_AREA)


def view(patch: np.ndarray, tray: np.ndarray, light: np.ndarray | None = None, soften: float = 0.0,
         signed: bool = False) -> np.ndarray:
    """One VIEW_PATCH crop as a unit vector of view_dim(signed) numbers (edge directions, then the
    symbol map; light, soften and signed: see views_of)."""
    faces = _face_brightness(patch[None], tray if light is None else light, soften)
    return _joined(_hogs(faces, signed)[0], face_map(_small(patch), tray))


def views(patch: np.ndarray, tray: np.ndarray, light: np.ndarray | None = None, soften: float = 0.0,
          signed: bool = False) -> np.ndarray:
    """(8, view_dim(signed)): the view of each quarter turn and mirror of the crop, in dihedral's order."""
    return views_of(patch[None], tray, light, soften, signed)[0]


def views_of(patches: np.ndarray, tray: np.ndarray, light: np.ndarray | None = None,
             soften: float = 0.0, signed: bool = False) -> np.ndarray:
    """views of each of n crops (n, VIEW_PATCH, VIEW_PATCH, 3) -> (n, 8, view_dim(signed)). The symbol
    maps take the die's colours divided by tray (the tray's colour); the edge directions its brightness
    divided by light (model.white), the tray when None, from the crop blurred by soften (SOFTEN), over
    a whole turn when signed (SIGNED_BINS)."""
    faces = _face_brightness(patches, tray if light is None else light, soften)
    turns = []
    for k in range(4):
        r = np.rot90(faces, k, axes=(1, 2))
        turns += [r, r[:, ::-1]]
    maps = face_maps(np.stack([_small(p) for p in patches]), tray)
    return _joined(_hogs(np.stack(turns, axis=1), signed), dihedral(maps))


def stacked(squares: np.ndarray) -> np.ndarray:
    """n squares (n, s, s) one above the other, each bordered by a pixel as OpenCV borders an image
    (reflect-101): an operator that reaches one pixel around (Sobel, HOG's gradients) gives each
    square, in one call for all of them, what it would give it alone. Square i starts at 1 + i(s+2)."""
    n, s = squares.shape[:2]
    return np.pad(squares, ((0, 0), (1, 1), (1, 1)), mode="reflect").reshape(n * (s + 2), s + 2)


def _hogs(faces: np.ndarray, signed: bool = False) -> np.ndarray:
    """The HOG of each HOG_SIDE square of faces (..., HOG_SIDE, HOG_SIDE), in one call: its cost is
    mostly in each call. signed: directions over a whole turn (SIGNED_BINS)."""
    squares = faces.reshape(-1, HOG_SIDE, HOG_SIDE)
    at = [(1, 1 + i * (HOG_SIDE + 2)) for i in range(len(squares))]
    hog = _SIGNED_HOG if signed else _HOG
    return hog.compute(stacked(squares), (8, 8), (0, 0), at).reshape(*faces.shape[:-2], -1)


def view_patch(frame: np.ndarray, x: float, y: float, side: float, angle: float) -> np.ndarray:
    return crop(frame, x, y, side, angle, CROP, VIEW_PATCH)


def die_views(frame: np.ndarray, blob, side: float, tray: np.ndarray, light: np.ndarray | None = None,
              soften: float = 0.0, signed: bool = False) -> np.ndarray:
    return dice_views(frame, [blob], side, tray, light, soften, signed)[0]


def deglared(patches: np.ndarray) -> np.ndarray:
    """Crops (n, VIEW_PATCH, VIEW_PATCH, 3) with whatever is bright and thinner than GLARE_DISC (a
    lamp's streak) taken down to the face around it, pips left whole (see GLARE_DISC)."""
    v = channel_max(patches.astype(np.float32))
    opened = np.stack([cv2.morphologyEx(one, cv2.MORPH_OPEN, _GLARE_DISC) for one in v])
    keep = np.minimum(opened / np.maximum(v, 1), 1)
    return np.clip(patches * keep[..., None], 0, 255).astype(patches.dtype)


def dice_views(frame: np.ndarray, blobs, side: float, tray: np.ndarray, light: np.ndarray | None = None,
               soften: float = 0.0, signed: bool = False, nudge: float = 0.0, deglare: bool = False) -> np.ndarray:
    """views of each blob's die in frame, (n, 8, view_dim(signed)) (light, soften, signed: see views_of).
    nudge: instead, the views of four cuts of each die, nudge of a side off centre left, right, up and
    down (model.Model.nudge), (n, 32, view_dim(signed)). deglare: then the views of one more cut of each,
    at its centre with a lamp's streaks taken down (deglared), last (8 more per die). In one call: most
    of a HOG's cost is in each call."""
    steps = ((1, 0), (-1, 0), (0, 1), (0, -1)) if nudge else ((0, 0),)
    reach = nudge * side
    patches = []
    for b in blobs:
        patches += [view_patch(frame, b.x + dx * reach, b.y + dy * reach, side, b.angle) for dx, dy in steps]
        if deglare:
            patches.append(deglared(view_patch(frame, b.x, b.y, side, b.angle)[None])[0])
    out = views_of(np.stack(patches), tray, light, soften, signed)
    return out.reshape(len(blobs), -1, out.shape[-1])


def die_features(frame: np.ndarray, blob, side: float, tray: np.ndarray) -> np.ndarray:
    return dice_maps(frame, [blob], side, tray)[0]


def dice_maps(frame: np.ndarray, blobs, side: float, tray: np.ndarray) -> np.ndarray:
    """The symbol map of each blob's die in frame, (n, DIM)."""
    return face_maps(np.stack([crop(frame, b.x, b.y, side, b.angle, CROP) for b in blobs]), tray)
