"""Learning one table's dice, light and tray from a handful of photos.

DIR/empty/ holds photos of the empty tray; DIR/bee/, DIR/honey/, DIR/zzz/,
DIR/zombee/ each hold photos of one or more dice all showing that face. The
empty tray becomes the background the detector compares against, the dice tell
the die size in pixels and how dark they look against this tray, and every die,
cut again with the small errors the detector makes and the glare and blur the
next roll will bring (examples.py), becomes a prototype of its face; dice of two
faces laid over each other become prototypes of `unknown`. Leaving one photo
out at a time and reading its dice with the rest chooses how dice are compared
(views or symbol maps), whether the tray's colour is its own or a lamp's, gives
the quality report (report.py) and sets how sure a reading may be. Bad input
stops with a message naming the file.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from companion.commands import DICE_FACES
from companion.errors import ImageError

from .clusters import MIN_SIDE
from .confidence import fit_confidence, log_likelihood, sure_means_sure, untaught_unknown
from .detect import detect
from . import adapt
from .examples import AUGMENT, augment, first_view, mixtures, prototype, query
from .features import NUDGE, PATCH, SOFTEN, VIEW_PATCH
from .images import IMAGE_SUFFIXES, photo_files, read_image
from .model import CLASSES, MAX_LARGER, UNKNOWN, Model, gated, load_model, white
from .net import edges_read
from .reader import WORK_SIDE, DiceReader
from .report import quality
from .sizing import SMALLEST, at_die_size

CLEARLY = 0.05  # symbol maps are kept over views when they read this much more of the left-out dice
# A tray whose colour channels differ less than this (a white sheet under a plain lamp: 1.03 for the
# real photos) is white either way: the lamp's colour is not tried divided out (calibrate.balance)
TINTED = 1.1
MIX_NEAR = 0.8  # a mixture nearer a face than this times the 90% left-out distance is dropped
# A face's distance is the mean over its 2 nearest prototypes (model.Model.neighbours): one jittered
# copy of another face (a 2 whose glare sits where a 3 has its middle pip) cannot decide alone. On
# the real photos under other cameras and lamps (bench/cameras.py) it read 766 of 819 dice right
# instead of 761, and 5/6-pip dice unknown 127 of 143 times instead of 121; it did as well or
# better with each of three seeds of the jittered copies (3 nearest did as well over the cameras,
# but read one 5-pip die of the photos as taken as a 4)
NEIGHBOURS = 2
# With the stock network kept, a face is named by the network (its last layer refitted to this table,
# adapt.py) and this table's own prototypes together (model.gated), the prototypes weighing this much.
# Before the refit 0.8 (the stock network alone read a blurred Zzz with a glare spot as a bee, surely).
# After it, on rendered tables of seeds bench/vision.py does not use (12 tables x 60 rolls, held-out
# trays / art, mean per table): 0.8 read 99.78 / 99.46 % of dice, 0.65 99.81 / 99.54 %, 0.5 the same
# and 0.35 99.77 / 99.55 %; on the bench's own tables 0.65 did best of the four
OWN_WEIGHT = 0.65
# ... and a refitted network sure of a face takes up to half the prototypes' doubt away (model.gated).
# Six photos a face are few: a roll's ZomBee, alone or in a row of touching dice, can lie beyond every
# ZomBee the photos showed while the network, which learned from thousands of renders, reads it
# surely (and has its own unknown for a cocked die). Such dice read unknown: 14 of the 37 dice missed
# on 24 held-out-art tables. With 0.5 the bench's calibrated held-out art read 99.46 % instead of
# 99.38 % and its trays 99.24 % instead of 99.17 %, with no cocked die or empty spot read as a face;
# 0.7-1.0 took some cocked dice for faces (docs/dice-reader.md, "A sure network and the prototypes'
# doubt"). The stock model keeps the full doubt: it has never seen the table (trust cost it 0.2 points
# of held-out art).
NET_TRUST = 0.5
RADIUS_MARGIN = 1.3  # unknown beyond this many times the distance that holds 90% of left-out dice
NET_GATE = 1.2  # with the ZomBee network kept, the default's radius (times this) is the least radius
# A face taught from more dice than FACE_COPIES / AUGMENT (the corrections learned at a table add
# photos every time) keeps fewer jittered copies of each, at least MIN_COPIES: many real dice show
# what the copies stand in for. Every copy is a prototype each die read is compared with: 20 photos a
# face of five dice each read a frame in 14.4 ms instead of 9.6 (views), in a 12 MB model file.
FACE_COPIES, MIN_COPIES = 40 * AUGMENT, 4
MIXED_RATIO = 0.5  # a left-out die this much nearer another face than its own is in the wrong folder
DOUBT_RATIO = 0.75  # ... and this much nearer is named in the report


class Taught(NamedTuple):
    """One die of the calibration photos: its crops for each descriptor (examples.augment), tray
    colour, face, photo, and what its brightness is divided by for its views (model.white)."""
    crops: dict
    tray: np.ndarray
    face: int
    photo: int
    light: np.ndarray


class CalibrationError(ImageError):
    """Calibration photos that cannot teach the reader (missing, empty, no die, mixed faces)."""


def photos(folder: Path) -> list[Path]:
    """The photos of one face's folder (or empty/). Photos it cannot take are named, never passed over:
    a photo left out unsaid left a face short, and the report asked for photos the user had taken."""
    same = [p for p in folder.parent.iterdir() if p.is_dir() and p.name.lower() == folder.name]
    if len(same) > 1:  # "Bee/", as a phone or a Mac may name it, is bee/; both at once cannot be
        raise CalibrationError(f"{' and '.join(repr(p.name + '/') for p in sorted(same))} are both the folder of "
                               f"{folder.name}: put every photo of {folder.name} into one of them")
    if not same:
        raise CalibrationError(f"{str(folder)!r} is missing: calibration needs empty/ and one folder per face "
                               f"({', '.join(DICE_FACES)})")
    folder = same[0]
    files = photo_files(folder)
    subs = [sub for sub in sorted(folder.iterdir()) if sub.is_dir() and not sub.name.startswith(".")]
    nested = [(sub, n) for sub, n in ((sub, len(photo_files(sub))) for sub in subs) if n]
    if nested:  # a phone's export (bee/Camera/) or photos sorted further: not read, so said
        sub, n = nested[0]
        raise CalibrationError(f"{str(sub)!r} holds {n} photo{'s' if n > 1 else ''} that calibration does not read "
                               f"(it reads the photos directly in {folder.name}/): move them up into {folder.name}/, "
                               f"or out of it")
    if not files:
        raise CalibrationError(f"{str(folder)!r} holds no photos "
                               f"({', '.join(sorted(s for s in IMAGE_SUFFIXES if s not in ('.heic', '.heif')))})")
    return files


def cross_validate(protos: np.ndarray, labels: np.ndarray, kept_without, plain: np.ndarray, photo: np.ndarray,
                   descriptor: str) -> np.ndarray:
    """(dice, classes) distances from each die (plain[i]: its query as photographed, see
    examples.query; taken in photo[i]) to the prototypes that remain when its photo is left out
    (kept_without(photo) is their mask): how the model would see a die it was not taught."""
    probe = Model(protos, labels, descriptor=descriptor, neighbours=NEIGHBOURS)
    out = np.full((len(plain), len(CLASSES)), np.inf, np.float32)
    for g in np.unique(photo):
        rest = kept_without(g)
        if rest.any():
            probe.protos, probe.labels = protos[rest], labels[rest]
            mine = np.flatnonzero(photo == g)
            out[mine] = probe.distances(plain[mine])
    return out


def _check_mixed(checker: DiceReader | None, img, det, face: str, f: Path) -> None:
    if checker is None:
        return
    sure = Counter(d.face for d in checker.classify(img, det) if d.face != "unknown" and d.confidence >= 0.9)
    # the stock reader may misjudge one glaring die; only a photo where the folder's face is
    # not the most common sure reading is called mixed
    if len(sure) > 1 and sure[face] < max(sure.values()):
        raise CalibrationError(f"{str(f)!r}: mixed faces ({', '.join(sorted(sure))}) in one photo; every die "
                               f"in {face}/ must show {face}")


def _photo_ids(originals: dict) -> dict[Path, str]:
    """Each photo's fingerprint (the SHA-1 of its bytes): for _check_copies, and kept in the report."""
    return {f: hashlib.sha1(f.read_bytes()).hexdigest() for items in originals.values() for f, _ in items}


