from dataclasses import replace

import numpy as np
import pytest

from companion.errors import ConfigError
from vision.name import model as vm
from vision.name import modelfile as mf
from vision.name.cnn import SIDE


def _statistics(m):
    """How many symbol statistics the model's network reads beside each map and its edge directions."""
    from vision.name.net import edges_read
    return m.net["mean"].shape[0] - vm.DIM - edges_read(m.net)


def test_default_model_loads_and_is_versioned():
    mf._load_default.cache_clear()
    m = mf.load_model()  # how fast: bench/vision.py prints the median load time against its 200 ms target
    with np.load(mf.DEFAULT_PATH) as z:
        assert int(z["format_version"]) == mf.FORMAT_VERSION
    extra = np.zeros((2, _statistics(m)), np.float32) if m.needs_symbols else None
    views = np.zeros((2, 8, vm.WIDTH[m.descriptor]), np.float32) if m.needs_views else None
    looks = np.zeros((2, SIDE, SIDE, 3), np.float32) if m.needs_looks else None
    assert m.predict_proba(np.zeros((2, vm.DIM), np.float32), extra, views, looks=looks).shape == (2, len(vm.CLASSES))


def test_round_trip_keeps_predictions(tmp_path):
    m = mf.load_model()
    m.side = 31.5
    m.dark = 1.45  # a darker tray than white card, learned at calibration
    m.shrink = 0.35  # a camera close over the tray: its frames are read at a third of their size
    assert m.soften == 0  # the shipped network and prototypes learned unblurred edges
    m.soften = 0.6  # a calibrated model's views are made from a blurred crop
    assert m.nudge == 0  # the shipped model reads each die from one cut
    m.nudge = 0.03  # a calibrated pip model reads a doubtful die again from cuts nudged off centre
    path = tmp_path / "m.npz"
    mf.save_model(m, path)
    back = mf.load_model(path)
    rng = np.random.default_rng(0)
    x = rng.normal(0, 0.1, (5, vm.DIM)).astype(np.float32)  # the maps the network reads
    views = (m.protos[:5, None] + rng.normal(0, 0.02, (5, 8, m.protos.shape[1]))).astype(np.float32)
    extra = rng.normal(size=(5, _statistics(m))).astype(np.float32) if m.needs_symbols else None
    looks = rng.uniform(0, 1, (5, SIDE, SIDE, 3)).astype(np.float32) if m.needs_looks else None
    assert np.allclose(m.predict_proba(x, extra, views, looks=looks), back.predict_proba(x, extra, views, looks=looks),
                       atol=1e-3)
    assert back.needs_symbols == m.needs_symbols and back.needs_looks == m.needs_looks
    assert back.side == pytest.approx(31.5) and back.dark == pytest.approx(1.45)
    assert back.shrink == pytest.approx(0.35) and back.soften == pytest.approx(0.6)
    assert back.nudge == pytest.approx(0.03)


def test_a_die_read_from_several_cuts_is_as_near_each_face_as_its_nearest_cut():
    m = mf.load_model()
    rng = np.random.default_rng(3)
    views = (m.protos[:3, None] + rng.normal(0, 0.05, (3, 8, m.protos.shape[1]))).astype(np.float32)
    nudged = (m.protos[:3, None] + rng.normal(0, 0.05, (3, 32, m.protos.shape[1]))).astype(np.float32)
    both = m.distances(np.concatenate([views, nudged], axis=1))
    apart = np.stack([m.distances(views)] + [m.distances(nudged[:, 8 * k:8 * k + 8]) for k in range(4)])
    assert np.allclose(both, apart.min(axis=0), atol=1e-4)
    assert m.distances(nudged[:0]).shape == (0, len(vm.CLASSES))  # a frame with no die to read
    # the reader compares the cut it read once only: a nudged cut nearer a face than it carries the reading
    m = replace(m, net=None)  # the prototypes alone, as a calibrated model of pip dice reads
    x, off = np.zeros((3, vm.DIM), np.float32), (views + rng.normal(0, 0.3, views.shape)).astype(np.float32)
    on = (m.protos[:3, None] + rng.normal(0, 0.02, nudged.shape)).astype(np.float32)
    at_once = m.predict_proba(x, None, np.concatenate([off, on], axis=1))
    assert not np.allclose(at_once, m.predict_proba(x, None, off), atol=0.1)
    assert np.allclose(at_once, m.predict_proba(x, None, off, near=np.minimum(m.near(x, off), m.distances(on))),
                       atol=1e-4)


