"""Pip dice taught as the four faces: the pip reader's beliefs joined to the prototypes' (vision/name/pipfaces.py)."""
import numpy as np

from vision.name.model import CLASSES
from vision.name.pipfaces import PIP_WEIGHTS, joined, pip_values, pip_weight
from vision.pips.net import READER_CLASSES

COUNTS = (1, 2, 3, 4)  # bee, honey, zzz, zombee as the real photos' dice show them


def _belief(read: str, sure: float = 0.9) -> np.ndarray:
    """The pip reader's beliefs (its classes: 1-6, unknown, none), sure of read, the rest spread evenly."""
    b = np.full(len(READER_CLASSES), (1 - sure) / (len(READER_CLASSES) - 1))
    b[READER_CLASSES.index(read)] = sure
    return b


def _proba(**faces) -> np.ndarray:
    p = np.array([faces.get(c, 0.0) for c in CLASSES])
    return p / p.sum()


def test_a_honey_the_prototypes_doubt_as_zzz_reads_honey_when_its_two_pips_are_clear():
    p = _proba(honey=0.4, zzz=0.45, unknown=0.15)  # a lamp's highlight where a zzz has its middle pip
    out = joined(p[None], _belief("2")[None], COUNTS)
    assert CLASSES[out.argmax()] == "honey"


def test_a_count_no_face_shows_carries_its_belief_to_unknown():
    p = _proba(zombee=0.55, unknown=0.45)  # a 5 near the 4s taught
    out = joined(p[None], _belief("5")[None], COUNTS)[0]
    assert CLASSES[out.argmax()] == "unknown"
    fives = (1, 2, 3, 5)  # a table whose ZomBee is a 5
    assert CLASSES[joined(p[None], _belief("5")[None], fives)[0].argmax()] == "zombee"


def test_a_face_either_reading_rules_out_stays_down():
    p = _proba(bee=0.98, unknown=0.02)
    out = joined(p[None], _belief("3", 0.97)[None], COUNTS)[0]
    assert out[CLASSES.index("zzz")] < 0.01  # the prototypes rule the zzz out: the pips cannot lift it
    assert out.max() < 0.9  # and the bee is no longer sure: a question for the table (vision/doubt.py)


def test_calibration_takes_each_faces_count_only_when_the_pip_reader_agrees_on_it():
    truth = np.repeat(np.arange(4), 5)
    seen = np.array([_belief(str(c)) for c in np.repeat(COUNTS, 5)])
    assert pip_values(seen, truth) == COUNTS
    seen[5:8] = [_belief("unknown")] * 3  # three of five honeys unreadable: not pip dice enough to trust
    assert pip_values(seen, truth) == ()
    twice = np.array([_belief(str(c)) for c in np.repeat((1, 2, 2, 4), 5)])  # two faces one count
    assert pip_values(twice, truth) == ()
    symbols = np.array([_belief("none")] * 20)  # ZomBee dice: no pips for the reader to count
    assert pip_values(symbols, truth) == ()
    assert pip_values(seen[:15], truth[:15]) == ()  # a face with no die


def test_calibration_trusts_the_pip_reader_more_where_the_prototypes_misread_the_dice_left_out():
    truth = np.repeat(np.arange(4), 5)
    clear = np.array([_belief(str(c), 0.95) for c in np.repeat(COUNTS, 5)])
    unsure = np.array([_belief(str(c), 0.35) for c in np.repeat(COUNTS, 5)])  # right, but barely
    knows = np.array([_proba(**{CLASSES[f]: 0.9, "unknown": 0.1}) for f in truth])
    # two honeys of five doubted as zzz by the prototypes, as a lamp's highlight makes them
    doubts = knows.copy()
    doubts[5:7] = _proba(honey=0.3, zzz=0.6, unknown=0.1)
    more, less = pip_weight(doubts, clear, COUNTS, truth), pip_weight(knows, unsure, COUNTS, truth)
    assert more > less  # a share fixed for every table fails here
    assert (more, less) == (max(PIP_WEIGHTS), min(PIP_WEIGHTS))