def _check_copies(originals: dict, ids: dict[Path, str]) -> None:
    """One photo in two folders (copied, not moved) shows two faces at once: named both times. Told
    apart by the dice alone, either copy could be blamed, the right one half the time."""
    seen: dict[str, tuple[str, Path]] = {}
    for face, items in originals.items():
        if face == "empty":
            continue  # an empty tray's photo among a face's is named as showing no die, more to the point
        for f, _ in items:
            key = ids[f]
            if key in seen and seen[key][0] != face:
                first_face, first = seen[key]
                raise CalibrationError(f"{str(f)!r} is the same photo as {str(first)!r}: one photo cannot show "
                                       f"{first_face} and {face}; keep it only in the folder of the face it shows")
            seen.setdefault(key, (face, f))


def _check_left_out(d: np.ndarray, truth: np.ndarray, files: list[Path]) -> list[str]:
    """A die the other photos put far nearer another face than its folder's is in the wrong folder (an
    error); one merely nearer is worth a look (returned, for the report)."""
    doubts = []
    for i in range(len(truth)):
        own = d[i, truth[i]]
        others = d[i, :UNKNOWN].copy()
        others[truth[i]] = np.inf
        k = int(others.argmin())
        face = CLASSES[truth[i]]
        if np.isfinite(own) and others[k] < MIXED_RATIO * own:
            raise CalibrationError(f"{str(files[i])!r}: mixed faces? a die there looks like {CLASSES[k]}, not like "
                                   f"the other photos of {face}; every die in {face}/ must show {face}")
        if np.isfinite(own) and others[k] < DOUBT_RATIO * own:
            # said before the weakest face's advice (report.report_lines): more photos would not mend it
            like = CLASSES[k]
            doubts.append(f"check {face}/{files[i].name}: its die looks like {like}, not like the other photos of "
                          f"{face}; if it shows {like}, move it to {like}/ and calibrate again")
    return doubts