def test_a_calibrated_tray_keeps_its_own_colour_and_only_a_change_of_light_is_divided_out(tmp_path):
    brown = np.array([90.0, 125.0, 160.0], np.float32)  # a wooden table's BGR as the empty photos showed it
    m = mf.load_model()
    assert np.array_equal(m.white(brown), brown)  # uncalibrated: the tray is taken for white
    m.tray_colour = brown
    mf.save_model(m, tmp_path / "wood.npz")
    back = mf.load_model(tmp_path / "wood.npz")
    assert np.allclose(back.tray_colour, brown)
    # the same table in the same light: a die's brightness (for its views) is divided by one number,
    # the table's, so a red pip stays as much brighter than the die as the camera shows it
    assert np.allclose(back.white(brown), [160.0] * 3)
    # a warmer, dimmer lamp tonight: that change is divided out, channel by channel
    lamp = np.array([0.6, 0.8, 0.9], np.float32)
    assert np.allclose(back.white(brown * lamp), 160.0 * lamp)


@pytest.mark.parametrize("colour", [np.zeros(3, np.float32), np.array([1.0, np.nan, 2.0], np.float32),
                                    np.ones(4, np.float32)])
def test_a_damaged_tray_colour_is_refused_with_the_file_named(tmp_path, colour):
    m = mf.load_model()
    m.tray_colour = colour
    mf.save_model(m, tmp_path / "odd.npz")
    with pytest.raises(vm.ModelError, match="odd.npz.*tray colour"):
        mf.load_model(tmp_path / "odd.npz")


def test_wrong_version_is_refused_with_the_file_named(tmp_path):
    path = tmp_path / "old.npz"
    with np.load(mf.DEFAULT_PATH) as z:
        data = {k: z[k] for k in z.files}
    data["format_version"] = np.array(mf.FORMAT_VERSION + 1)
    with open(path, "wb") as fh:
        np.savez(fh, **data)
    with pytest.raises(vm.ModelError, match="old.npz.*version") as info:
        mf.load_model(path)
    assert isinstance(info.value, ConfigError)
    # made by a newer companion: updating this one is the cure (it said "run python -m tools.train")
    assert "made by a newer companion" in str(info.value) and "update the companion" in str(info.value)


def _damage(path, field, value) -> None:
    """The model file at path with one field replaced by value, as a hand edit or a half write leaves it."""
    with np.load(path) as z:
        data = {k: z[k] for k in z.files}
    data[field] = np.asarray(value)
    with open(path, "wb") as fh:
        np.savez(fh, **data)


@pytest.mark.parametrize("field, value", [("format_version", "abc"), ("side", "x"), ("dark", np.array([])),
                                          ("labels", "bee"), ("classes", np.array(3)), ("background", "tray"),
                                          ("background", np.array([1.0, 2.0])), ("scale", np.nan), ("dark", -1.0)])
def test_a_model_file_with_one_field_damaged_is_refused_with_the_file_named(tmp_path, field, value):
    # A hand-edited or half-written field came out as a traceback (int('abc'), cv2.error on a picture of
    # the empty tray that was a string): every one is the one-line ModelError naming the file.
    path = tmp_path / "edited.npz"
    m = mf.load_model()
    m.background = np.full((24, 32), 200.0, np.float32)
    mf.save_model(m, path)
    _damage(path, field, value)
    with pytest.raises(vm.ModelError, match="edited.npz") as info:
        mf.load_model(path)
    assert isinstance(info.value, ConfigError)


@pytest.mark.parametrize("field, value", [("second_protos", np.ones((3, 5), np.float32)), ("second_scale", np.nan),
                                          ("second_descriptor", "smell")])
def test_a_damaged_second_way_of_comparing_is_refused_with_the_file_named(tmp_path, field, value):
    path = tmp_path / "both.npz"
    m = replace(mf.load_model(), second=_toy(), second_weight=0.3)
    mf.save_model(m, path)
    back = mf.load_model(path)
    assert back.second.descriptor == "map" and back.second_weight == pytest.approx(0.3)
    assert back.second.net is back.net  # one network, read once per die by each way
    _damage(path, field, value)
    with pytest.raises(vm.ModelError, match="both.npz"):
        mf.load_model(path)


