import math
from dataclasses import replace

import numpy as np

from vision.demo import render
from vision.name.cnn import looks
from vision.find.detect import detect
from vision.cut.features import PATCH, SOFTEN, VIEW_PATCH, crop, deglared, die_features, die_views, views_of
from vision.name.model import CLASSES
from vision.name.modelfile import load_model
from vision.cut.symbol import dice_patches, symbol_features


def _one_die(face, angle, quarter_seed, lamp=True):
    rig = render.random_rig(np.random.default_rng(3))
    if not lamp:  # no reflection of the lamp on the die
        rig = replace(rig, art=replace(rig.art, gloss=0.0), conditions=replace(rig.conditions, glare=0.0))
    rng = np.random.default_rng(quarter_seed)
    scene = render.compose(rng, rig, [(face, 320.0, 240.0, angle)], rig.die_size)
    det = detect(scene.image, side=rig.die_size)
    assert len(det.dice) == 1
    b = det.dice[0]
    return (die_features(scene.image, b, det.side, det.tray)[None], symbol_features(scene.image, b, det.side, det.tray)[None],
            die_views(scene.image, b, det.side, det.tray)[None],
            looks(dice_patches(scene.image, [b], det.side), det.tray))


def test_a_die_turned_any_way_reads_the_same():
    model = load_model()
    for face in ("bee", "honey", "zzz", "zombee"):
        for angle, seed in ((0.1, 1), (0.6, 2), (1.2, 3), (2.9, 4)):
            # no lamp in the face: this is about turning (glare is measured in bench/vision.py; a round
            # honey drop with a white glare spot in its middle can pass for a bee with white wings)
            x, extra, views, seen = _one_die(face, angle, seed, lamp=False)
            proba = model.predict_proba(x, extra, views, looks=seen)[0]
            assert CLASSES[int(proba.argmax())] == face, (face, angle)


def test_crop_is_square_to_the_die():
    img = np.full((200, 200, 3), 220, np.uint8)
    cv_box = ((100, 100), (60, 60), 30)
    import cv2

    cv2.fillPoly(img, [cv2.boxPoints(cv_box).astype(np.int32)], (20, 20, 20))
    p = crop(img, 100, 100, 60, math.radians(30))
    assert p.shape == (PATCH, PATCH, 3)
    assert p[2:-2, 2:-2].max() < 80  # all die, no tray peeking in at the corners


def test_the_map_of_a_turned_or_mirrored_crop_is_one_of_its_eight_views():
    from vision.cut.features import PATCH, dihedral, face_map

    rig = render.random_rig(np.random.default_rng(5))
    scene = render.compose(np.random.default_rng(6), rig, [("bee", 320.0, 240.0, 0.0)], rig.die_size)
    det = detect(scene.image, side=rig.die_size)
    p = crop(scene.image, 320.0, 240.0, rig.die_size, 0.0, 1.0)
    assert p.shape == (PATCH, PATCH, 3)
    views = dihedral(face_map(p, det.tray)[None])[0]
    for turned in (np.rot90(p), p[::-1], np.rot90(p, 3)[:, ::-1]):
        m = face_map(np.ascontiguousarray(turned), det.tray)
        assert np.min(np.linalg.norm(views - m, axis=1)) < 1e-4


def test_each_die_is_described_the_same_alone_as_among_the_other_dice_of_its_frame():
    # the reader describes all the dice of a frame together (one pass of numpy over their crops):
    # no die may borrow anything of another's
    from vision.cut.features import dice_maps, dice_views
    from vision.cut.symbol import dice_symbols

    rng = np.random.default_rng(11)
    scene = render.render_scene(rng, render.random_rig(rng), faces=["bee", "honey", "zzz", "zombee", "honey"])
    det = detect(scene.image)
    assert len(det.dice) == 5
    args = (det.side, det.tray)
    together = (dice_maps(scene.image, det.dice, *args), dice_symbols(scene.image, det.dice, *args),
                dice_views(scene.image, det.dice, *args), dice_views(scene.image, det.dice, *args, None, SOFTEN))
    for i, b in enumerate(det.dice):
        alone = (die_features(scene.image, b, *args), symbol_features(scene.image, b, *args),
                 die_views(scene.image, b, *args), die_views(scene.image, b, *args, None, SOFTEN))
        for one, all_of_them in zip(alone, together):
            assert np.array_equal(one, all_of_them[i])


def test_a_softened_view_of_a_die_in_a_noisy_dim_picture_lies_nearer_its_clear_self():
    # what a calibrated model compares (Model.soften): the edges of the die's pips, not the sensor's grain
    rig = render.random_rig(np.random.default_rng(3))
    rig = replace(rig, art=replace(rig.art, gloss=0.0), conditions=replace(rig.conditions, glare=0.0))
    scene = render.compose(np.random.default_rng(5), rig, [("honey", 320.0, 240.0, 0.3)], rig.die_size)
    det = detect(scene.image, side=rig.die_size)
    noise = np.random.default_rng(6).normal(0, 5, scene.image.shape)
    grainy = np.clip(scene.image * 0.45 + noise, 0, 255).astype(np.uint8)
    dim = np.clip(scene.image * 0.45, 0, 255).astype(np.uint8)
    b, args = det.dice[0], (det.side, det.tray * 0.45)

    def apart(soften):
        return np.linalg.norm(die_views(grainy, b, *args, None, soften) - die_views(dim, b, *args, None, soften))

    assert apart(SOFTEN) < 0.9 * apart(0.0)


def test_signed_views_tell_a_light_pip_on_a_dark_face_from_a_dark_hole_in_a_light_one():
    # a calibrated model's edge directions (Model.signed) know which side of an edge is lighter: the
    # rim of a pip and the rim of a shadow or of a glare arc's dark gap are not the same edge to it
    import cv2

    def die(body, spots):
        p = np.full((VIEW_PATCH, VIEW_PATCH, 3), body, np.uint8)
        for x, y, r in ((19, 19, 5), (10, 10, 4)):
            cv2.circle(p, (x, y), r, (spots,) * 3, -1, cv2.LINE_AA)
        return p

    tray = np.full(3, 200.0, np.float32)
    pips, holes = np.stack([die(40, 220)]), np.stack([die(220, 40)])
    folded = np.linalg.norm(views_of(pips, tray) - views_of(holes, tray))
    signed = np.linalg.norm(views_of(pips, tray, signed=True) - views_of(holes, tray, signed=True))
    assert folded < 0.1 < 1.0 < signed


def test_a_lamps_streak_is_taken_down_and_a_pip_kept():
    """A dark face with a pip a quarter of its side across and a lamp's streak two pixels wide: deglared
    takes the streak down to the face around it and leaves the pip as bright as it was."""
    import cv2

    face = np.full((VIEW_PATCH, VIEW_PATCH, 3), 40, np.uint8)
    cv2.circle(face, (12, 26), 4, (200, 200, 200), -1)
    cv2.line(face, (8, 6), (32, 18), (230, 230, 230), 2)
    clean = deglared(face[None])[0]
    assert clean[12, 20].max() < 70 and face[12, 20].max() > 200  # on the streak
    assert clean[26, 12].min() == 200  # the pip's middle
    assert np.abs(clean.astype(int) - face).max(axis=2)[face.max(axis=2) == 40].max() == 0  # the face untouched