def calibrate(folder, base: Model | None = None, seed: int = 0, log=None, augment_per_die: int = AUGMENT,
              compare: str | None = None) -> Model:
    """A model tuned to the table photographed in folder (see the module doc for the layout). compare:
    "views" or "map" to choose how dice are compared (model.Model.descriptor); None tries both."""
    if compare not in (None, "views", "map"):
        raise ValueError(f"compare must be 'views', 'map' or None (try both), not {compare!r}")
    folder = Path(folder)
    if not folder.is_dir():  # named itself, not as its missing empty/ folder
        raise CalibrationError(f"{str(folder)!r} {'is not a folder' if folder.exists() else 'does not exist'}: "
                               f"calibration reads a folder holding empty/ and one folder per face "
                               f"({', '.join(DICE_FACES)})")
    base = base or load_model()
    # A phone's photo is 12 megapixels: 27 of them held whole took 1.2 GB, and a Pi has one to eight. No
    # picture is read larger than WORK_SIDE * MAX_LARGER on its longer side (reader.working, Model.shrink)
    originals = {face: [(f, read_image(f, WORK_SIDE * MAX_LARGER)) for f in photos(folder / face)]
                 for face in ("empty",) + DICE_FACES}
    ids = _photo_ids(originals)
    _check_copies(originals, ids)
    sized = at_die_size(originals)
    if sized.blank:
        face, f = sized.blank
        raise CalibrationError(f"{str(f)!r}: no die found; each photo in {face}/ must show dice showing {face}, "
                               f"each darker than the tray and at least {MIN_SIDE:.0f} pixels across "
                               f"(smaller: bring the camera closer)")
    if sized.tiny:
        face, f, px = sized.tiny
        raise CalibrationError(f"{str(f)!r}: its dice are only about {px:.0f} pixels across, too few to tell "
                               f"the faces apart: bring the camera closer to the tray (at least "
                               f"{SMALLEST:.0f} pixels across)")
    shots, first, side, dark, background = sized.shots, sized.found, sized.side, sized.dark, sized.background
    checker = DiceReader(base) if base is not None else None
    # one random stream per descriptor: the copies made for one never shift those made for the other
    rngs = {"map": np.random.default_rng(seed), "views": np.random.default_rng([seed, 1]),
            "net": np.random.default_rng([seed, 2])}
    dice, files, net_cuts = [], [], []
    photo_count = {}
    photo = 0
    for face, items in shots.items():
        for f, img in items:
            photo += 1
            det = detect(img, side=side, background=background, dark=dark)
            if not det.dice:  # a die the table's size hides (a large symbol, glare): its own size found it
                det = first[f]
            _check_mixed(checker, img, det, face, f)
            light = white(det.tray, sized.tray)  # as the calibrated model will see this photo
            for b in det.dice:
                files.append(f)
                if base is not None and base.net is not None:
                    net_cuts.append(adapt.cuts(img, b, det.side, det.tray, rngs["net"], edges_read(base.net) > 0,
                                               light=light))
                cut = {descriptor: augment(img, b.x, b.y, det.side, b.angle, rngs[descriptor], augment_per_die, size)
                       for descriptor, size in (("map", PATCH), ("views", VIEW_PATCH))
                       if compare in (None, descriptor)}
                dice.append(Taught(cut, det.tray, CLASSES.index(face), photo, light))
        photo_count[face] = len(items)
        if log:
            log(f"{face}: {len(items)} photos")
    truth = np.array([t.face for t in dice])
    threshold = base.threshold if base is not None else 0.5
    fits = {how: _fit(how, dice, photo_count, rngs[how]) for how in ((compare,) if compare else ("views", "map"))}
    for fit in fits.values():
        fit[0].threshold = threshold
    nets = {}
    if net_cuts:
        # the stock ZomBee network, its last layer refitted to these photos (adapt.py), read each die
        # refitted without the die's photo: a fair test of it
        seen = adapt.taught(base.net, net_cuts)
        q = adapt.left_out(base.net, net_cuts, seen, truth, np.array([t.photo for t in dice]), UNKNOWN)
        nets = {how: _with_net(fit, q, base, truth, photo_count) for how, fit in fits.items()}
    # Both ways of comparing dice are tried on the photos themselves, each photo left out in turn.
    # ZomBee dice (the network reads them as well as they read each other) have no face outside the
    # four: the two are compared as each will read, with the network, by how likely their left-out
    # readings make each die's own face. (By accuracy they tie on clean photos; views, which barely
    # see the ZomBee's green, then read 7 of the demo table's next 240 rolls wrong over twelve seeds,
    # a ZomBee as a bee, and symbol maps 1.) Other dice (pips) may show faces never taught, which only
    # a views model learns to call unknown (its mixtures), at the cost of a few taught dice. Views
    # come first for them: they ignore a symbol's colour and most glare, and held up best on real
    # photos under other light; symbol maps are kept only when they read the taught faces clearly
    # better, left out and with no mixture to call them unknown.
    zombee = any(n is not None for n in nets.values())
    if not zombee and "views" in fits and sized.tray.max() > TINTED * sized.tray.min():
        fits["views"] = balance(fits["views"], dice, photo_count, np.random.default_rng([seed, 3]))
    if len(fits) == 1:
        pick = compare
    elif zombee:
        odds = {how: log_likelihood(nets[how][2] if nets[how] else fit[0].proba(fit[1].copy()), truth)
                for how, fit in fits.items()}
        pick = "map" if odds["map"] > odds["views"] else "views"
    else:
        pick = "map" if fits["map"][3] >= fits["views"][3] + CLEARLY else "views"
    model, d, report, _ = fits[pick]
    if nets.get(pick) is None and model.descriptor == "views":  # the prototypes alone say how sure
        softer = sure_means_sure(model, d, truth)
        if softer != model.scale:
            model.scale = softer
            report = {**quality(model.proba(d.copy()), truth, photo_count, model.threshold),
                      "untaught_unknown": round(untaught_unknown(model, d, truth), 3)}
    model.side, model.dark, model.background, model.shrink = side, dark, background, sized.shrink
    model.tray_colour = sized.tray
    doubts = _check_left_out(d, truth, files)
    if nets.get(pick) is not None:
        # the network names the face with the prototypes, and then the prototypes need only reject
        # what neither has seen (the default's wider radius); it cannot be asked to forget a face
        model.radius, report, _ = nets[pick]
        model.net, model.own_weight = adapt.adapted(base.net, seen, truth, UNKNOWN), OWN_WEIGHT
        model.net_trust = NET_TRUST
        model.nudge = 0.0  # the network names the face from the one cut: nudged cuts took time and changed nothing
        report["untaught_unknown"] = None
    model.report = report
    model.report["network"] = model.net is not None
    model.report["compares"] = model.descriptor
    model.report["lamp_divided_out"] = model.balanced
    model.report["doubts"] = doubts  # photos worth a second look: in the right folder? a glare?
    if sized.shrink > 1:
        model.report["enlarged"] = round(sized.shrink, 2)  # dice too small to read as the camera shows them
    model.report["photo_ids"] = sorted(ids[f][:12] for items in shots.values() for f, _ in items)
    return model