@pytest.mark.parametrize("field, value", [("pips", np.array([1, 2, 2, 4])), ("pips", np.array([1, 2, 3])),
                                          ("pips", np.array([1, 2, 3, 9])), ("pips", np.array("abc")),
                                          ("pip_weight", np.nan), ("pip_weight", 0.0), ("pip_weight", 1.5)])
def test_pip_counts_keep_in_the_file_and_damaged_ones_are_refused_with_the_file_named(tmp_path, field, value):
    path = tmp_path / "pips.npz"
    mf.save_model(replace(mf.load_model(), pips=(1, 2, 3, 6), pip_weight=0.5), path)
    back = mf.load_model(path)
    assert back.pips == (1, 2, 3, 6) and back.pip_weight == pytest.approx(0.5)
    _damage(path, field, value)
    with pytest.raises(vm.ModelError, match="pips.npz"):
        mf.load_model(path)


@pytest.mark.parametrize("field", ["parallax", "sides"])
@pytest.mark.parametrize("value", [np.nan, -0.5, 9.0, "far"])
def test_the_parallax_and_sides_keep_in_the_file_and_a_damaged_one_is_refused_with_the_file_named(tmp_path, field,
                                                                                                  value):
    path = tmp_path / "sides.npz"
    mf.save_model(replace(mf.load_model(), **{field: 0.5}), path)
    assert getattr(mf.load_model(path), field) == pytest.approx(0.5)
    _damage(path, field, value)
    with pytest.raises(vm.ModelError, match="sides.npz"):
        mf.load_model(path)


@pytest.mark.parametrize("value", [np.nan, 1.5, 3, -2, "green"])
def test_the_colour_channel_keeps_in_the_file_and_a_damaged_one_is_refused_with_the_file_named(tmp_path, value):
    path = tmp_path / "purple.npz"
    mf.save_model(replace(mf.load_model(), channel=1), path)
    assert mf.load_model(path).channel == 1
    _damage(path, "channel", value)
    with pytest.raises(vm.ModelError, match="purple.npz"):
        mf.load_model(path)


def test_a_model_file_from_before_coloured_dice_looks_for_dice_in_their_brightest_channel(tmp_path):
    path = tmp_path / "old.npz"
    mf.save_model(mf.load_model(), path)
    with np.load(path) as z:
        data = {k: z[k] for k in z.files if k != "channel"}
    np.savez(path, **data)
    assert mf.load_model(path).channel == -1


def test_dice_read_two_ways_are_sure_only_of_a_face_both_ways_find_likely():
    views = np.array([[0.90, 0.08, 0.01, 0.005, 0.005], [0.45, 0.50, 0.02, 0.02, 0.01]])
    maps = np.array([[0.88, 0.10, 0.01, 0.005, 0.005], [0.97, 0.01, 0.01, 0.005, 0.005]])
    both = vm.both_ways(views, maps, 0.3)
    assert np.allclose(both.sum(axis=1), 1)
    assert both[0].argmax() == 0 and both[0, 0] > 0.85  # agreed: as sure as either
    # torn between bee and honey by the views, the maps sure it is a bee (whose honey they rule out)
    assert both[1].argmax() == 0 and both[1, 1] < 0.3
    # a bee and a ZomBee are one symbol in two colours: the views' say in which is none
    bee, zombee = vm.CLASSES.index("bee"), vm.CLASSES.index("zombee")
    views, maps = np.full((1, 5), 0.01), np.full((1, 5), 0.01)
    views[0, bee], views[0, zombee] = 0.95, 0.02
    maps[0, bee], maps[0, zombee] = 0.10, 0.86
    green = vm.both_ways(views, maps, 0.3)[0]
    assert green.argmax() == zombee and green[zombee] > 0.8


def test_a_model_read_both_ways_compares_views_then_maps_or_its_file_is_refused(tmp_path):
    path = tmp_path / "swapped.npz"
    first = replace(_toy(), descriptor="map")
    mf.save_model(replace(first, second=replace(mf.load_model(), net=None), second_weight=0.3), path)
    with pytest.raises(vm.ModelError, match="swapped.npz.*views first, then symbol maps"):
        mf.load_model(path)


@pytest.mark.parametrize("content", [b"", b"garbage", b"PK\x03\x04 truncated zip"])
def test_corrupt_or_missing_model_is_a_clear_error(tmp_path, content):
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    with pytest.raises(vm.ModelError, match="bad.npz") as info:
        mf.load_model(path)
    assert str(info.value).count("bad.npz") == 1  # said once (a file not a zip was named twice)
    with pytest.raises(vm.ModelError, match="does not exist"):
        mf.load_model(tmp_path / "nope.npz")


