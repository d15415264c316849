"""Learning one table's dice, light and tray from a handful of photos.

DIR/empty/ holds photos of the empty tray; DIR/bee/, DIR/honey/, DIR/zzz/,
DIR/zombee/ each hold photos of one or more dice all showing that face (and
DIR/rolls/ may hold whole rolls with their dice named, rolls.py). The
empty tray becomes the background the detector compares against, the dice tell
the die size in pixels and how dark they look against this tray, and every die,
cut again with the small errors the detector makes and the glare and blur the
next roll will bring (examples.py), becomes a prototype of its face; dice of two
faces laid over each other become prototypes of `unknown`. Leaving one photo
out at a time and reading its dice with the rest chooses how dice are compared
(views or symbol maps), whether the tray's colour is its own or a lamp's, gives
the quality report (report.py) and sets how sure a reading may be. ZomBee dice
are read both ways (model.Model.second). Bad input stops with a message naming
the file (photo_checks.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from companion.commands import DICE_FACES

from ..cut.features import NUDGE, PATCH, SOFTEN, VIEW_PATCH
from ..find.clusters import MIN_SIDE
from ..find.detect import detect
from ..find.parallax import tops
from ..images import read_image
from ..name import paircolour
from ..name.confidence import fit_confidence, log_likelihood, sure_means_sure, untaught_unknown
from ..name.model import CLASSES, MAX_LARGER, UNKNOWN, Model, both_ways, gated, white
from ..name.modelfile import load_model
from ..name.net import edges_read
from ..name.pipfaces import joined as pips_joined, pip_values, pip_weight, places
from ..pips import beliefs
from ..reader import WORK_SIDE, DiceReader, working
from . import adapt
from .examples import AUGMENT, augment, first_view, mixtures, prototype, query
from .photo_checks import CalibrationError, check_copies, check_mixed, left_out_doubts, photo_ids, photos
from .report import quality
from .rolls import check_rolls, paired, read_labels
from .sizing import SMALLEST, at_die_size, parallax_of, sides_of

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
# The network's unknown learned the cocked and covered dice of our renders; on art it never saw it
# calls some of a table's plain faces unknown too. Where, left out, it calls more than this share of
# the calibration dice unknown, the table's prototypes join it in saying unknown (Model.own_unknown),
# as they join it in naming the face. Of 28 tables of our renders (seeds no bench reads), 27 had no
# die so called and one 3 %; their cocked dice need the network's unknown (joined on every table, 13
# of 80 read as faces). Of 40 tables of a second renderer's, most had 5-70 %. Pip dice keep it: their
# fives and sixes, never taught, need it as cocked dice do. A die of a corrected roll (rolls/) that it
# calls unknown is enough: a player said that die was a face, and the network's unknown only grows with
# more such dice (it is never refitted). A camera that shows the dice's sides (calibration chose a
# parallax, find/parallax.py; our renders draw none and no table of them chose one) makes it call a
# top with a strip of another face beside it unknown in some places only, as a cocked die shows two
# faces: six photos a face may show one such die, the rolls many. There one is enough. Of the second
# renderer's 24 tables of seeds 1, 3 and 4 (bench/other_renderer.py), six with one to three such dice
# of 56-63 then read 576 -> 586 of 593 dice (seed 1) and 597 -> 598 of 610 (seed 3); seed 4's 587 of
# 600 the same, told one die more read surely wrong (a bee as a ZomBee)
STRANGE = 0.05
# ZomBee dice, the network kept both ways, are read both ways (Model.second): by their views and by
# their symbol maps, each with the network, the two readings joined by a weighted geometric mean
# (model.both_ways) in which the maps count this much, and alone tell a bee from a ZomBee (one symbol,
# green). Views follow a symbol's outline through glare and blur and barely see its colour; maps see
# the colour and take a lamp's spot beside a round honey drop for a bee's white wing. Each misread
# dice the other read right. On the bench's 12 calibrated held-out tables (60 rolls each) 19 dice of
# 2640 were read wrong, 17 with views on every table, 10 both ways; on 12 tables of seeds the bench
# does not use 29 and 21. Maps counting 0.2 / 0.4 / 0.5 read 12 / 12 / 14 and 22 / 21 / 20; choosing
# per table by the left-out readings' likelihood, as the two are weighed against each other, read 18
# and 25: it rarely chose both, where both would have read better.
SECOND_WEIGHT = 0.3
RADIUS_MARGIN = 1.3  # unknown beyond this many times the distance that holds 90% of left-out dice
NET_GATE = 1.2  # with the ZomBee network kept, the default's radius (times this) is the least radius
# A face taught from more dice than FACE_COPIES / AUGMENT (the corrections learned at a table add
# photos every time) keeps fewer jittered copies of each, at least MIN_COPIES: many real dice show
# what the copies stand in for. Every copy is a prototype each die read is compared with: 20 photos a
# face of five dice each read a frame in 14.4 ms instead of 9.6 (views), in a 12 MB model file.
FACE_COPIES, MIN_COPIES = 40 * AUGMENT, 4


class Taught(NamedTuple):
    """One die of the calibration photos: its crops for each descriptor (examples.augment), tray
    colour, face, photo, and what its brightness is divided by for its views (model.white)."""
    crops: dict
    tray: np.ndarray
    face: int
    photo: int
    light: np.ndarray


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
    rolls = read_labels(folder)  # whole rolls with their dice named: checked before anything is learned
    if rolls:
        empties = photos(folder / "empty") if (folder / "empty").is_dir() else []
        if not empties:
            raise CalibrationError(f"{str(folder / 'empty')!r} holds no photo: a roll's dice are told from the "
                                   f"empty tray, so take one first")
        check_rolls(rolls, read_image(empties[0]))
    # A phone's photo is 12 megapixels: 27 of them held whole took 1.2 GB, and a Pi has one to eight. No
    # picture is read larger than WORK_SIDE * MAX_LARGER on its longer side (reader.working, Model.shrink)
    originals = {face: [(f, read_image(f, WORK_SIDE * MAX_LARGER)) for f in photos(folder / face)]
                 for face in ("empty",) + DICE_FACES}
    ids = photo_ids(originals)
    check_copies(originals, ids)
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
    # pip_seen: the pip reader's beliefs about each die; colours: its symbol's (paircolour.py)
    dice, files, net_cuts, pip_seen, colours = [], [], [], [], []
    photo_count = {}
    photo = 0
    found = {}
    for face, items in shots.items():
        for f, img in items:
            det = detect(img, side=side, background=background, dark=dark, channel=sized.channel)
            found[f] = det if det.dice else first[f]  # a die the table's size hides (a large symbol, glare): its own size found it
    taken = [(face, img, found[f]) for face, items in shots.items() for f, img in items]
    parallax, sides = parallax_of(taken), sides_of(taken)
    for face, items in shots.items():
        for f, img in items:
            photo += 1
            det = replace(found[f], dice=tops(found[f].dice, img.shape, found[f].side, parallax))
            check_mixed(checker, img, det, face, f)
            light = white(det.tray, sized.tray)  # as the calibrated model will see this photo
            pip_seen.extend(beliefs(img, places(det.dice)))
            for b in det.dice:
                files.append(f)
                if base is not None and base.net is not None:
                    net_cuts.append(adapt.cuts(img, b, det.side, det.tray, rngs["net"], edges_read(base.net) > 0,
                                               light=light))
                cut = {descriptor: augment(img, b.x, b.y, det.side, b.angle, rngs[descriptor], augment_per_die, size)
                       for descriptor, size in (("map", PATCH), ("views", VIEW_PATCH))
                       if compare in (None, descriptor)}
                dice.append(Taught(cut, det.tray, CLASSES.index(face), photo, light))
                colours.append(paircolour.die_colour(img, b, det))  # as the reader will see it
        photo_count[face] = len(items)
        if log:
            log(f"{face}: {len(items)} photos")
    from_rolls = len(dice)  # the dice after these are rolls' dice, named by a player
    for roll in rolls:  # each labelled die the reader finds in its roll, an example of its face (rolls.py)
        photo += 1
        whole = read_image(roll.path)
        img = working(read_image(roll.path, WORK_SIDE * MAX_LARGER), sized.shrink)[0]
        det = detect(img, side=side, background=background, dark=dark, channel=sized.channel, sides=sides)
        det = replace(det, dice=tops(det.dice, img.shape, det.side, parallax))
        light = white(det.tray, sized.tray)
        pairs = paired(det.dice, roll, img.shape[1] / whole.shape[1], det.side)
        pip_seen.extend(beliefs(img, places([b for b, _ in pairs])))
        for b, face in pairs:
            files.append(roll.path)
            if base is not None and base.net is not None:
                net_cuts.append(adapt.cuts(img, b, det.side, det.tray, rngs["net"], edges_read(base.net) > 0,
                                           light=light))
            cut = {descriptor: augment(img, b.x, b.y, det.side, b.angle, rngs[descriptor], augment_per_die, size)
                   for descriptor, size in (("map", PATCH), ("views", VIEW_PATCH)) if compare in (None, descriptor)}
            dice.append(Taught(cut, det.tray, CLASSES.index(face), photo, light))
            colours.append(paircolour.die_colour(img, b, det))  # as the reader will see it
        for face in {face for _, face in pairs}:
            photo_count[face] += 1
        if log:
            log(f"rolls/{roll.path.name}: {len(pairs)} of its {len(roll.dice)} labelled dice found and taught")
    truth = np.array([t.face for t in dice])
    taught_in = np.array([t.photo for t in dice])  # the photo each die was taught from
    pip_seen = np.array(pip_seen)
    values = pip_values(pip_seen, truth)  # pip dice: the counts of pips their faces show, else ()
    threshold = base.threshold if base is not None else 0.5
    fits = {how: _fit(how, dice, photo_count, rngs[how]) for how in ((compare,) if compare else ("views", "map"))}
    for fit in fits.values():
        fit[0].threshold = threshold
    nets = {}
    if net_cuts:
        # the stock ZomBee network, its last layer refitted to these photos (adapt.py), read each die
        # refitted without the die's photo: a fair test of it
        seen = adapt.taught(base.net, net_cuts)
        q = adapt.left_out(base.net, net_cuts, seen, truth, taught_in, UNKNOWN)
        called = q[:, UNKNOWN] > 0.5
        own_unknown = not values and bool(called.mean() > STRANGE or called[from_rolls:].any()
                                                   or (parallax > 0 and called.any()))
        nets = {how: _with_net(fit, q, base, truth, photo_count, own_unknown) for how, fit in fits.items()}
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
    both = None  # the left-out readings of ZomBee dice read both ways (Model.second)
    if len(fits) == 1:
        pick = compare
    elif zombee and nets["map"] and nets["views"]:
        both, pick = both_ways(nets["views"][2], nets["map"][2], SECOND_WEIGHT), "views"
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
    model.parallax, model.sides, model.channel = parallax, sides, sized.channel
    model.tray_colour = sized.tray
    doubts = left_out_doubts(truth, files, d, *([fits["map"][1]] if both is not None else []))
    if nets.get(pick) is not None:
        # the network names the face with the prototypes, and then the prototypes need only reject
        # what neither has seen (the default's wider radius); it cannot be asked to forget a face
        model.radius, report, _ = nets[pick]
        model.net, model.own_weight = adapt.adapted(base.net, seen, truth, UNKNOWN), OWN_WEIGHT
        model.net_trust, model.own_unknown = NET_TRUST, own_unknown
        model.nudge = 0.0  # the network names the face from the one cut: nudged cuts took time and changed nothing
        if both is not None:
            model.second = replace(fits["map"][0], radius=nets["map"][0], net=model.net, own_weight=OWN_WEIGHT,
                                   net_trust=NET_TRUST, own_unknown=own_unknown, tray_colour=sized.tray)
            model.second_weight = SECOND_WEIGHT
            report = quality(both, truth, photo_count, model.threshold)
        report["untaught_unknown"] = None
    left = both if both is not None else nets[pick][2] if nets.get(pick) is not None else model.proba(d.copy())
    if model.net is None and net_cuts and base.cnn is not None:
        # art the stock network misreads: the crop network's convolutions with this table's face layer.
        # Sure of a face, it lifts half the prototypes' doubt, as a refitted network does; but not for
        # pip dice, whose fives and sixes it would call the nearest face taught (a rendered pip table
        # read 15 of 40 of them unknown so, against 30 or more without it): there the prototypes alone
        # say whether a die shows a face at all
        trust = 0.0 if values else NET_TRUST
        taught, plain = adapt.layer_features(base.cnn, net_cuts, np.random.default_rng([seed, 4]))
        layered = gated(left, adapt.layer_left_out(taught, plain, truth, taught_in, UNKNOWN),
                        OWN_WEIGHT, trust)
        if log_likelihood(layered, truth) > log_likelihood(left, truth):
            model.face_layer, model.cnn = adapt.face_layer(taught, truth, UNKNOWN), base.cnn
            model.own_weight, model.net_trust = OWN_WEIGHT, trust
            left = layered
            report = {**report, **quality(left, truth, photo_count, model.threshold)}
    if not values:  # which of a bee and a ZomBee: their symbol's colour too (paircolour.py)
        coloured = paircolour.fit(np.array(colours), truth, taught_in, left, log_likelihood)
        if coloured is not None:
            model.pair_colour, left = coloured
            report = {**report, **quality(left, truth, photo_count, model.threshold)}
    if values:  # pip dice: the pip reader joins the reading when the dice left out read better so (pipfaces.py)
        weight = pip_weight(left, pip_seen, values, truth)
        pipped = pips_joined(left, pip_seen, values, weight)
        if log_likelihood(pipped, truth) > log_likelihood(left, truth):
            model.pips, model.pip_weight = values, weight
            report = {**report, **quality(pipped, truth, photo_count, model.threshold)}
    model.report = report
    model.report["pips"] = dict(zip(DICE_FACES, model.pips)) or None
    model.report["network"] = model.net is not None
    model.report["face_layer"] = model.face_layer is not None  # the table's own, on the crop network (adapt.py)
    model.report["compares"] = model.descriptor + (" and map" if model.second is not None else "")
    model.report["lamp_divided_out"] = model.balanced
    model.report["doubts"] = doubts  # photos worth a second look: in the right folder? a glare?
    if sized.shrink > 1:
        model.report["enlarged"] = round(sized.shrink, 2)  # dice too small to read as the camera shows them
    model.report["photo_ids"] = sorted(ids[f][:12] for items in shots.values() for f, _ in items)
    model.report["roll_ids"] = sorted(i[:12] for i in photo_ids({"rolls": [(r.path, None) for r in rolls]}).values())
    return model


def _with_net(fit: tuple, q: np.ndarray, base: Model, truth: np.ndarray, photo_count: dict,
              own_unknown: bool = False) -> tuple | None:
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
    p = gated(replace(model, radius=wide).proba(d.copy()), q, OWN_WEIGHT, NET_TRUST, own_unknown)
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

