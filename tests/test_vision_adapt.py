"""The stock network's last layer refitted to one table's dice by calibration (vision/adapt.py)."""

from dataclasses import replace

import numpy as np
import pytest

from vision.teach import adapt

from vision.demo import render
from vision.teach.calibrate import NET_TRUST, _with_net, calibrate
from vision.teach.report import report_lines
from vision.name.model import CLASSES, UNKNOWN, Model
from vision.name.modelfile import load_model
from vision.reader import DiceReader
from tools.train import match

from test_vision_calibrate import rendered_table

BEE, ZZZ = CLASSES.index("bee"), CLASSES.index("zzz")


def _fooled(net: dict) -> dict:
    """The stock network as a table's art could fool its last layer: every bee it sees it calls a Zzz,
    and every Zzz a bee."""
    out = dict(net)
    out["w2"], out["b2"] = net["w2"].copy(), net["b2"].copy()
    out["w2"][:, [BEE, ZZZ]] = net["w2"][:, [ZZZ, BEE]]
    out["b2"][[BEE, ZZZ]] = net["b2"][[ZZZ, BEE]]
    return out


@pytest.fixture(scope="module")
def fooled_table(tmp_path_factory):
    folder, rig, rng = rendered_table(tmp_path_factory, 510)
    stock = load_model()
    base = replace(stock, net=_fooled(stock.net))
    return calibrate(folder, base=base), base, rig, rng


def test_a_network_fooled_by_the_tables_art_is_kept_once_refitted_to_its_photos(fooled_table):
    model, base, _, _ = fooled_table
    # each calibration die was read by the network refitted without the die's photo, and that read
    # them as well as the table's own prototypes do: a network still calling Zzz a bee would not be
    assert model.report["network"] is True
    assert model.net_trust == NET_TRUST  # and may take part of the prototypes' doubt away (model.gated)
    assert model.report["faces"]["bee"] >= 0.9 and model.report["faces"]["zzz"] >= 0.9
    assert any("network was refitted" in line for line in report_lines(model.report))
    # what it refitted is the face columns; what a cocked die looks like it keeps from training
    assert not np.allclose(model.net["w2"][:, BEE], base.net["w2"][:, BEE])
    assert np.array_equal(model.net["w2"][:, UNKNOWN], base.net["w2"][:, UNKNOWN])


def test_the_refitted_network_alone_reads_the_tables_new_rolls(fooled_table):
    model, _, rig, rng = fooled_table
    assert model.net is not None
    reader = DiceReader(replace(model, own_weight=0.0))  # the network names every face by itself
    right = total = bees_and_zzz = 0
    for _ in range(10):
        scene = render.render_scene(rng, rig, count=5)
        reading = reader.read(scene.image)
        for die, truth in zip(reading.dice, match(reading.dice, scene.dice)):
            if truth is None or not truth.readable:
                continue
            total += 1
            right += die.face == truth.face
            bees_and_zzz += truth.face in ("bee", "zzz")
    assert bees_and_zzz >= 10
    assert right / total >= 0.9


def _left_out(faces: list[int], margin: float) -> tuple:
    """(fit, base, truth) as calibration has them for dice of these faces: the photos' own prototypes
    read every left-out die right, its own face nearer than the others by margin (of a 0.5 radius).
    The fitted model stands in for the stock one too (base: the same radius and descriptor)."""
    truth = np.array(faces)
    model = Model(protos=np.zeros((1, 4), np.float32), labels=np.zeros(1, int), scale=0.12, radius=0.5)
    d = np.full((len(truth), len(CLASSES)), 0.3)
    d[np.arange(len(truth)), truth] = 0.3 - margin
    return (model, d, {"accuracy": 1.0}, 1.0), model, truth


def _net_reading(truth: np.ndarray, sure: float) -> np.ndarray:
    q = np.full((len(truth), len(CLASSES)), (1 - sure) / (len(CLASSES) - 1))
    q[np.arange(len(truth)), truth] = sure
    return q


def test_the_network_is_kept_when_it_reads_the_dice_far_more_surely_though_one_reads_the_other_way():
    fit, base, truth = _left_out([BEE, ZZZ] * 30, margin=0.05)
    q = _net_reading(truth, 0.97)
    q[0] = [0.08, 0.0, 0.9, 0.0, 0.02]  # one bee of sixty it takes for a Zzz
    kept = _with_net(fit, q, base, truth, {"bee": 3, "zzz": 3})
    assert kept is not None
    # with the prototypes, that bee still reads as a Zzz, and its report says so
    assert kept[2][0].argmax() == ZZZ
    assert kept[1]["faces"]["bee"] < 1.0 and kept[1]["faces"]["zzz"] == 1.0


def test_a_network_that_takes_the_dice_for_other_faces_is_left_out():
    fit, base, truth = _left_out([BEE, ZZZ] * 30, margin=0.2)
    # dice it was never made for (pips): it reads most as some other face
    q = _net_reading((truth + 1) % UNKNOWN, 0.9)
    assert _with_net(fit, q, base, truth, {"bee": 3, "zzz": 3}) is None


def _left_out_reads(monkeypatch, photos: int) -> tuple[list, np.ndarray, np.ndarray]:
    """(photos each refit was taught without, the photo of each die, and whether each die was read by
    a refit taught without its photo) for two dice a photo."""
    refits = []

    def refit(net, seen, faces, classes):  # the photos of the dice a refit is taught from
        taught = {int(h[0, 0, 0]) for h in seen}
        refits.append(set(range(photos)) - taught)
        return {"without": refits[-1]}

    def read(net, maps, extra, views=None):  # 1 in column 0 where no die read was taught from its photo
        out = np.zeros((len(maps), len(CLASSES)), np.float32)
        out[:, 0] = [int(m) in net["without"] for m in maps[:, 0, 0]]
        return out

    monkeypatch.setattr(adapt, "adapted", refit)
    monkeypatch.setattr(adapt, "net_proba", read)
    photo = np.repeat(np.arange(photos), 2)
    dice = [[(np.full((16, 16), p, np.float32), np.zeros(3, np.float32), None)] for p in photo]
    seen = [np.full((1, 8, 4), p, np.float32) for p in photo]
    out = adapt.left_out({}, dice, seen, photo % UNKNOWN, photo, UNKNOWN)
    return refits, photo, out[:, 0] == 1


def test_each_calibration_die_is_judged_by_a_network_refitted_without_its_photo(monkeypatch):
    refits, photo, unseen = _left_out_reads(monkeypatch, 6)
    assert unseen.all() and refits == [{p} for p in range(6)]  # up to FOLDS photos, one left out at a time


def test_many_calibration_photos_take_no_more_refits_than_folds(monkeypatch):
    # corrections learned at the table add photos every time; one refit per photo grew with their square
    refits, photo, unseen = _left_out_reads(monkeypatch, 3 * adapt.FOLDS + 5)
    assert unseen.all() and len(refits) == adapt.FOLDS
    assert sorted(p for left in refits for p in left) == list(range(3 * adapt.FOLDS + 5))  # each left out once