def _toy(scale=0.1, radius=0.5):
    """Four faces, one prototype each: unit maps along four axes."""
    protos = np.eye(4, vm.DIM, dtype=np.float32)
    return vm.Model(protos, np.arange(4), scale=scale, radius=radius)


def test_a_die_far_from_every_face_reads_unknown_and_a_near_one_its_face():
    m = _toy()
    near = np.eye(1, vm.DIM, 1, dtype=np.float32) + 0.05 * np.eye(1, vm.DIM, 9, dtype=np.float32)
    far = np.eye(1, vm.DIM, 20, dtype=np.float32)  # like no face it was taught: a 5 or a 6
    p = m.predict_proba(np.concatenate([near, far]))
    assert p[0].argmax() == 1 and p[0, 1] > 0.99
    assert vm.CLASSES[p[1].argmax()] == "unknown"


def test_halfway_between_two_faces_is_not_sure():
    m = _toy(scale=0.3, radius=1.2)
    mid = (np.eye(1, vm.DIM, 0) + np.eye(1, vm.DIM, 2)).astype(np.float32) / np.sqrt(2)
    p = m.predict_proba(mid)[0]
    assert p.max() < 0.6 and {int(i) for i in np.argsort(p)[-2:]} == {0, 2}


def test_a_second_reading_names_a_face_only_when_surer_and_never_surely():
    """reader's glare reading (model.surer_face): it may turn a doubt into a face, never a face into
    unknown, never a surer reading into a less sure one, and what it names is not sure."""
    unknown = vm.CLASSES.index("unknown")
    now = np.array([[0.1, 0.1, 0.2, 0.0, 0.6],   # unknown at 0.6
                    [0.7, 0.1, 0.1, 0.0, 0.1],   # a bee at 0.7
                    [0.3, 0.1, 0.2, 0.0, 0.4]])  # unknown at 0.4
    again = np.array([[0.0, 0.0, 0.97, 0.0, 0.03],  # a zzz, very sure
                      [0.0, 0.0, 0.2, 0.0, 0.8],    # unknown: no reason to doubt the bee
                      [0.1, 0.0, 0.75, 0.0, 0.15]])  # a zzz, not sure enough
    out = vm.surer_face(now, again, 0.8, 0.89)
    assert out[0].argmax() == vm.CLASSES.index("zzz") and out[0].max() == pytest.approx(0.89)
    assert out[0].sum() == pytest.approx(1) and out[0, unknown] == pytest.approx(0.11)
    assert (out[1:] == now[1:]).all()


def test_a_turned_or_mirrored_map_is_the_same_die():
    from vision.cut.features import dihedral

    rng = np.random.default_rng(1)
    x = rng.random((3, vm.DIM)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)  # maps are unit vectors
    m = vm.Model(x, np.arange(3))
    turned = dihedral(x)[:, 5]
    assert np.allclose(m.distances(turned)[np.arange(3), np.arange(3)], 0, atol=1e-3)


def test_report_travels_with_the_model(tmp_path):
    m = _toy()
    m.report = {"ok": False, "faces": {"bee": 1.0, "honey": 0.5, "zzz": 1.0, "zombee": 1.0}, "weakest": "honey",
                "advice": "take 2 more photos of honey"}
    mf.save_model(m, tmp_path / "r.npz")
    assert mf.load_model(tmp_path / "r.npz").report == m.report


def test_a_model_of_another_shape_is_refused(tmp_path):
    path = tmp_path / "odd.npz"
    with np.load(mf.DEFAULT_PATH) as z:
        data = {k: z[k] for k in z.files}
    data["protos"] = data["protos"][:, :10]
    with open(path, "wb") as fh:
        np.savez(fh, **data)
    with pytest.raises(vm.ModelError, match="odd.npz.*shape"):
        mf.load_model(path)


def test_a_model_comparing_views_keeps_them_through_its_file(tmp_path):
    from vision.cut.features import VIEW_DIM

    rng = np.random.default_rng(3)
    protos = rng.normal(size=(4, VIEW_DIM)).astype(np.float32)
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    m = vm.Model(protos, np.arange(4), scale=0.1, radius=0.5, kind="calibrated", descriptor="views")
    mf.save_model(m, tmp_path / "v.npz")
    back = mf.load_model(tmp_path / "v.npz")
    assert back.descriptor == "views" and back.needs_views
    turned = np.repeat(protos[:, None], 8, axis=1)  # every turn of each die looks like its prototype
    assert back.predict_proba(None, views=turned).argmax(1).tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="views"):
        back.predict_proba(protos[:, :vm.DIM])


