import numpy as np

from vision.name.cnn import SIDE
from vision.name.model import CLASSES
from vision.demo.render import DieTruth
from tools.train import build_default, label_of, match


def test_training_from_the_renderer_is_deterministic():
    a, xa, ea, ya, va, ca = build_default(scenes=10, workers=1, per_class=5, epochs=20, crop_epochs=0)
    b, xb, eb, yb, vb, cb = build_default(scenes=10, workers=1, per_class=5, epochs=20, crop_epochs=0)
    assert np.array_equal(xa, xb) and np.array_equal(ya, yb) and np.array_equal(ea, eb) and np.array_equal(va, vb)
    assert np.array_equal(ca, cb) and ca.shape == (len(ya), SIDE, SIDE, 3) and a.cnn is None
    assert np.array_equal(a.protos, b.protos) and (a.scale, a.radius) == (b.scale, b.radius)
    assert all(np.array_equal(a.net[k], b.net[k]) for k in a.net)
    assert set(ya) <= set(range(len(CLASSES)))


def test_detections_are_matched_to_the_nearest_die_once():
    class B:
        def __init__(self, x, y):
            self.x, self.y = x, y

    truths = [DieTruth("bee", 100, 100, 30, 0), DieTruth("cocked", 200, 100, 30, 0, readable=False)]
    got = match([B(102, 99), B(104, 101), B(199, 103), B(400, 400)], truths)
    assert got[0].face == "bee" and got[1] is None and got[2].face == "cocked" and got[3] is None
    assert [label_of(t) for t in got] == [0, CLASSES.index("unknown"), CLASSES.index("unknown"),
                                          CLASSES.index("unknown")]
