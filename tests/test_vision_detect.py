import dataclasses
import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from support.trays import felt, shaken
from vision.demo import layout
from vision.demo import render
from vision.find.detect import SMALL, brightest, detect
from vision.images import read_image


def _in_row(faces, x, y, angle, size):
    """Dice placed edge to edge from (x, y) along angle: what render.compose takes."""
    return [(f, x + i * size * 1.01 * math.cos(angle), y + i * size * 1.01 * math.sin(angle), angle)
            for i, f in enumerate(faces)]


def _row(rng, rig, faces, x=250.0, y=220.0, angle=0.3):
    return render.compose(rng, rig, _in_row(faces, x, y, angle, rig.die_size), rig.die_size)


def _near(blobs, truths, size):
    return all(min(math.hypot(b.x - t.x, b.y - t.y) for b in blobs) < size * 0.4 for t in truths)


def test_dice_lying_edge_to_edge_are_split():
    rng = np.random.default_rng(11)
    rig = render.random_rig(rng)
    for n in (2, 3):
        scene = _row(rng, rig, ["bee"] * n)
        det = detect(scene.image, side=rig.die_size)
        assert len(det.dice) == n
        assert _near(det.dice, scene.dice, rig.die_size)


def test_touching_rows_split_without_calibration_when_a_single_die_shows_the_size():
    rng = np.random.default_rng(12)
    rig = render.random_rig(rng)
    size = rig.die_size
    placed = [("zzz", 120, 120, 0.2)] + _in_row(["honey", "bee"], 400, 300, 0.5, size)
    scene = render.compose(rng, rig, placed, size)
    det = detect(scene.image)
    assert len(det.dice) == 3 and _near(det.dice, scene.dice, size)


def test_empty_tray_with_rim_and_shadowed_dice_count_right():
    rng = np.random.default_rng(13)
    found = []
    for _ in range(12):
        rig = render.random_rig(rng)
        empty = render.render_scene(rng, rig, faces=[])
        assert detect(empty.image).dice == []
        scene = render.render_scene(rng, rig, count=int(rng.integers(1, 7)))
        found.append(len(detect(scene.image).dice) == len(scene.dice))
    assert sum(found) >= 11


def test_hand_is_flagged_and_not_taken_for_dice():
    rng = np.random.default_rng(14)
    rig = render.random_rig(rng)
    scene = render.render_scene(rng, rig, faces=["bee", "honey"], hand=True)
    det = detect(scene.image)
    assert det.hand
    assert len(det.dice) <= 2
    assert not detect(render.render_scene(rng, rig, faces=["bee", "honey"]).image).hand


def test_a_skin_coloured_table_around_the_tray_is_not_a_hand():
    # A mauve table ringing the tray once read as a hand on every frame, so no roll ever settled.
    from vision.demo.synthetic import SyntheticCamera

    camera = SyntheticCamera(seed=5)
    camera.set_tray(["bee", "honey", "zzz"])
    _, frame = camera.read()
    det = detect(frame)
    assert not det.hand
    assert len(det.dice) == 3


# --- touching clusters, glossy and lighter dark dice, the count hint, real photos ---------------

def _plain_rig(seed, **art):
    """A random rig without a rim, optionally with dice of another maker (body colour, gloss...)."""
    rng = np.random.default_rng(seed)
    rig = dataclasses.replace(render.random_rig(rng), rim_width=0)
    if art:
        rig = render.with_art(rig, dataclasses.replace(rig.art, gloss=0.0, **art))
    return rng, rig


def _cluster(seed, shape, n, extra=(), **art):
    """n dice touching in one of the renderer's shapes, plus a lone die that shows the die size."""
    rng, rig = _plain_rig(seed, **art)
    size, angle = rig.die_size, float(rng.uniform(0, math.pi / 2))
    faces = ["bee", "honey", "zzz", "zombee"]
    placed = [(f, x, y, a) for f, (x, y, a) in zip(faces, layout.cluster_spots(shape, 320, 250, size, angle, n))]
    placed += [("zzz", 90, 90, 0.3), *extra]
    return render.compose(rng, rig, placed, size), rig


@pytest.mark.parametrize("shape, n", [("block", 4), ("L", 3), ("corner", 2), ("offset", 2)])
def test_touching_dice_in_blocks_ls_and_corners_are_each_found_once(shape, n):
    for seed in (1, 2):
        scene, rig = _cluster(seed, shape, n)
        for det in (detect(scene.image), detect(scene.image, side=rig.die_size)):
            assert len(det.dice) == n + 1
            assert _near(det.dice, scene.dice, rig.die_size)