def test_signed_views_are_kept_through_the_file_and_older_files_read_as_unsigned(tmp_path):
    from vision.cut.features import SIGNED_VIEW_DIM, VIEW_DIM

    rng = np.random.default_rng(4)
    protos = rng.normal(size=(4, SIGNED_VIEW_DIM)).astype(np.float32)
    protos /= np.linalg.norm(protos, axis=1, keepdims=True)
    m = vm.Model(protos, np.arange(4), kind="calibrated", descriptor="views", soften=0.6, signed=True)
    mf.save_model(m, tmp_path / "s.npz")
    back = mf.load_model(tmp_path / "s.npz")
    assert back.signed and back.protos.shape == (4, SIGNED_VIEW_DIM)
    with np.load(tmp_path / "s.npz") as z:
        data = {k: z[k] for k in z.files if k != "signed"}
    with open(tmp_path / "old.npz", "wb") as fh:  # a calibration saved before views were signed
        np.savez(fh, **dict(data, protos=data["protos"][:, :VIEW_DIM]))
    assert not mf.load_model(tmp_path / "old.npz").signed
    with open(tmp_path / "odd.npz", "wb") as fh:  # unsigned widths in a file that says signed
        np.savez(fh, **dict(data, protos=data["protos"][:, :VIEW_DIM], signed=np.array(True)))
    with pytest.raises(vm.ModelError, match="odd.npz.*shape"):
        mf.load_model(tmp_path / "odd.npz")


def test_a_lamps_colour_divided_out_at_calibration_is_divided_out_after_loading_too(tmp_path):
    """A calibration under a cool lamp takes the tray for white (Model.balanced); one on a brown table
    keeps the table's colour and divides out only a change of light. Older files kept it always."""
    cool = np.array([230.0, 200.0, 150.0], np.float32)  # BGR: the white sheet under a bluish lamp
    m = vm.Model(np.eye(4, vm.DIM, dtype=np.float32), np.arange(4), kind="calibrated", tray_colour=cool, balanced=True)
    mf.save_model(m, tmp_path / "b.npz")
    back = mf.load_model(tmp_path / "b.npz")
    assert back.balanced and np.allclose(back.white(cool), cool)  # the blue cast goes, as on the tray
    with np.load(tmp_path / "b.npz") as z:
        data = {k: z[k] for k in z.files if k != "balanced"}
    with open(tmp_path / "old.npz", "wb") as fh:  # saved before calibration could choose
        np.savez(fh, **data)
    old = mf.load_model(tmp_path / "old.npz")
    assert not old.balanced and np.allclose(old.white(cool), [230, 230, 230])  # the colour kept as it was


def test_one_odd_prototype_of_another_face_cannot_decide_alone(tmp_path):
    # face 0 has three copies of its symbol; face 1 has one odd copy sitting next to the die (a 2
    # whose glare lies where a 3 has its middle pip), and two copies of its own far away
    die = np.eye(1, vm.DIM, 0, dtype=np.float32)
    odd = (np.eye(1, vm.DIM, 0) * 0.9 + np.eye(1, vm.DIM, 1) * 0.44).astype(np.float32)
    own = (np.eye(1, vm.DIM, 0) * 0.8 + np.eye(1, vm.DIM, 2) * 0.6).astype(np.float32)
    protos = np.concatenate([own, own * 0.99, own * 1.01, odd, np.eye(2, vm.DIM, 5, dtype=np.float32)])
    labels = np.array([0, 0, 0, 1, 1, 1])
    nearest = vm.Model(protos, labels, scale=0.2, radius=1.0)
    assert nearest.predict_proba(die).argmax() == 1  # the odd copy alone decides
    three = vm.Model(protos, labels, scale=0.2, radius=1.0, neighbours=3)
    assert three.predict_proba(die).argmax() == 0
    mf.save_model(three, tmp_path / "k.npz")
    assert mf.load_model(tmp_path / "k.npz").neighbours == 3
    mf.save_model(nearest, tmp_path / "one.npz")
    assert mf.load_model(tmp_path / "one.npz").neighbours == 1


