"""The face classifier: labelled examples ("prototypes") and a nearest-neighbour rule.

A prototype is a symbol map or a view of a die (`descriptor`, see features.py).
A die is read as the face of the nearest prototypes, compared in all eight
quarter turns and mirrors: a face's distance is the root mean square over its
`neighbours` nearest prototypes (1 = the nearest alone). Its confidence comes
from how near it is: each face gets exp(-d^2 / 2 scale^2), and "unknown" gets
the same for `radius`, so a die far from everything the model was taught reads
`unknown`, and a die halfway between two faces gets about 0.5. Scale and radius
are measured by cross-validation when the model is made (see calibrate.py and
train.py), which is what makes a confidence of 0.9 mean something.

A model also carries what calibration learned about the table: the die's side
in pixels, the empty tray's brightness and colour, and a quality report. The
shipped default knows none of these: it measures the die size from each frame
and takes the tray for white (see white()). Its file is modelfile.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion.commands import DICE_FACES
from companion.errors import ConfigError

from ..cut.features import DIM, VIEW_DIM, dihedral
from .cnn import joined
from .cropnet import CropNet
from .facelayer import FaceLayer
from .net import edges_read, net_proba

CLASSES = DICE_FACES + ("unknown",)
UNKNOWN = CLASSES.index("unknown")
WIDTH = {"map": DIM, "views": VIEW_DIM}  # numbers in a prototype of each descriptor
MAX_LARGER = 3.0  # the most a frame is enlarged (Model.shrink): dice smaller still are too few pixels to read
MAX_NUDGE = 0.2  # of a side (Model.nudge): farther, a cut would leave a part of the face out
MAX_PARALLAX = 2.0  # Model.parallax: twice what a 62-degree lens shows is already a camera far off straight down
# faces whose symbol is the same but for its colour (a ZomBee is a green bee): read both ways, the
# symbol maps tell them apart (both_ways). Left to the views too, a table taught through the phone's
# wizard read 3 ZomBees of its next 240 rolls as bees, one at 0.98
COLOUR_ONLY = (CLASSES.index("bee"), CLASSES.index("zombee"))
MAX_SOFTEN = 3.0  # a blur wider than this (Model.soften) would leave a 38 px crop no edge to read


class ModelError(ConfigError):
    """A model file that is missing, corrupt, or written by another format version."""


@dataclass
class Model:
    protos: np.ndarray  # (n, DIM) symbol maps, or (n, VIEW_DIM) views (see descriptor)
    labels: np.ndarray  # (n,) index into CLASSES; "unknown" prototypes are things that are not a face
    scale: float = 0.12
    radius: float = 0.5
    kind: str = "default"
    side: float = 0.0  # die side in pixels; 0 = measure it in each frame
    shrink: float = 1.0  # the frame is read this much smaller (large dice), above 1 larger (small; reader.working)
    dark: float = 1.0  # how much darker the tray makes our dice look than a light tray does (detect.DARKER)
    background: np.ndarray | None = None  # empty tray brightness (small), from calibration
    tray_colour: np.ndarray | None = None  # the empty tray's colour (BGR) at calibration; see white()
    threshold: float = 0.5  # below this confidence a face is reported as unknown
    report: dict | None = field(default=None)  # calibration quality report (see report.quality)
    net: dict | None = field(default=None, repr=False)  # ZomBee network (net.py): tells faces apart
    cnn: CropNet | None = field(default=None, repr=False)  # the default's crop network (cnn.py): a second opinion on it
    # a table's own face layer on the crop network's convolutions (facelayer.py), for dice the stock network misreads
    face_layer: FaceLayer | None = field(default=None, repr=False)
    descriptor: str = "map"  # "map": symbol maps (features.face_map); "views": features.views
    neighbours: int = 1  # prototypes of a face that are averaged (squared) into its distance
    own_weight: float = 0.0  # with a network: how much the prototypes' own choice of face counts (see gated)
    net_trust: float = 0.0  # with a network refitted to this table: how far its sureness lifts the prototypes' doubt
    # with own_weight: the prototypes join the network in saying unknown too, on a table whose own faces
    # the network calls unknown (calibrate.STRANGE); otherwise the network's unknown stands (see gated)
    own_unknown: bool = False
    soften: float = 0.0  # views: each crop blurred by this (sigma, px) first (features.SOFTEN; not the network's)
    signed: bool = False  # views: edge directions over a whole turn (features.SIGNED_BINS; not the network's)
    nudge: float = 0.0  # views: a doubtful die also cut this much of a side off centre four ways (reader.SURE)
    balanced: bool = False  # views: the lamp's colour divided out with the tray's (see white()), not kept
    # views: the same dice compared by their symbol maps too, sharing the network: each die is read both
    # ways and the two readings joined (both_ways), the maps counting second_weight
    second: Model | None = field(default=None, repr=False)
    second_weight: float = 0.0
    # pip dice taught as the faces: the count each face shows (bee, honey, zzz, zombee), whose pip reader's
    # beliefs join the reading, counting pip_weight (pipfaces.py); () for dice with no pips
    pips: tuple[int, ...] = ()
    pip_weight: float = 0.0
    # a bee and a ZomBee told apart by their symbol's colour too: the two faces' mean colours and how
    # strongly it counts (paircolour.py); None where calibration found it no help
    pair_colour: np.ndarray | None = field(default=None, repr=False)
    # how far each die's cut is moved outward onto its top face, whose sides the camera sees (find/parallax.py)
    parallax: float = 0.0
    # how much more of the tray a die covers away from the picture's middle, the sides it shows there,
    # as find/parallax.strip counts them when touching dice are cut apart (teach/sizing.sides_of)
    sides: float = 0.0
    # coloured dice (navy, purple): the colour channel they are found in, the tray's colour divided out
    # (find/detect.brightness_ratio, teach/sizing.die_channel); -1 the brightest channel, as for black dice
    channel: int = -1
    # (protos, as float32 columns, their squared lengths, each class's columns): worked out once (_prototypes)
    _compared: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def needs_views(self) -> bool:
        """True when predict_proba takes features.die_views of each die, (n, 8, VIEW_DIM): the
        prototypes compare views, or the network reads their edge directions."""
        return self.descriptor == "views" or (self.net is not None and edges_read(self.net) > 0)

    @property
    def needs_looks(self) -> bool:
        """True when predict_proba also wants each die's crop as the crop network sees it (cnn.looks)."""
        return self.cnn is not None and (self.net is not None or self.face_layer is not None)

    @property
    def needs_symbols(self) -> bool:
        """True when predict_proba also wants symbol.symbol_features of each die."""
        return self.net is not None

    def white(self, tray: np.ndarray) -> np.ndarray:
        """What a die's brightness is divided by for its views, in a frame whose tray shows the colour
        tray (see white)."""
        return white(tray, None if self.balanced else self.tray_colour)

    def distances(self, x: np.ndarray) -> np.ndarray:
        """(n, len(CLASSES)) distance from each die to the nearest prototypes of each class (the root
        mean square over `neighbours` of them; inf: none), in the nearest of its eight quarter turns
        and mirrors. x: (n, DIM) symbol maps, or (n, 8, VIEW_DIM) views when the model compares views,
        or (n, 8k, VIEW_DIM), the views of k cuts of each die (features.dice_views' nudge): each class
        is then as near as the nearest cut brings it."""
        x = np.asarray(x, np.float32)
        q = (x if x.ndim == 3 else dihedral(x)).reshape(-1, x.shape[-1])
        pt, p2, columns = self._prototypes()
        if q.shape[1] != pt.shape[0]:
            raise ValueError(f"this model compares {self.descriptor}s of {pt.shape[0]} numbers, got {q.shape[1]}")
        d2 = (q * q).sum(1)[:, None] + p2[None] - 2 * q @ pt
        cuts = x.shape[1] // 8 if x.ndim == 3 else 1  # views of one cut, or of several (maps: one)
        d2 = d2.reshape(len(x) * cuts, 8, len(p2)).min(axis=1)
        out = np.full((len(x) * cuts, len(CLASSES)), np.inf, np.float32)
        for c, cols in columns:
            mine = d2[:, cols]
            k = min(self.neighbours, mine.shape[1])
            out[:, c] = mine.min(axis=1) if k <= 1 else np.partition(mine, k - 1, axis=1)[:, :k].mean(axis=1)
        return np.sqrt(np.maximum(out.reshape(len(x), cuts, len(CLASSES)).min(axis=1), 0))

    def _prototypes(self) -> tuple:
        """(prototypes as float32, one per column, their squared lengths, (class, its columns) of each
        class present). A default model holds 2000 prototypes: converting and squaring them for every
        frame took a tenth of the reading's time."""
        if self._compared is None or self._compared[0] is not self.protos:
            p = self.protos.astype(np.float32)
            columns = tuple((int(c), np.flatnonzero(self.labels == c)) for c in np.unique(self.labels))
            self._compared = (self.protos, np.ascontiguousarray(p.T), (p * p).sum(1), columns)
        return self._compared[1:]

    def proba(self, d: np.ndarray) -> np.ndarray:
        """Class probabilities from class distances (see the module doc)."""
        d = np.minimum(d, self.radius * 4)
        d[:, UNKNOWN] = np.minimum(d[:, UNKNOWN], self.radius)
        logits = -(d * d) / (2 * self.scale * self.scale)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def near(self, x: np.ndarray | None, views: np.ndarray | None = None) -> np.ndarray:
        """distances of dice with symbol maps x, or views when the model compares views."""
        if self.descriptor == "views" and views is None:
            raise ValueError("this model compares views of each die (features.die_views)")
        return self.distances(views if self.descriptor == "views" else x)

    def predict_proba(self, x: np.ndarray, extra: np.ndarray | None = None, views: np.ndarray | None = None,
                      net_views: np.ndarray | None = None, near: np.ndarray | None = None,
                      looks: np.ndarray | None = None) -> np.ndarray:
        """Class probabilities of dice with symbol maps x (and views, for a model that compares views
        or whose network reads edge directions). With a network, the prototypes say how likely the
        die is one of the faces at all (near enough to something taught), the network which one,
        together with the prototypes' own choice when own_weight is set (see gated). net_views: the
        network's views when they differ from the prototypes' (unblurred and unsigned, see soften). near:
        the dice's class distances when they are already worked out (self.near), perhaps over more cuts.
        looks: each die's crop (cnn.looks), for a model whose crop network joins the network's answer."""
        if self.needs_views and views is None:
            raise ValueError("this model compares views of each die (features.die_views)")
        p = self.proba(self.near(x, views) if near is None else near)
        if self.needs_looks and looks is None:
            raise ValueError("this model also reads each die's crop (cnn.looks of symbol.dice_patches)")
        if self.net is None:  # the table's face layer names the face, as a refitted network does
            return p if self.face_layer is None else \
                gated(p, self.face_layer.proba(self.cnn.features(looks)), self.own_weight, self.net_trust,
                      self.own_unknown)
        if extra is None:
            raise ValueError("this model also needs the symbol statistics of each die (symbol.symbol_features)")
        q = net_proba(self.net, x, extra, views if net_views is None else net_views)
        if self.cnn is not None:
            q = joined(q, self.cnn.proba(looks), COLOUR_ONLY)
        return gated(p, q, self.own_weight, self.net_trust, self.own_unknown)