def test_the_judge_is_asked_once_for_every_ambiguous_cluster_of_a_frame_and_its_verdicts_decide():
    """Reading dice costs mostly per pass, so the reader is asked about all of a frame's ways to cut
    touching dice at once; each verdict must still decide its own way. On these held-out trays two
    pairs each could be one die or two."""
    def asking(prefer_more, asked):
        def judge(ways, side, tray):
            asked.append(len(ways))
            return [min(len(w) / 4, 1.0) if prefer_more else 1 / len(w) for w in ways]
        return judge

    counts = []
    for seed in (3, 29, 37):
        rng = np.random.default_rng(seed)
        rig = render.random_rig(rng, dataclasses.replace(render.HELDOUT, touching=1.0))
        scene = render.render_scene(rng, rig, count=int(rng.integers(2, 6)), cocked=0)
        more, fewer = [], []
        n_more = len(detect(scene.image, judge=asking(True, more)).dice)
        n_fewer = len(detect(scene.image, judge=asking(False, fewer)).dice)
        assert len(more) == len(fewer) == 1 and more[0] >= 4  # two regions, two ways each, in one question
        assert n_more == len(scene.dice) >= n_fewer  # the judge sways a cut the outline leaves open
        counts.append(n_more - n_fewer)
    assert any(counts)

def _reflected(seed, width, **art):
    """(scene, image, side): a honey die with a lamp's reflection, a bright band width sides wide, across
    its face, and a bee die apart."""
    rng, rig = _plain_rig(seed, **art)
    size = rig.die_size
    scene = render.compose(rng, rig, [("honey", 300, 240, 0.4), ("bee", 120, 110, 0.1)], size)
    img = scene.image.copy()
    d = size * 0.7
    cv2.line(img, (int(300 - d), int(240 + d)), (int(300 + d), int(240 - d)), (235, 235, 235),
             max(3, int(size * width)))
    return scene, img, size


def test_a_highlight_across_a_glossy_die_still_gives_one_die():
    # A lamp's reflection as a bright band across the face leaves two dark slivers of one die.
    scene, img, size = _reflected(3, 0.22)
    for det in (detect(img), detect(img, side=size)):
        assert len(det.dice) == 2
        assert _near(det.dice, scene.dice, size)


def test_a_purple_die_a_wide_reflection_cuts_in_two_is_found_once_the_side_is_known():
    """Glossy purple dice: a lamp's reflection over a third of a side wide, across a honey die, leaves
    two slivers with a gap between them. Joined, they span a die but cover two thirds of it, and the
    purple face is light enough that only 54 % of them is dark: the die was dropped as the shaded half
    of a light die. Once calibration has taught the side, what spans a die asks for less dark
    (counting.SQUARE_RELIEF)."""
    scene, img, size = _reflected(4, 0.38, body=(82, 50, 74), bevel=100)
    dice = detect(img, side=size).dice
    assert len(dice) == 2 and _near(dice, scene.dice, size), dice


@pytest.mark.parametrize("body", [(78, 78, 84), (86, 56, 48), (82, 50, 74)], ids=["smoky", "navy", "purple"])
def test_smoky_navy_and_purple_dice_are_found(body):
    # faces at about 0.36-0.4 of the tray's brightness (a black die is below 0.3), the rounded edge lighter still
    rng, rig = _plain_rig(4, body=body, bevel=100)
    rig = dataclasses.replace(rig, tray=(215.0, 215.0, 215.0), brightness=1.0, tint=(1.0, 1.0, 1.0))
    size = rig.die_size
    placed = [("bee", 200, 200, 0.2)] + _in_row(["zzz", "honey"], 420, 300, 0.7, size)
    scene = render.compose(rng, rig, placed, size)
    det = detect(scene.image)
    assert len(det.dice) == 3 and _near(det.dice, scene.dice, size)


