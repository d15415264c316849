import itertools

import numpy as np

from companion.commands import DICE_FACES
from vision.demo import render


def test_scene_has_requested_faces_inside_the_frame():
    rng = np.random.default_rng(1)
    scene = render.render_scene(rng, faces=["bee", "honey", "zzz", "zombee", "bee"])
    assert sorted(d.face for d in scene.dice) == sorted(["bee", "honey", "zzz", "zombee", "bee"])
    assert scene.image.shape == (render.HEIGHT, render.WIDTH, 3) and scene.image.dtype == np.uint8
    for d in scene.dice:
        assert 0 <= d.x < render.WIDTH and 0 <= d.y < render.HEIGHT
        assert d.readable


def test_same_seed_same_photo_other_seed_other_photo():
    a = render.render_scene(np.random.default_rng(7), count=4)
    b = render.render_scene(np.random.default_rng(7), count=4)
    c = render.render_scene(np.random.default_rng(8), count=4)
    assert np.array_equal(a.image, b.image)
    assert not np.array_equal(a.image, c.image)


def test_faces_are_drawn_in_their_colours():
    def share(img, cond):
        b, g, r = (img[..., i].astype(int) for i in range(3))
        return cond(b, g, r).mean()

    yellow = lambda b, g, r: (r > 180) & (g > 150) & (b < 100)
    green = lambda b, g, r: (g > 150) & (r < 120) & (b < 120)
    for face in ("bee", "honey", "zzz"):
        img = render.draw_face(face)
        assert share(img, yellow) > 0.08 and share(img, green) < 0.01, face
    zombee = render.draw_face("zombee")
    assert share(zombee, green) > 0.08 and share(zombee, yellow) < 0.01
    # the bee's wings are light and its stripes cut the body: it is not a honey drop
    assert not np.array_equal(render.draw_face("bee") > 150, render.draw_face("honey") > 150)


def test_cocked_dice_are_labelled_unreadable_and_hands_flagged():
    scene = render.render_scene(np.random.default_rng(3), faces=["bee"], cocked=2, hand=True)
    cocked = [d for d in scene.dice if d.face == render.COCKED]
    assert len(cocked) == 2 and not any(d.readable for d in cocked)
    assert scene.hand
    # the hand is a large skin-toned area
    b, g, r = (scene.image[..., i].astype(int) for i in range(3))
    assert ((r > g + 15) & (g > b + 10) & (r > 120)).mean() > 0.05


def test_sliding_dice_are_blurred_and_unreadable():
    still = render.render_scene(np.random.default_rng(5), faces=["honey"] * 3)
    moving = render.render_scene(np.random.default_rng(5), faces=["honey"] * 3, motion=10)
    assert moving.moving and not any(d.readable for d in moving.dice)
    sharp = lambda img: np.abs(np.diff(img.astype(int), axis=1)).mean()
    assert sharp(moving.image) < sharp(still.image)


def test_calibration_set_layout(tmp_path):
    rng = np.random.default_rng(2)
    render.write_calibration_set(tmp_path, rng, render.random_rig(rng), per_face=2, empty=1)
    assert len(list((tmp_path / "empty").iterdir())) == 1
    for face in DICE_FACES:
        assert len(list((tmp_path / face).glob("*.png"))) == 2


def test_rigs_draw_dice_of_several_makers_and_trays():
    arts = [render.random_rig(np.random.default_rng(s)).art for s in range(40)]
    assert len({a.body for a in arts}) >= 3 and len({a.tray for a in arts}) >= 3
    assert len({(a.bee, a.honey, a.zzz) for a in arts}) >= 4
    held = {(a.bee, a.honey, a.zzz) for a in render.HELDOUT_ART}
    # the held-out symbol styles are never drawn for training
    assert not {a.bee for a in arts} & {a.bee for a in render.HELDOUT_ART}
    assert not {a.honey for a in arts} & {a.honey for a in render.HELDOUT_ART}
    assert held