def white(tray: np.ndarray, calibrated: np.ndarray | None = None) -> np.ndarray:
    """What a die's brightness is divided by for its views (features.views_of: the edge directions of
    its brightest channel), given the colour the tray shows in this frame (BGR).

    Uncalibrated, the tray is taken for white: dividing by its colour takes a lamp's tint and
    brightness away. A tray of its own colour (a wooden table, green felt) is then "corrected" too:
    on a brown table a smoky die's blue is divided by the table's weak blue, and a red pip loses much
    of its contrast against the die. A calibrated model knows the colour its empty tray showed
    (calibrated): only the change of light since then is divided out, and the brightness. But a
    white sheet under a cool or a warm lamp shows the lamp's colour, not its own, and keeping it
    dims red pips the same way: calibration divides it out after all where that reads its own photos
    clearly better (Model.balanced, calibrate.balance). The symbol maps and the network keep the tray taken for
    white, as the network learned its colours."""
    if calibrated is None:
        return tray
    return np.asarray(tray, np.float32) / calibrated * float(calibrated.max())


def gated(p: np.ndarray, q: np.ndarray, own_weight: float = 0.0, trust: float = 0.0,
          own_unknown: bool = False) -> np.ndarray:
    """The network's answer q, trusted as far as the prototypes' p says the die is a face at all.
    With own_weight, the face is the network's and the prototypes' choice together (a weighted
    geometric mean of the two, own_weight for the prototypes'): a calibrated model's prototypes are
    this table's own dice, which the network never saw. With own_unknown, so is how likely unknown
    is (the same mean of their two beliefs in it, or the prototypes' doubt where that is more): on a
    table whose own faces the network calls unknown, a die the prototypes know surely is not made
    unknown by it. With trust, a network sure of a face takes up to that share of the prototypes'
    doubt away (a network refitted to this table: see calibrate.NET_TRUST); a die the prototypes find
    wholly strange then reads no surer than trust."""
    doubt = p[:, UNKNOWN] * (1 - trust * q[:, :UNKNOWN].max(axis=1))
    if own_weight <= 0:
        out = q * (1 - doubt)[:, None]
        out[:, UNKNOWN] += doubt
        return out
    known = 1 - p[:, UNKNOWN]
    faces = q[:, :UNKNOWN] ** (1 - own_weight) * (p[:, :UNKNOWN] / np.maximum(known, 1e-9)[:, None]) ** own_weight
    if own_unknown:
        unknown = np.maximum(q[:, UNKNOWN] ** (1 - own_weight) * p[:, UNKNOWN] ** own_weight, doubt)
    else:  # the network's own unknown, and the prototypes' doubt beside it
        unknown = q[:, UNKNOWN] * (1 - doubt) + doubt
    faces *= ((1 - unknown) / np.maximum(faces.sum(axis=1), 1e-30))[:, None]
    return np.concatenate([faces, unknown[:, None]], axis=1)