def test_a_network_that_reads_edge_directions_keeps_reading_them_through_its_file(tmp_path):
    from vision.cut.features import HOG_DIM, VIEW_DIM
    from vision.name.net import edges_read, fit_net

    def dice(seed, n=200):
        """Two faces whose maps and statistics are the same noise: only their edge directions differ."""
        rng = np.random.default_rng(seed)
        y = np.arange(n) % 2
        views = rng.normal(0, 0.1, (n, 8, VIEW_DIM)).astype(np.float32)
        views[:, :, :36] += np.where(y == 1, 0.5, -0.5)[:, None, None]  # the first block of edges, every turn
        return (rng.normal(0, 0.1, (n, vm.DIM)).astype(np.float32), rng.normal(size=(n, 3)).astype(np.float32),
                views, y)

    maps, extra, views, y = dice(5)
    blind = fit_net(maps, extra, y, len(vm.CLASSES), seed=1, epochs=150)
    seeing = fit_net(maps, extra, y, len(vm.CLASSES), views=views, seed=1, epochs=150)
    assert edges_read(blind) == 0 and edges_read(seeing) == HOG_DIM
    m = vm.Model(np.eye(2, VIEW_DIM, dtype=np.float32), np.arange(2), radius=10.0, descriptor="views", net=seeing)
    mf.save_model(m, tmp_path / "e.npz")
    back = mf.load_model(tmp_path / "e.npz")
    assert edges_read(back.net) == HOG_DIM and back.needs_views
    maps, extra, views, y = dice(6)  # dice neither network saw
    assert (back.predict_proba(maps, extra, views).argmax(1) == y).mean() >= 0.9
    assert (vm.Model(m.protos, m.labels, radius=10.0, descriptor="views", net=blind)
            .predict_proba(maps, extra, views).argmax(1) == y).mean() < 0.7
    maps_model = vm.Model(np.eye(2, vm.DIM, dtype=np.float32), np.arange(2), radius=10.0, net=seeing)
    assert maps_model.needs_views  # a map model keeping this network must be handed the views too
    with pytest.raises(ValueError, match="views"):
        maps_model.predict_proba(maps, extra)


def test_a_calibrated_tables_own_dice_have_a_say_beside_the_network(tmp_path):
    # the network (which never saw this table) says bee, surely; this table's own prototypes say zzz
    p = np.array([[0.02, 0.02, 0.86, 0.02, 0.08]])
    q = np.array([[0.97, 0.01, 0.01, 0.005, 0.005]])
    alone = vm.gated(p, q)
    assert vm.CLASSES[alone[0].argmax()] == "bee" and alone[0].max() > 0.85
    together = vm.gated(p, q, own_weight=0.8)
    assert vm.CLASSES[together[0].argmax()] == "zzz" and together[0].max() < 0.9
    assert together[0].sum() == pytest.approx(1.0) and together[0, -1] >= p[0, -1]  # unknown kept
    agree = vm.gated(np.array([[0.9, 0.02, 0.02, 0.02, 0.04]]), q, own_weight=0.8)
    assert vm.CLASSES[agree[0].argmax()] == "bee" and agree[0].max() > 0.9  # agreeing stays sure
    m = _toy()
    m.own_weight = 0.8
    mf.save_model(m, tmp_path / "w.npz")
    assert mf.load_model(tmp_path / "w.npz").own_weight == pytest.approx(0.8)
    mf.save_model(_toy(), tmp_path / "none.npz")
    assert mf.load_model(tmp_path / "none.npz").own_weight == 0.0


def test_on_a_table_whose_faces_the_network_calls_unknown_the_prototypes_say_unknown_with_it(tmp_path):
    # a ZomBee from a corrected roll the table has just learned, its side showing: the prototypes are
    # sure of it, the stock network (which never saw this art from the side) calls it unknown
    p = np.array([[0.0, 0.0, 0.0, 0.98, 0.02]])
    q = np.array([[0.0, 0.0, 0.0, 0.24, 0.76]])
    joined = vm.gated(p, q, own_weight=0.65, trust=0.5, own_unknown=True)[0]
    assert vm.CLASSES[joined.argmax()] == "zombee" and 0.5 < joined.max() < 0.95 and joined.sum() == pytest.approx(1.0)
    # where the network knows the table's art, its unknown (cocked dice) stands
    assert vm.CLASSES[vm.gated(p, q, own_weight=0.65, trust=0.5)[0].argmax()] == "unknown"
    # and joined, a die the prototypes doubt too stays unknown, as does one the network is sure is cocked
    doubted = vm.gated(np.array([[0.0, 0.0, 0.0, 0.45, 0.55]]), q, own_weight=0.65, trust=0.5, own_unknown=True)[0]
    assert vm.CLASSES[doubted.argmax()] == "unknown"
    cocked = vm.gated(np.array([[0.01, 0.0, 0.0, 0.02, 0.97]]), np.array([[0.02, 0.0, 0.03, 0.0, 0.95]]),
                      own_weight=0.65, trust=0.5, own_unknown=True)[0]
    assert vm.CLASSES[cocked.argmax()] == "unknown"
    m = _toy()
    m.own_weight, m.own_unknown = 0.65, True
    mf.save_model(m, tmp_path / "u.npz")
    assert mf.load_model(tmp_path / "u.npz").own_unknown is True
    mf.save_model(_toy(), tmp_path / "none.npz")
    assert mf.load_model(tmp_path / "none.npz").own_unknown is False