def test_the_number_thrown_decides_an_ambiguous_cluster_but_never_adds_a_die():
    for seed in range(6):
        # a die leaning on another shows a side face: one die or two? Two flat dice and it were thrown.
        rng, rig = _plain_rig(seed)
        size = rig.die_size
        placed = [("bee", 300, 240, 0.3), ("honey", 300 + 1.01 * size * math.cos(0.3), 240 + 1.01 * size * math.sin(0.3), 0.3),
                  (render.COCKED, 300 + 2.1 * size * math.cos(0.3), 240 + 2.1 * size * math.sin(0.3), 0.3),
                  ("zzz", 90, 90, 0.5)]
        scene = render.compose(rng, rig, placed, size)
        det = detect(scene.image, side=size, expected=4)
        assert len(det.dice) == 4 and det.check is None
        # a block of four and a lone die, five thrown
        scene, _ = _cluster(seed, "block", 4)
        assert len(detect(scene.image, side=size, expected=5).dice) == 5
    # three dice lying apart cannot be five, whatever the hint: the detection says so and adds nothing
    rng, rig = _plain_rig(7)
    scene = render.compose(rng, rig, [("bee", 100, 100, 0.1), ("honey", 320, 240, 0.5), ("zzz", 520, 380, 1.0)],
                           rig.die_size)
    det = detect(scene.image, side=rig.die_size, expected=5)
    assert len(det.dice) == 3 and det.check == "the tray shows 3 dice where 5 were thrown"
    # nor, uncalibrated, are they cut smaller to make up the number (see the lone blocks below)
    det = detect(scene.image, expected=5)
    assert len(det.dice) == 3 and det.check == "the tray shows 3 dice where 5 were thrown"
    assert detect(scene.image, expected=range(1, 4)).check is None


@pytest.mark.parametrize("shape, n", [("block", 4), ("L", 3)])
def test_with_no_lone_die_to_show_the_size_the_number_thrown_counts_a_block(shape, n):
    # Out of the box (no calibration) the die size comes from the frame: with every die in one block,
    # the block passes for one big die. Told how many were thrown, the reader finds each of them.
    for seed in (1, 2, 3):
        rng, rig = _plain_rig(seed)
        size, angle = rig.die_size, float(rng.uniform(0, math.pi / 2))
        placed = [(f, x, y, a) for f, (x, y, a) in
                  zip(["bee", "honey", "zzz", "zombee"], layout.cluster_spots(shape, 320, 250, size, angle, n))]
        scene = render.compose(rng, rig, placed, size)
        det = detect(scene.image, expected=n)
        assert len(det.dice) == n and det.check is None and _near(det.dice, scene.dice, size)
        assert det.side == pytest.approx(size, rel=0.25)


def _two_sets(seed, scale=0.72):
    """Two of our dice, and dice of another set (scale times our side) beside them: a lone one and two
    touching at a corner, which make one dark patch. Returns (image, rig, truths of our dice)."""
    rng, rig = _plain_rig(seed)
    size, small = rig.die_size, rig.die_size * scale
    ours = [("bee", 200, 200, 0.3), ("honey", 420, 320, 0.9)]
    corner = layout.cluster_spots("corner", 480, 140, small, 0.4 + 0.3 * seed)
    others = [("zzz", 320, 110, 0.2), *[("bee", x, y, a) for x, y, a in corner]]
    img = render._tray(rig, rng)
    truths = []
    for dice, s in ((ours, size), (others, small)):
        for face, x, y, a in dice:
            render.paste_die(img, face, x, y, s, a, rig, rng)
            truths.append(render.DieTruth(face, x, y, s, a))
    image, moved = render.finish(img, rig, rng, truths)
    return image, rig, moved[:len(ours)]


def test_smaller_dice_of_another_set_are_not_counted_once_the_die_size_is_known():
    for seed in range(4):
        image, rig, ours = _two_sets(seed)
        dice = detect(image, side=rig.die_size).dice
        assert len(dice) == 2 and _near(dice, ours, rig.die_size), (seed, dice)
        # the same dice drawn at our size are ours: the size, not the place or the art, tells them apart
        image, rig, _ = _two_sets(seed, scale=1.0)
        assert len(detect(image, side=rig.die_size).dice) == 5


def test_our_die_cut_by_the_frame_under_a_reflection_or_cocked_still_counts():
    # each shows less of its top face than a whole die, or more: none is a smaller die
    found = []
    for seed in range(6):
        rng, rig = _plain_rig(seed)
        size = rig.die_size
        img = render._tray(rig, rng)
        render.paste_die(img, "bee", size * 0.1, 240, size, 0.0, rig, rng)  # four tenths outside the frame
        render.paste_cocked(img, 320, 240, size, 0.4, rig, rng)
        render.paste_die(img, "honey", 480, 150, size, 0.7, rig, rng)
        image, _ = render.finish(img, rig, rng, [])
        # a lamp's reflection, whiter than the tray, over half of the honey die (what is left of the
        # die is as small as a smaller set's; on some trays too little is left to be a die at all)
        cv2.ellipse(image, (int(480 + size * 0.1), 150), (int(size * 0.45), int(size * 0.7)), 40, 0, 360, (252, 252, 252), -1)
        dice = detect(image, side=size).dice
        found.append([any(b.x < size * 0.6 for b in dice),
                      any(abs(b.x - 320) < size and abs(b.y - 240) < size for b in dice),
                      any(abs(b.x - 480) < size and abs(b.y - 150) < size for b in dice)])
    edge, cocked, reflected = (sum(f[k] for f in found) for k in range(3))
    assert edge >= 5 and cocked == 6 and reflected >= 4, found