def both_ways(views: np.ndarray, maps: np.ndarray, weight: float) -> np.ndarray:
    """Class probabilities of dice read two ways, by their views and by their symbol maps (n, classes
    each): their weighted geometric mean, weight for the maps', scaled to sum to one. A face both
    readings find likely stays likely; a face one of them rules out is kept down, which an average
    would let through at half its sureness. A bee and a ZomBee show one symbol in two colours
    (COLOUR_ONLY): which of the two a die is, the maps alone say, as views barely see colour."""
    out = np.maximum(views, 1e-12) ** (1 - weight) * np.maximum(maps, 1e-12) ** weight
    pair = list(COLOUR_ONLY)
    split = maps[:, pair] / np.maximum(maps[:, pair].sum(axis=1, keepdims=True), 1e-12)
    out[:, pair] = out[:, pair].sum(axis=1, keepdims=True) * split
    return out / out.sum(axis=1, keepdims=True)


def surer_face(now: np.ndarray, other: np.ndarray, at_least: float, cap: float) -> np.ndarray:
    """Class probabilities now (n, classes), each row taken from other instead where other names a
    face (not unknown) at least at_least surely and more surely than now names anything; a row so taken
    is made no surer than cap (its face keeps its place, the rest share what is left as they did)."""
    top, best = other.max(axis=1), other.argmax(axis=1)
    take = (best != UNKNOWN) & (top >= at_least) & (top > now.max(axis=1))
    out = now.copy()
    if take.any():
        q, t = other[take], top[take, None]
        c = np.minimum(t, cap)
        out[take] = np.where(np.arange(q.shape[1]) == best[take, None], c, q * (1 - c) / np.maximum(1 - t, 1e-9))
    return out