def _with_net(fit: tuple, q: np.ndarray, base: Model, truth: np.ndarray, photo_count: dict) -> tuple | None:
    """(radius, report, left-out probabilities) of the fitted model naming faces together with the
    network whose left-out probabilities are q, or None when the photos read each other better.

    Better by how likely the left-out readings make each die's own face, as views and maps are
    weighed for ZomBee dice. Counted in dice read right, one honey of 62 read `unknown` (0.53) was
    enough to leave the network out on a rendered table, whose ZomBees then read `unknown` 12 times
    in 60 rolls; on pip dice the network is far the less likely (mean log -2.9 against -0.3 on the
    real photos), so it still stays out there."""
    model, d, _, _ = fit
    wide = max(model.radius, base.radius * NET_GATE) if base.descriptor == model.descriptor \
        else model.radius * NET_GATE  # the default's radius is in another descriptor's units
    p = gated(replace(model, radius=wide).proba(d.copy()), q, OWN_WEIGHT, NET_TRUST)
    if log_likelihood(p, truth) <= log_likelihood(model.proba(d.copy()), truth):
        return None
    return wide, quality(p, truth, photo_count, model.threshold), p


def balance(fit: tuple, dice: list, photo_count: dict, rng) -> tuple:
    """The views fit, or one whose views take the tray for white (Model.balanced) when that reads the
    taught faces of the left-out dice clearly better: a tray's colour is its own (a brown table, kept
    as model.white keeps it) or a lamp's over a white sheet, and the photos tell which. Under a cool
    lamp the real photos' own check read 90 % instead of 74 % (docs/dice-reader.md, "A lamp of its
    own colour")."""
    other = _fit("views", [t._replace(light=t.tray) for t in dice], photo_count, rng)
    if other[3] < fit[3] + CLEARLY:
        return fit
    other[0].balanced = True
    return other