PHOTOS = Path(__file__).parent / "fixtures" / "dice-photos"


def _calibrated_sheet(change=lambda img: img):
    """(background, side) as `companion vision calibrate` finds them in the fixture photos as change
    shows them: the empty sheet, and the die size from the face photos."""
    background = cv2.resize(brightest(change(read_image(next((PHOTOS / "calibration" / "empty").glob("*.jpg"))))),
                            SMALL, interpolation=cv2.INTER_AREA)
    side = float(np.median([detect(change(read_image(p)), background=background).side
                            for p in sorted((PHOTOS / "calibration").glob("[bhz]*/*.jpg"))]))
    return background, side


def test_real_photos_every_dark_die_once_and_nothing_on_light_dice():
    background, side = _calibrated_sheet()
    labels = json.loads((PHOTOS / "detect" / "labels.json").read_text())
    for name, lab in labels.items():
        dice = detect(read_image(PHOTOS / "detect" / name), side=side, background=background).dice
        for truth in lab["dice"]:
            reach = 0.6 * (truth["box"][2] - truth["box"][0])
            hits = [b for b in dice if math.hypot(b.x - truth["x"], b.y - truth["y"]) <= reach]
            if truth["kind"] == "set":
                assert len(hits) == 1, (name, truth)  # found, and not cut in two
                # and centred on it, not pulled towards a light die it touches (the reader reads a crop there)
                assert math.hypot(hits[0].x - truth["x"], hits[0].y - truth["y"]) <= 0.15 * (truth["box"][2] - truth["box"][0])
            elif truth["body"] == "light" or truth["kind"] == "dark-other-size":
                assert not hits, (name, truth)  # a light or coloured die, or a smaller dark one, is no die of the set
        for b in dice:  # and no die where there is none
            assert any(math.hypot(b.x - t["x"], b.y - t["y"]) <= 0.6 * (t["box"][2] - t["box"][0])
                       for t in lab["dice"]), (name, b)


def test_a_five_whose_pips_a_shaken_camera_smears_over_its_face_is_found_on_green_felt():
    """A 7 px sideways shake smears a 5's white pips over its black face, and on green felt the face
    is a larger share of the tray's light: less than half of the die was dark enough, and the die, a
    die-sized square, was dropped as the shaded half of a light die. Once calibration taught the
    side, such a square is a die (a face never taught reads unknown there)."""
    def shaken_felt(img):
        return shaken(felt(img, 0.7))

    background, side = _calibrated_sheet(shaken_felt)
    name = "t1_IMG_20191208_112710.jpg"
    five = next(t for t in json.loads((PHOTOS / "read" / "labels.json").read_text())[name]["dice"] if t["value"] == 5)
    dice = detect(shaken_felt(read_image(PHOTOS / "read" / name)), side=side, background=background).dice
    assert [math.hypot(b.x - five["x"], b.y - five["y"]) < 0.3 * side for b in dice].count(True) == 1, dice
    # with the side measured from the frame alone, the same kind of square may be a gold die with black
    # pips (this 4 of 111642): as before, that is no die
    name = "t1_IMG_20191208_111642.jpg"
    gold = next(t for t in json.loads((PHOTOS / "detect" / "labels.json").read_text())[name]["dice"]
                if t["value"] == 4 and t["x"] > 280 and t["y"] > 420)
    dice = detect(read_image(PHOTOS / "detect" / name)).dice
    assert not [b for b in dice if math.hypot(b.x - gold["x"], b.y - gold["y"]) < 0.3 * side], dice


@pytest.mark.parametrize("cut", [np.s_[:, :], np.s_[3:40, 5:56], np.s_[::2, 1::3]])
def test_a_frames_brightest_channel_is_each_pixels_brightest_even_for_a_cut_out_part(cut):
    # brightest reads the three channels as one row; a part cut out of a frame (not laid out as one
    # block in memory) and an odd width must come out the same as the plain per-pixel maximum
    frame = np.random.default_rng(3).integers(0, 256, (61, 87, 3), np.uint8)[cut]
    got = brightest(frame)
    assert got.shape == frame.shape[:2] and got.dtype == np.uint8
    assert np.array_equal(got, frame.max(axis=2))
