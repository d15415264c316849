import time

import numpy as np
import pytest

from companion.errors import ConfigError
from vision import model as vm


def test_default_model_loads_quickly_and_is_versioned():
    vm._load_default.cache_clear()
    t = time.perf_counter()
    m = vm.load_model()
    assert time.perf_counter() - t < 1.0  # target is 200 ms; generous for a loaded test machine
    with np.load(vm.DEFAULT_PATH) as z:
        assert int(z["format_version"]) == vm.FORMAT_VERSION
    assert m.predict_proba(np.zeros((2, m.mean.shape[0]), np.float32)).shape == (2, len(vm.CLASSES))


def test_round_trip_keeps_predictions(tmp_path):
    m = vm.load_model()
    m.side = 31.5
    path = tmp_path / "m.npz"
    vm.save_model(m, path)
    back = vm.load_model(path)
    x = np.random.default_rng(0).normal(size=(5, m.mean.shape[0])).astype(np.float32) * m.std + m.mean
    assert np.allclose(m.predict_proba(x), back.predict_proba(x), atol=1e-5)
    assert back.side == pytest.approx(31.5)


def test_wrong_version_is_refused_with_the_file_named(tmp_path):
    path = tmp_path / "old.npz"
    with np.load(vm.DEFAULT_PATH) as z:
        data = {k: z[k] for k in z.files}
    data["format_version"] = np.array(vm.FORMAT_VERSION + 1)
    with open(path, "wb") as fh:
        np.savez(fh, **data)
    with pytest.raises(vm.ModelError, match="old.npz.*version") as info:
        vm.load_model(path)
    assert isinstance(info.value, ConfigError)


@pytest.mark.parametrize("content", [b"", b"garbage", b"PK\x03\x04 truncated zip"])
def test_corrupt_or_missing_model_is_a_clear_error(tmp_path, content):
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    with pytest.raises(vm.ModelError, match="bad.npz"):
        vm.load_model(path)
    with pytest.raises(vm.ModelError, match="does not exist"):
        vm.load_model(tmp_path / "nope.npz")


def test_training_is_deterministic():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 6)).astype(np.float32)
    y = np.arange(60) % len(vm.CLASSES)
    x[:, 0] += y * 3  # separable: the network must learn it
    a, b = vm.fit(x, y, seed=1, epochs=150), vm.fit(x, y, seed=1, epochs=150)
    assert np.array_equal(a.w1, b.w1)
    assert (a.predict_proba(x).argmax(1) == y).mean() > 0.95