def test_a_network_refitted_to_the_table_takes_part_of_the_prototypes_doubt_away(tmp_path):
    # six photos a face never showed a ZomBee cut quite like this one: its prototypes doubt it is a
    # face at all, while the network, refitted to the table, reads it surely
    p = np.array([[0.01, 0.0, 0.0, 0.02, 0.97]])
    q = np.array([[0.0, 0.0, 0.0, 1.0, 0.0]])
    assert vm.CLASSES[vm.gated(p, q, own_weight=0.65)[0].argmax()] == "unknown"
    trusted = vm.gated(p, q, own_weight=0.65, trust=0.5)[0]
    assert vm.CLASSES[trusted.argmax()] == "zombee" and 0.5 < trusted.max() < 0.9  # read, but not surely
    assert trusted.sum() == pytest.approx(1.0)
    # a die both doubt (the network learned cocked dice) stays doubted
    cocked = vm.gated(p, np.array([[0.02, 0.0, 0.03, 0.0, 0.95]]), own_weight=0.65, trust=0.5)[0]
    assert vm.CLASSES[cocked.argmax()] == "unknown" and cocked.max() > 0.95
    # nor a die the prototypes find like no face at all, however sure the network
    strange = vm.gated(np.array([[0.0, 0.0, 0.0, 0.0, 1.0]]), q, own_weight=0.65, trust=0.5)[0]
    assert vm.CLASSES[strange.argmax()] == "unknown"
    m = _toy()
    m.net_trust = 0.5
    mf.save_model(m, tmp_path / "t.npz")
    assert mf.load_model(tmp_path / "t.npz").net_trust == pytest.approx(0.5)
    mf.save_model(_toy(), tmp_path / "none.npz")
    assert mf.load_model(tmp_path / "none.npz").net_trust == 0.0  # the stock model keeps full doubt


def test_a_network_told_that_unreadable_dice_are_rare_calls_a_borderline_die_a_face():
    from vision.name.net import fit_net, net_proba

    rng = np.random.default_rng(3)
    n = 400
    y = np.where(np.arange(n) % 2 == 0, 0, vm.UNKNOWN)  # bees and cocked dice, equally many in training
    maps = rng.normal(0, 0.1, (n, vm.DIM)).astype(np.float32)
    extra = (rng.normal(0, 1.0, (n, 3)) + np.where(y == 0, 1.0, -1.0)[:, None]).astype(np.float32)
    even = fit_net(maps, extra, y, len(vm.CLASSES), seed=1, epochs=150)
    table = np.array([0.49, 0.49 / 3, 0.49 / 3, 0.49 / 3, 0.02])  # bees common, unreadable dice one in fifty
    told = fit_net(maps, extra, y, len(vm.CLASSES), seed=1, epochs=150, prior=table)
    halfway = np.zeros((1, 3), np.float32)  # its statistics as much a bee's as a cocked die's
    flat = np.zeros((1, vm.DIM), np.float32)
    q, p = net_proba(even, flat, halfway)[0], net_proba(told, flat, halfway)[0]
    assert q[vm.UNKNOWN] > 0.3 and p[vm.UNKNOWN] < 0.1 and p.argmax() == 0
    # Bayes' rule with other shares: the odds between two faces move only by their shares' ratio
    assert p[0] / p[1] == pytest.approx(q[0] / q[1] * 3, rel=0.05)
    far = np.full((1, 3), -3.0, np.float32)  # clearly cocked stays unknown
    assert net_proba(told, flat, far)[0].argmax() == vm.UNKNOWN