def _fit(descriptor: str, dice: list, photo_count: dict, rng) -> tuple[Model, np.ndarray, dict, float]:
    """(model, cross-validated distances, report, share of the left-out dice read right with no
    mixture to call them unknown) comparing dice by descriptor: every crop of every die a prototype
    of its face, mixtures of faces prototypes of `unknown`."""
    many = Counter(t.face for t in dice)
    crops = [t.crops[descriptor][:max(MIN_COPIES, FACE_COPIES // many[t.face])] for t in dice]
    soften, signed = (SOFTEN, True) if descriptor == "views" else (0.0, False)  # see features.SIGNED_BINS
    protos = np.array([prototype(descriptor, c, t.tray, t.light, soften, signed) for t, mine in zip(dice, crops)
                       for c in mine], np.float32)
    labels = np.concatenate([[t.face] * len(mine) for t, mine in zip(dice, crops)])
    groups = np.concatenate([[t.photo] * len(mine) for t, mine in zip(dice, crops)])
    firsts = np.cumsum([0] + [len(mine) for mine in crops[:-1]])
    plain = np.array([query(descriptor, mine[0], t.tray, t.light, soften, signed) for t, mine in zip(dice, crops)])
    photo = groups[firsts]
    d = cross_validate(protos, labels, lambda g: groups != g, plain, photo, descriptor)
    truth = labels[firsts]
    # Mixtures only for views: there they made 5- and 6-pip dice read unknown 84% of the time instead
    # of 56% on the real photos; with symbol maps on rendered ZomBee trays they cost 1.5 points of
    # held-out dice (a ZomBee die has no face outside the four)
    mixes, pairs = mixtures(descriptor, [(mine[0], t.tray, t.face, t.photo, t.light) for t, mine in zip(dice, crops)],
                            rng, soften=soften, signed=signed) \
        if descriptor == "views" else (np.zeros((0,)), np.zeros((0, 2), int))
    if len(mixes):
        # a mixture that looks like a taught face (a 1 over a 2 is a 3) would make that face unknown:
        # only those farther from every face than most left-out dice are from their own are kept
        own = d[np.arange(len(truth)), truth]
        near = MIX_NEAR * float(np.quantile(own[np.isfinite(own)], 0.9)) if np.isfinite(own).any() else 0.0
        nearest_face = Model(protos, labels, descriptor=descriptor, neighbours=NEIGHBOURS).distances(mixes)[:, :UNKNOWN]
        keep = nearest_face.min(1) > near
        mixes, pairs = mixes[keep], pairs[keep]
    if len(mixes):
        # each die against the mixtures made without its photo
        d[:, UNKNOWN] = cross_validate(first_view(mixes), np.full(len(mixes), UNKNOWN),
                                       lambda g: (pairs != g).all(axis=1), plain, photo, descriptor)[:, UNKNOWN]
        protos = np.concatenate([protos, first_view(mixes)])
        labels = np.concatenate([labels, np.full(len(mixes), UNKNOWN)])
    scale, radius = fit_confidence(d, truth, margin=RADIUS_MARGIN, likelihood=descriptor == "views")
    model = Model(protos, labels, scale=scale, radius=radius, kind="calibrated", descriptor=descriptor,
                  neighbours=NEIGHBOURS, soften=soften, signed=signed, nudge=NUDGE if descriptor == "views" else 0.0)
    report = quality(model.proba(d.copy()), truth, photo_count, model.threshold)
    report["untaught_unknown"] = round(untaught_unknown(model, d, truth), 3)
    faces_only = d.copy()
    faces_only[:, UNKNOWN] = np.inf
    return model, d, report, quality(model.proba(faces_only), truth, photo_count, model.threshold)["accuracy"]


def score_on(model: Model, folder) -> float:
    """Share of the calibration dice in folder that model reads as their folder's face (unknown = wrong)."""
    folder = Path(folder)
    reader = DiceReader(model)
    right = total = 0
    for face in DICE_FACES:
        for f in photos(folder / face):
            faces = reader.read(read_image(f)).faces
            right += faces.count(face)
            total += max(len(faces), 1)
    return right / max(total, 1)