def test_every_training_symbol_style_draws_a_face_of_its_own():
    from vision.demo.art import BEES, HONEYS, MORE_BEES, MORE_HONEYS, MORE_ZZZS, ZZZS, Art
    # a style drawn like another (or not at all) would widen nothing the network learns from
    for face, field, styles in (("bee", "bee", BEES + MORE_BEES), ("honey", "honey", HONEYS + MORE_HONEYS),
                                ("zzz", "zzz", ZZZS + MORE_ZZZS)):
        drawn = {s: render.draw_face(face, art=Art(**{field: s})).astype(int) for s in styles}
        for a, b in itertools.combinations(styles, 2):
            assert (np.abs(drawn[a] - drawn[b]).max(axis=2) > 60).mean() > 0.01, (face, a, b)
        held = {getattr(art, field) for art in render.HELDOUT_ART}
        assert not held & set(styles), face


def test_only_the_networks_training_draws_the_wider_art():
    from vision.demo.art import MORE_BEES, MORE_HONEYS, MORE_ZZZS
    from tools.train import LEARN
    more = set(MORE_BEES + MORE_HONEYS + MORE_ZZZS)

    def styles(cond):
        arts = [render.random_rig(np.random.default_rng(s), cond).art for s in range(60)]
        return {a.bee for a in arts} | {a.honey for a in arts} | {a.zzz for a in arts}

    assert not styles(render.TRAIN) & more  # the bench's trays are drawn as before
    assert styles(LEARN) >= more


def test_art_changes_the_look_but_not_where_the_dice_land():
    rng_a, rng_b = np.random.default_rng(11), np.random.default_rng(11)
    rig = render.random_rig(rng_a)
    other = render.with_art(render.random_rig(rng_b), render.HELDOUT_ART[0])
    a = render.render_scene(rng_a, rig, count=4)
    b = render.render_scene(rng_b, other, count=4)
    assert [(d.x, d.y) for d in a.dice] == [(d.x, d.y) for d in b.dice]
    assert not np.array_equal(a.image, b.image)


def test_held_out_symbols_differ_from_the_training_ones():
    plain = render.draw_face("honey")
    comb = render.draw_face("honey", art=render.HELDOUT_ART[0])
    assert (np.abs(plain.astype(int) - comb.astype(int)).max(axis=2) > 60).mean() > 0.05


def test_training_draws_each_symbol_a_little_differently_and_held_out_trays_never_do():
    from dataclasses import replace

    from vision.demo.art import DEFAULT_ART, distort
    from tools.train import LEARN

    face = render.draw_face("bee")
    rng = np.random.default_rng(4)
    a, b = distort(face, DEFAULT_ART, rng, 1.0), distort(face, DEFAULT_ART, rng, 1.0)
    moved = np.abs(a.astype(int) - face.astype(int)).max(axis=2) > 60
    assert moved.mean() > 0.02 and not np.array_equal(a, b)  # the symbol moved, and differently each time
    assert np.array_equal(a[:3], face[:3]) and np.array_equal(a[:, -3:], face[:, -3:])  # the bevel did not
    assert LEARN.distort > 0 and render.HELDOUT.distort == 0 == render.TRAIN.distort
    # and the renderer applies it only under conditions that ask for it, leaving the layout alone
    rig = render.random_rig(np.random.default_rng(8))
    plain = render.render_scene(np.random.default_rng(9), rig, count=3)
    drawn = render.render_scene(np.random.default_rng(9), replace(rig, conditions=LEARN), count=3)
    assert [(d.x, d.y) for d in plain.dice] == [(d.x, d.y) for d in drawn.dice]
    assert not np.array_equal(plain.image, drawn.image)


def test_pip_dice_show_one_to_six_pips_and_a_five_or_six_must_read_unknown():
    from vision.demo.art import PIP_ART, PIP_FACES

    art = PIP_ART[0]
    bright = {f: int((render.draw_face(f, art=art).min(axis=2) > 150).sum()) for f in PIP_FACES}
    # more pips, more pip-coloured face (a 1's single pip is drawn larger than the others)
    assert bright["honey"] < bright["zzz"] < bright["zombee"] < bright["five"] < bright["six"]
    rng = np.random.default_rng(3)
    rig = render.with_art(render.random_rig(rng), art)
    scene = render.render_scene(rng, rig, faces=["bee", "zombee", "five", "six"])
    assert {d.face: d.readable for d in scene.dice} == {"bee": True, "zombee": True, "five": False, "six": False}
