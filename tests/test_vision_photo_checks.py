"""The calibration photos' checks (vision/photo_checks.py) that a model reading dice two ways changes:
a die is in the wrong folder only when every way of comparing dice puts it with another face. The
folder, copy and mixed-photo checks are exercised through calibrate() in test_vision_calibrate.py."""

from pathlib import Path

import numpy as np
import pytest

from vision.name.model import CLASSES
from vision.teach.photo_checks import CalibrationError, left_out_doubts

HONEY, ZOMBEE = CLASSES.index("honey"), CLASSES.index("zombee")
FILES = [Path("honey/h0.png"), Path("honey/h1.png")]
TRUTH = np.array([HONEY, HONEY])


def _distances(near_zombee: float, doubtful: float = 1.0) -> np.ndarray:
    """Left-out class distances of two honey dice: the first this near the ZomBees (its own face at 1)."""
    d = np.full((2, len(CLASSES)), 3.0)
    d[:, HONEY] = 1.0
    d[0, ZOMBEE], d[1, ZOMBEE] = near_zombee, doubtful
    return d


def test_a_die_every_way_puts_with_another_face_is_refused_naming_its_photo():
    with pytest.raises(CalibrationError, match=r"h0\.png.*looks like zombee.*every die in honey/ must show honey"):
        left_out_doubts(TRUTH, FILES, _distances(0.3), _distances(0.4))


def test_a_die_one_way_puts_with_another_face_is_kept_when_the_other_way_does_not():
    # the views put this honey drop among the ZomBees; the maps, which see the ZomBee's green, do not
    assert left_out_doubts(TRUTH, FILES, _distances(0.3), _distances(2.0)) == []
    assert left_out_doubts(TRUTH, FILES, _distances(2.0), _distances(0.3)) == []


def test_a_die_merely_nearer_another_face_every_way_is_named_for_a_second_look():
    doubts = left_out_doubts(TRUTH, FILES, _distances(2.0, doubtful=0.6), _distances(2.0, doubtful=0.7))
    assert doubts == ["check honey/h1.png: its die looks like zombee, not like the other photos of honey; "
                      "if it shows zombee, move it to zombee/ and calibrate again"]
    assert left_out_doubts(TRUTH, FILES, _distances(2.0, doubtful=0.6), _distances(2.0, doubtful=0.9)) == []


def test_a_die_nearer_another_face_is_only_named_where_the_faces_are_not_told_apart():
    # six honey dice and six zzz dice whose left-out distances put half of each nearest the other face:
    # one honey die far nearer the zzz is no sign of a misfiled photo there, only of faces the photos
    # do not tell apart, so calibration goes on and the report names the photo
    zzz = CLASSES.index("zzz")
    truth = np.array([HONEY] * 6 + [zzz] * 6)
    files = [Path(f"honey/h{i}.png") for i in range(6)] + [Path(f"zzz/z{i}.png") for i in range(6)]
    d = np.full((12, len(CLASSES)), 3.0)
    for i, t in enumerate(truth):
        other = zzz if t == HONEY else HONEY
        d[i, t], d[i, other] = (1.0, 0.8) if i % 2 else (1.0, 1.5)
    d[0, zzz] = 0.3  # far nearer the zzz than its own face
    doubts = left_out_doubts(truth, files, d)
    assert doubts[0].startswith("check honey/h0.png: its die looks like zzz")
    # the same die among faces told apart is refused
    for i, t in enumerate(truth[1:], start=1):
        d[i, :] = 3.0
        d[i, t] = 1.0
    with pytest.raises(CalibrationError, match=r"h0\.png.*looks like zzz"):
        left_out_doubts(truth, files, d)