def test_a_model_given_other_prototypes_compares_dice_with_those():
    # the prototypes are prepared once for comparing (reader speed); new ones must not meet stale ones
    m = _toy()
    die = np.eye(1, vm.DIM, 1, dtype=np.float32)
    assert vm.CLASSES[m.predict_proba(die)[0].argmax()] == vm.CLASSES[1]
    m.protos = np.roll(m.protos, 1, axis=0)  # each face's example now stands where another's stood
    assert vm.CLASSES[m.predict_proba(die)[0].argmax()] != vm.CLASSES[1]


def _layered(tmp_path):
    """A calibrated-like model naming faces by its prototypes and a face layer of its own (no network)."""
    from vision.name.facelayer import FEATURE_COUNT, fit_layer
    rng = np.random.default_rng(5)
    layer = fit_layer(rng.normal(0, 1, (40, FEATURE_COUNT)).astype(np.float32), np.arange(40) % 4, 4)
    return replace(mf.load_model(), net=None, face_layer=layer, own_weight=0.65, net_trust=0.5)


def test_a_tables_face_layer_keeps_through_the_file_and_reads_the_same(tmp_path):
    m = _layered(tmp_path)
    path = tmp_path / "layered.npz"
    mf.save_model(m, path)
    back = mf.load_model(path)
    assert back.face_layer is not None and back.net is None and back.needs_looks
    rng = np.random.default_rng(6)
    x = rng.normal(0, 0.1, (4, vm.DIM)).astype(np.float32)
    views = (m.protos[:4, None] + rng.normal(0, 0.02, (4, 8, m.protos.shape[1]))).astype(np.float32)
    looks = rng.uniform(0, 1.2, (4, SIDE, SIDE, 3)).astype(np.float32)
    read = back.predict_proba(x, views=views, looks=looks)
    assert np.allclose(read, m.predict_proba(x, views=views, looks=looks), atol=1e-3)
    assert not np.allclose(read, replace(m, face_layer=None).predict_proba(x, views=views), atol=1e-3)
    with pytest.raises(ValueError, match="crop"):
        back.predict_proba(x, views=views)  # the layer reads each die's crop


@pytest.mark.parametrize("field, value", [("face_layer_weights", np.nan), ("face_layer_bias", np.zeros(7))])
def test_a_damaged_face_layer_is_refused_with_the_file_named(tmp_path, field, value):
    path = tmp_path / "layered.npz"
    mf.save_model(_layered(tmp_path), path)
    with np.load(path) as z:
        data = {k: z[k] for k in z.files}
    data[field] = np.full_like(data[field], value) if np.ndim(value) == 0 else value
    np.savez(path, **data)
    with pytest.raises(vm.ModelError, match="layered.npz.*face layer is damaged"):
        mf.load_model(path)


def test_a_face_layer_without_its_crop_network_is_refused_with_the_file_named(tmp_path):
    path = tmp_path / "layered.npz"
    mf.save_model(_layered(tmp_path), path)
    with np.load(path) as z:
        data = {k: z[k] for k in z.files if k != "crop_net"}
    np.savez(path, **data)
    with pytest.raises(vm.ModelError, match="layered.npz.*no crop network"):
        mf.load_model(path)


def test_a_model_that_cannot_be_written_takes_its_new_crop_network_off_the_card_again(tmp_path, monkeypatch):
    # the crop network reaches the card, then it is full: the model is not written, and nothing of it stays
    import errno

    import companion.files

    real_write = companion.files.os.write

    def full_at_the_model(fd, data):  # the model file is a zip archive ("PK"); the ONNX file is not
        if bytes(data[:2]) == b"PK":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(companion.files.os, "write", full_at_the_model)
    with pytest.raises(companion.files.WriteError, match="layered.npz"):
        mf.save_model(_layered(tmp_path), tmp_path / "layered.npz")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    (tmp_path / "crop.onnx").write_bytes(mf.load_model().cnn.data)  # one already there, for another model
    monkeypatch.setattr(companion.files.os, "write", lambda fd, data: (_ for _ in ()).throw(
        OSError(errno.ENOSPC, "No space left on device")))
    with pytest.raises(companion.files.WriteError, match="layered.npz"):
        mf.save_model(_layered(tmp_path), tmp_path / "layered.npz")
    assert [p.name for p in tmp_path.iterdir()] == ["crop.onnx"]  # kept: the other model needs it
