import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from support.trays import dyed, felt, shaken, wood
from companion.errors import ImageError
from vision.demo import render
from vision.teach import sizing
from vision.teach.calibrate import CalibrationError, calibrate
from vision.name.model import CLASSES, UNKNOWN
from vision.teach.report import report_lines
from vision.images import read_image
from vision.reader import DiceReader
from tools.train import match


def rendered_table(tmp_path_factory, seed: int):
    """(folder of calibration photos, rig, rng for its next rolls) of one rendered held-out table."""
    folder = tmp_path_factory.mktemp("cal")
    rng = np.random.default_rng(seed)
    rig = render.random_rig(rng, render.HELDOUT)
    render.write_calibration_set(folder, rng, rig, per_face=6, empty=2)
    return folder, rig, rng


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return rendered_table(tmp_path_factory, 500)


def test_calibrated_reader_reads_this_tables_rolls(table):
    folder, rig, rng = table
    model = calibrate(folder)
    assert model.kind == "calibrated"
    assert model.side == pytest.approx(rig.die_size, rel=0.15)
    assert model.background is not None
    assert model.channel == -1  # black dice: looked for in the brightest channel, as uncalibrated
    reader = DiceReader(model)
    right = total = 0
    for _ in range(8):
        scene = render.render_scene(rng, rig, count=5)
        reading = reader.read(scene.image)
        assert len(reading.dice) == len(scene.dice)
        right += sum(t is not None and t.face == d.face for d, t in zip(reading.dice, match(reading.dice, scene.dice)))
        total += len(scene.dice)
    assert right / total >= 0.95


@pytest.fixture(scope="module")
def table_reader(table):
    return DiceReader(calibrate(table[0]))


@pytest.mark.parametrize("factor", [0.8, 1.4])
def test_a_camera_raised_or_lowered_since_calibration_still_counts_and_reads_the_thrown_dice(table, table_reader, factor):
    # the stand set up again on game night, higher (dice 0.8 of their calibrated size: they would
    # pass for another set's smaller dice) or lower (1.4: a die cut as two); the game says how many
    # dice were thrown, as the tray watcher does
    rig, reader = table[1], table_reader
    moved = replace(rig, die_size=rig.die_size * factor)
    rng = np.random.default_rng(77)
    right = counted = said = 0
    for _ in range(6):
        scene = render.render_scene(rng, moved, count=5)
        reading = reader.read(scene.image, expected=5)
        counted += len(reading.dice) == 5 and reading.check is None
        right += sum(t is not None and t.face == d.face for d, t in zip(reading.dice, match(reading.dice, scene.dice)))
        said += reading.moved == pytest.approx(factor, abs=0.15)  # for the tray watcher to say "teach again"
    assert counted >= 5 and right >= 27 and said >= 1, (counted, right, said)


def _copy(table, tmp_path):
    folder, rig, rng = table
    dst = tmp_path / "cal"
    shutil.copytree(folder, dst)
    return dst


def test_empty_face_folder_is_named(table, tmp_path):
    dst = _copy(table, tmp_path)
    for f in (dst / "honey").iterdir():
        f.unlink()
    with pytest.raises(CalibrationError, match="honey.*no photos"):
        calibrate(dst)
    shutil.rmtree(dst / "honey")
    with pytest.raises(CalibrationError, match="honey.*missing"):
        calibrate(dst)


def test_photos_copied_from_a_mac_or_a_phone_are_taught_as_they_are(table, tmp_path):
    # A Mac leaves "._NAME" beside each photo on a USB stick (its metadata, no image): calibration stopped
    # on the first as a corrupt photo; a "Bee" folder was reported as bee/ missing.
    from vision.teach.photo_checks import photos

    dst = _copy(table, tmp_path)
    (dst / "bee").rename(dst / "Bee")
    for f in list((dst / "honey").iterdir()):
        (f.parent / ("._" + f.name)).write_bytes(b"\x00\x05\x16\x07 Mac OS X metadata")
    assert [p.name for p in photos(dst / "bee")] == sorted(p.name for p in (dst / "Bee").iterdir())
    assert all(not p.name.startswith("._") for p in photos(dst / "honey"))
    assert calibrate(dst, augment_per_die=4).report["photos"]["bee"] == 6


def test_a_calibration_folder_that_is_not_there_is_said_to_be_missing(tmp_path):
    with pytest.raises(CalibrationError, match="nothere.* does not exist: calibration reads a folder"):
        calibrate(tmp_path / "nothere")


def test_photo_without_a_die_is_named(table, tmp_path):
    dst = _copy(table, tmp_path)
    shutil.copy(dst / "empty" / "empty0.png", dst / "bee" / "oops.png")
    with pytest.raises(CalibrationError, match="oops.png.*no die"):
        calibrate(dst)


def test_mixed_faces_are_named(table, tmp_path):
    dst = _copy(table, tmp_path)
    folder, rig, rng = table
    scene = render.render_scene(np.random.default_rng(9), rig, faces=["zombee", "honey", "zombee", "honey"])
    cv2.imwrite(str(dst / "zzz" / "mixed.png"), scene.image)
    with pytest.raises(CalibrationError, match="mixed.png.*mixed faces"):
        calibrate(dst)


def test_corrupt_photo_is_named(table, tmp_path):
    dst = _copy(table, tmp_path)
    (dst / "bee" / "zz_corrupt.jpg").write_bytes(b"nope")
    with pytest.raises(Exception, match="zz_corrupt.jpg"):
        calibrate(dst)


def test_a_heic_photo_among_the_jpegs_is_named_not_passed_over(table, tmp_path):
    # a phone set to its own format: the two photos the report asked for would silently not count
    dst = _copy(table, tmp_path)
    (dst / "honey" / "IMG_0043.heic").write_bytes(b"\x00\x00\x00\x18ftypheic" + bytes(500))
    with pytest.raises(ImageError, match="IMG_0043.heic.*HEIC photo.*JPEG"):
        calibrate(dst)


# ---------------------------------------------------------------- real photos (tests/fixtures/dice-photos)
PHOTOS = Path(__file__).parent / "fixtures" / "dice-photos"


@pytest.fixture(scope="module")
def real_model():
    return calibrate(PHOTOS / "calibration")


def _real_readings(model, name, sub="read"):
    """(what the label asks, what was read, confidence) for each die of the set in one fixture photo."""
    import json

    labels = json.loads((PHOTOS / sub / "labels.json").read_text())[name]["dice"]
    dice = DiceReader(model).read(read_image(PHOTOS / sub / name)).dice
    out = []
    for t in labels:
        if t["kind"] != "set":
            continue
        near = [d for d in dice if abs(d.x - t["x"]) < 12 and abs(d.y - t["y"]) < 12]
        out.append((t["face"] or "unknown", near[0].face if near else "missed", near[0].confidence if near else 0))
    return out


def test_a_reader_calibrated_on_real_photos_reads_real_dice(real_model):
    got = _real_readings(real_model, "t1_IMG_20191208_112122.jpg")
    assert sorted(g[:2] for g in got) == [("bee", "bee"), ("honey", "honey"), ("zombee", "zombee")]


def test_a_five_never_taught_reads_unknown_and_is_never_sure(real_model):
    assert [g[:2] for g in _real_readings(real_model, "t1_IMG_20191208_112710.jpg")] == [("unknown", "unknown")]
    five, three = sorted(_real_readings(real_model, "t1_IMG_20191208_112645.jpg"))
    assert three[:2] == ("zzz", "zzz")
    # it looks a little like the three (three of its pips): the reader may lean that way, never surely
    assert five[1] in ("unknown", "zzz") and (five[1] == "unknown" or five[2] < 0.9)


def _camera_moved(sub: str, name: str, f: float):
    """A fixture photo as a camera moved since calibration shows it (f times as large, round its centre,
    the sheet beyond its edge), and its set dice: (face, x, y) there."""
    import json

    photo = read_image(PHOTOS / sub / name)
    h, w = photo.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), 0, f)
    sheet = tuple(float(c) for c in np.median(photo.reshape(-1, 3), axis=0))
    shown = cv2.warpAffine(photo, m, (w, h), flags=cv2.INTER_AREA, borderValue=sheet)
    dice = json.loads((PHOTOS / sub / "labels.json").read_text())[name]["dice"]
    return shown, [(t["face"], *(m @ np.array([t["x"], t["y"], 1.0]))) for t in dice if t["kind"] == "set"]


def _read_at(reading, x, y):
    return [d.face for d in reading.dice if abs(d.x - x) < 12 and abs(d.y - y) < 12]


def test_a_camera_raised_since_calibration_reads_our_die_among_smaller_dice_untold(real_model):
    """111742 (untouched: our 1 among light dice and two of the smaller dark set) shown at 0.7 of its size,
    as a camera raised since calibration shows it: every dark die now measures smaller than taught, ours
    21 px, the other set's 16-17, too unlike to agree on one size. Untold how many were thrown, ours are
    the largest of them: read at that size, the 1 is a bee, and the camera is said to have moved."""
    shown, [(face, x, y)] = _camera_moved("raised", "t1_IMG_20191208_111742.jpg", 0.7)
    reading = DiceReader(real_model).read(shown)
    assert face == "bee" and _read_at(reading, x, y) == ["bee"]
    assert reading.moved == pytest.approx(0.7, abs=0.1)


def test_a_camera_lowered_since_calibration_reads_a_die_unknown_at_the_taught_size_at_the_size_it_measures(real_model):
    """112340 shown at 1.3 of its size (a camera lowered since): at the taught size one of its 4s reads
    unknown (0.81); read again where it lies, in a copy showing the dice at the size they now measure,
    it is a ZomBee. Untold: only that die's second look is taken, the others read as they did."""
    shown, dice = _camera_moved("detect", "t1_IMG_20191208_112340.jpg", 1.3)
    reading = DiceReader(real_model).read(shown)
    assert [_read_at(reading, x, y) for _, x, y in dice] == [[face] for face, _, _ in dice]


def test_a_lamps_v_across_a_glossy_three_does_not_hide_it(real_model, monkeypatch):
    """112342's glossy 3 has a lamp's V over its corner pip: read with the streak taken down
    (features.deglared), it is a 3, not unknown; the other dice of the photo read as they did. The
    prototypes alone show it (the pip reader and the table's face layer, which join them on these pip dice,
    read it anyway)."""
    from vision import reader

    alone = replace(real_model, pips=(), face_layer=None, cnn=None)
    got = _real_readings(alone, "t1_IMG_20191208_112342.jpg", "glare")
    assert sorted(g[:2] for g in got) == [("bee", "bee"), ("zombee", "zombee"), ("zombee", "zombee"), ("zzz", "zzz")]
    monkeypatch.setattr(reader, "GLARE_SURE", 1.01)  # the glare reading never taken
    assert ("zzz", "unknown") in [g[:2] for g in _real_readings(alone, "t1_IMG_20191208_112342.jpg", "glare")]
    assert ("zzz", "zzz") in [g[:2] for g in _real_readings(real_model, "t1_IMG_20191208_112342.jpg", "glare")]


def test_pip_dice_taught_as_the_faces_are_read_by_their_pips_too(real_model, table_reader):
    """The real set is pip dice, one count a face: calibration learns which count each face shows and
    the pip reader joins the reading. A ZomBee table's dice have no pips and learn none."""
    assert table_reader.model.pips == () and table_reader.model.report["pips"] is None
    assert real_model.pips == (1, 2, 3, 4)
    assert real_model.report["pips"] == {"bee": 1, "honey": 2, "zzz": 3, "zombee": 4}
    assert 0 < real_model.pip_weight <= 1
    assert any("pip dice (bee 1, honey 2, zzz 3, zombee 4)" in line for line in report_lines(real_model.report))


def _gold_three_among_dark_dice():
    """111904's dark four and three and the gold-bodied three beside them (a set whose dice do not all
    match), laid on the camera's empty sheet as a tray holding only the table's dice: (photo, set dice
    as (face, x, y))."""
    photo = read_image(PHOTOS / "detect" / "t1_IMG_20191208_111904.jpg")
    out = read_image(PHOTOS / "calibration" / "empty" / "IMG_20191208_112014_empty.jpg")
    dice = [("zombee", 355, 302), ("zzz", 188, 367), ("zzz", 409, 339)]  # the last the gold one
    mask = np.zeros(photo.shape[:2], np.float32)
    for _, x, y in dice:
        cv2.circle(mask, (x, y), 20, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 2)[..., None]
    return (photo * mask + out * (1 - mask)).astype(np.uint8), dice


def test_a_pip_die_lighter_than_the_tables_finder_sees_is_found_by_its_pips(real_model):
    """The table's finder looks for dice darker than the tray; a gold-bodied three among the dark dice
    slips it. The pip reader's finder sees dice of every colour: told three were thrown, the tray
    shows three, the gold one a zzz, where it showed two and asked to check the dice."""
    shown, dice = _gold_three_among_dark_dice()
    reader = DiceReader(real_model)
    for expected in (None, 3):
        reading = reader.read(shown, expected=expected)
        assert [_read_at(reading, x, y) for _, x, y in dice] == [[face] for face, _, _ in dice]
        assert len(reading.dice) == 3 and reading.check is None
    # the phone shows it where it lies, boxed like the others, and can ask about it by its likeliest face
    _, x, y = dice[2]
    gold = next(d for d in reading.dice if abs(d.x - x) < 12 and abs(d.y - y) < 12)
    bx, by, w, h = gold.box
    assert abs(bx + w / 2 - x) <= 4 and abs(by + h / 2 - y) <= 4 and 25 <= w == h <= 45
    assert gold.likeliest[0] == ("zzz", gold.confidence)


def test_a_trays_hole_the_pip_reader_reads_as_a_one_is_no_die_of_the_table(real_model):
    """On dark felt the sheet's holes show as light rings, which the pip reader reads as ones (0.93-0.94),
    12 px across. With two holes and one die found, the frame's median is a hole's: the table's own die
    side (24 px, under a camera raised as far as a moved one goes) still keeps them out."""
    from vision.name.pipfaces import found_by_pips
    from vision.pips import read_d6

    shown = felt(read_image(PHOTOS / "calibration" / "zombee" / "IMG_20191208_112332_zombee.jpg"), 0.55)
    holes = [(p.x, p.y) for p in read_d6(shown) if p.value == 1 and p.confidence >= 0.9]
    assert len(holes) == 2
    found = found_by_pips(shown, [], real_model.side, real_model.pips)
    assert not any(abs(d.x - x) < 10 and abs(d.y - y) < 10 for d in found for x, y in holes)
    assert [(d.face, round(d.x / 10), round(d.y / 10)) for d in found] == [("zombee", 58, 29)]  # the die is


def test_the_report_says_how_each_face_did(real_model):
    report = real_model.report
    assert set(report) >= {"ok", "faces", "weakest", "advice"}
    assert set(report["faces"]) == {"bee", "honey", "zzz", "zombee"}
    assert all(0 <= a <= 1 for a in report["faces"].values())
    assert report["weakest"] == min(report["faces"], key=report["faces"].get)
    assert report["photos"] == {"bee": 6, "honey": 6, "zzz": 6, "zombee": 6}
    # pip dice are not ZomBee dice: the stock network reads them worse than the photos read each other
    assert report["network"] is False
    assert not any("network" in line for line in report_lines(report))


def _fewer_photos(tmp_path, keep: int, faces=("bee", "honey", "zzz", "zombee")):
    """The calibration fixtures with only the first `keep` photos of each of faces."""
    dst = tmp_path / "cal"
    shutil.copytree(PHOTOS / "calibration", dst)
    for face in faces:
        for f in sorted((dst / face).iterdir())[keep:]:
            f.unlink()
    return dst


def test_a_face_with_too_few_photos_is_named_with_what_to_do(tmp_path):
    dst = _fewer_photos(tmp_path, 1, faces=("honey",))
    report = calibrate(dst).report
    assert not report["ok"] and report["weakest"] == "honey"
    assert "more photos of honey" in report["advice"]


def test_a_photo_filed_under_the_wrong_face_is_named_first_with_where_it_belongs(tmp_path):
    # a bee photo moved into honey/ only got "take 2 more photos of bee", which would not mend it
    dst = tmp_path / "cal"
    shutil.copytree(PHOTOS / "calibration", dst)
    moved = sorted((dst / "bee").glob("*.jpg"))[0]
    moved.rename(dst / "honey" / moved.name)
    lines = report_lines(calibrate(dst).report)
    check = f"check honey/{moved.name}: its die looks like bee, not like the other photos of honey; if it shows bee, " \
            "move it to bee/ and calibrate again"
    assert check in lines and lines.index(check) < next(i for i, line in enumerate(lines) if "weakest" in line)


def test_one_photo_copied_into_two_faces_folders_is_named_both_times(tmp_path):
    dst = tmp_path / "cal"
    shutil.copytree(PHOTOS / "calibration", dst)
    bee = sorted((dst / "bee").glob("*.jpg"))[0]
    (dst / "honey" / "zz.jpg").write_bytes(bee.read_bytes())
    with pytest.raises(CalibrationError, match=rf"is the same photo as .*{bee.name}.*: one photo cannot show bee "
                                               r"and honey"):
        calibrate(dst)


def test_one_photo_per_face_is_said_not_measured_rather_than_read_0_percent(tmp_path):
    lines = report_lines(calibrate(_fewer_photos(tmp_path, 1)).report)
    assert lines[0].startswith("cross-validated: not measured where a face has one photo")
    assert "bee not measured (1 photo)" in lines[0] and "0%" not in lines[0]
    assert any("take 5 more photos of" in line for line in lines)


def test_photos_calibration_would_not_read_are_named_not_passed_over(tmp_path):
    # a phone's export in bee/Camera/ read "holds no photos (.jpg or .png)"; half of them there, or in
    # Bee/ beside bee/, left bee short without a word, and the report asked for photos already taken
    dst = tmp_path / "cal"
    shutil.copytree(PHOTOS / "calibration", dst)
    (dst / "bee" / "Camera").mkdir()
    for f in sorted((dst / "bee").glob("*.jpg"))[:2]:
        f.rename(dst / "bee" / "Camera" / f.name)
    with pytest.raises(CalibrationError, match=r"Camera' holds 2 photos that calibration does not read .* move them up "
                                               r"into bee/"):
        calibrate(dst)
    (dst / "bee" / "Camera").rename(dst / "Bee")
    with pytest.raises(CalibrationError, match="'Bee/' and 'bee/' are both the folder of bee"):
        calibrate(dst)
    (dst / "Bee").rename(dst / "bee" / ".thumbnails")  # a hidden folder is no one's photos
    for f in (dst / "honey").glob("*.jpg"):
        f.unlink()
    with pytest.raises(CalibrationError, match=r"holds no photos \(\.bmp, \.jpeg, \.jpg, \.png, \.tif, \.tiff, \.webp\)"):
        calibrate(dst)


def test_every_face_short_of_photos_is_named_the_worst_read_first(tmp_path):
    report = calibrate(_fewer_photos(tmp_path, 2)).report  # a newcomer's first try: two photos of each face
    faces = report["faces"]
    assert not report["ok"] and report["short"]
    assert faces[report["weakest"]] == min(faces.values())
    assert f"more photos of {report['weakest']} (only 2)" in report["advice"]
    assert sorted(report["also"] + [report["weakest"]]) == sorted(faces)  # the others need photos too
    assert all(face in report["advice"] for face in faces)


def test_a_real_photo_in_the_wrong_folder_is_named(tmp_path):
    dst = tmp_path / "cal"
    shutil.copytree(PHOTOS / "calibration", dst)
    stray = sorted((dst / "zzz").iterdir())[0]
    # saved again (another file, as a second shot of the same dice would be): judged by its dice, not
    # named as a copy (test_one_photo_copied_into_two_faces_folders_is_named_both_times)
    cv2.imwrite(str(dst / "bee" / "stray_three.jpg"), read_image(stray), [cv2.IMWRITE_JPEG_QUALITY, 95])
    with pytest.raises(CalibrationError, match="stray_three.jpg.*mixed faces"):
        calibrate(dst)


def test_a_real_empty_sheet_among_the_faces_is_named(tmp_path):
    dst = tmp_path / "cal"
    shutil.copytree(PHOTOS / "calibration", dst)
    empty = next((dst / "empty").iterdir())
    shutil.copy(empty, dst / "zombee" / "nothing_here.jpg")
    with pytest.raises(CalibrationError, match="nothing_here.jpg.*no die"):
        calibrate(dst)


def test_the_report_says_how_a_face_never_taught_would_read(real_model):
    share = real_model.report["untaught_unknown"]
    assert 0 <= share <= 1
    assert any(f"never taught reads unknown {100 * share:.0f}%" in line for line in report_lines(real_model.report))


def _changed_calibration(tmp_path, change):
    """The real calibration photos as another camera or tray shows them: change(picture) -> picture,
    written under tmp_path in the same folders. Returns the calibration folder."""
    from vision.images import read_image

    for f in (PHOTOS / "calibration").rglob("*.jpg"):
        out = tmp_path / f.relative_to(PHOTOS)
        out.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(out), change(read_image(f)))
    return tmp_path / "calibration"


def _bigger(img, factor=3):
    return cv2.resize(img, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)


def test_a_camera_with_three_times_the_pixels_reads_the_same_dice(tmp_path):
    """A 1920x1920 photo (a phone, a 1080p webcam) shows each die some 100 px across; the reader must
    read it as it reads the 640 px camera it was tuned on, from calibration to positions."""
    import json

    from vision.images import read_image

    model = calibrate(_changed_calibration(tmp_path, _bigger))
    assert model.report["accuracy"] >= 0.6  # 0.92 at the photos' own size
    right = total = 0
    for folder, name in (("read", "t1_IMG_20191208_112122.jpg"), ("detect", "t1_IMG_20191208_111642.jpg")):
        labels = json.loads((PHOTOS / folder / "labels.json").read_text())[name]["dice"]
        dice = DiceReader(model).read(_bigger(read_image(PHOTOS / folder / name))).dice
        for t in labels:
            if t["kind"] == "set":
                near = [d.face for d in dice if abs(d.x - 3 * t["x"]) < 30 and abs(d.y - 3 * t["y"]) < 30]
                total += 1
                right += near == [t["face"]]
                assert near in ([t["face"]], ["unknown"]), (name, t["face"], near)
        # the light dice of other sets may be seen as dice; pips or glare are never taken for dice
        on_others = [d for d in dice if any(abs(d.x - 3 * t["x"]) < 30 and abs(d.y - 3 * t["y"]) < 30 for t in labels)]
        assert len(on_others) == len(dice), name
    # one of these dice has a lamp's glare across its single pip: it may read unknown, never another face
    assert right >= total - 1


def _closer(img, factor=3.0, size=800):
    """The photo as a camera three times closer shows it in an 800 px frame (dice some 90 px across):
    enlarged, and cut round where its dice lie (found at the photo's own size). Returns the offset."""
    from vision.find.detect import detect

    dice = detect(img).dice
    cx = np.mean([d.x for d in dice]) if dice else img.shape[1] / 2
    cy = np.mean([d.y for d in dice]) if dice else img.shape[0] / 2
    big = _bigger(img, factor)
    x0 = int(np.clip(cx * factor - size / 2, 0, big.shape[1] - size))
    y0 = int(np.clip(cy * factor - size / 2, 0, big.shape[0] - size))
    return big[y0:y0 + size, x0:x0 + size], (x0, y0)


def test_a_camera_close_over_the_tray_is_calibrated_and_reads_the_same_dice(tmp_path):
    """Dice larger than the reader was made for in a frame it would not shrink (800 px) are taught and
    read from a smaller copy, the same for calibration and play (the model keeps the shrink)."""
    import json

    from vision.name.modelfile import load_model, save_model
    from vision.images import read_image

    save_model(calibrate(_changed_calibration(tmp_path, lambda img: _closer(img)[0])), tmp_path / "close.npz")
    model = load_model(tmp_path / "close.npz")
    assert model.shrink < 0.6 and model.report["accuracy"] >= 0.75  # 0.92 at the photos' own size
    right = total = 0
    for folder in ("read", "detect"):
        for name, entry in json.loads((PHOTOS / folder / "labels.json").read_text()).items():
            frame, (x0, y0) = _closer(read_image(PHOTOS / folder / name))
            dice = DiceReader(model).read(frame).dice
            for t in entry["dice"]:
                x, y = 3 * t["x"] - x0, 3 * t["y"] - y0
                if t["kind"] != "set" or not (40 < x < 760 and 40 < y < 760):
                    continue
                near = [d.face for d in dice if abs(d.x - x) < 36 and abs(d.y - y) < 36]
                assert near in ([t["face"] or "unknown"], ["unknown"]), (name, t["face"], near)
                total += 1
                right += near == [t["face"] or "unknown"]
    assert total >= 10 and right >= total - 1


def test_a_camera_far_from_the_tray_is_calibrated_and_reads_its_small_dice(tmp_path):
    """Dice too small to be found as the camera shows them (about 14 px across: the photos at 0.45 of
    their size) are taught and read from an enlarged copy, and the report says to bring the camera
    closer. Calibration refused these photos before ("no die found")."""
    import json

    from vision.name.modelfile import load_model, save_model
    from vision.images import read_image

    def far(img):
        return cv2.resize(img, None, fx=0.45, fy=0.45, interpolation=cv2.INTER_AREA)

    save_model(calibrate(_changed_calibration(tmp_path, far)), tmp_path / "far.npz")
    model = load_model(tmp_path / "far.npz")
    assert model.shrink > 1.5 and model.report["accuracy"] >= 0.75
    assert any("closer to the tray" in line for line in report_lines(model.report))
    right = total = 0
    for folder in ("read", "detect"):
        for name, entry in json.loads((PHOTOS / folder / "labels.json").read_text()).items():
            dice = DiceReader(model).read(far(read_image(PHOTOS / folder / name))).dice
            for t in entry["dice"]:
                if t["kind"] != "set":
                    continue
                x, y = 0.45 * t["x"], 0.45 * t["y"]  # positions come back in the frame's own pixels
                near = [d.face for d in dice if abs(d.x - x) < 8 and abs(d.y - y) < 8]
                total += 1
                right += near == [t["face"] or "unknown"]
    # 13 of 13 at the photos' own size; 14 px dice read worse (a 5 as a 4, unsurely), never untaught
    assert total >= 10 and right >= total - 3


def _felt(img):
    return felt(img, 0.55)


def _wood(img):
    return wood(img, 0.6)


def test_dice_on_a_darker_tray_are_found_taught_and_read(tmp_path):
    """Green felt makes a smoky die look half as dark as white card does: calibration measures how
    much darker the tray makes the dice look, and the reader and the teaching wizard follow it."""
    import json

    from vision.images import read_image

    model = calibrate(_changed_calibration(tmp_path, _felt))
    assert model.dark > 1
    name = "t1_IMG_20191208_112122.jpg"
    labels = [t for t in json.loads((PHOTOS / "read" / "labels.json").read_text())[name]["dice"] if t["kind"] == "set"]
    frame = _felt(read_image(PHOTOS / "read" / name))
    dice = DiceReader(model).read(frame).dice
    got = sorted((t["face"], [d.face for d in dice if abs(d.x - t["x"]) < 12 and abs(d.y - t["y"]) < 12]) for t in labels)
    assert got == [("bee", ["bee"]), ("honey", ["honey"]), ("zombee", ["zombee"])]
    # before any calibration (the wizard's first captures) the stock reader finds them by looking
    # harder; on this felt it finds one of these two dice as it is, on a darker one none
    frame = felt(read_image(PHOTOS / "read" / "t1_IMG_20191208_112645.jpg"), 0.45)
    stock = DiceReader()
    assert stock.read(frame).dice == [] and stock.read_any_tray(frame).dice


def test_red_pips_on_a_wooden_table_read_as_on_a_white_sheet(tmp_path):
    """A brown table is no white sheet under a warm lamp. Taken for white, its colour was divided out
    of the dice too, and a smoky die's red pips lost much of their contrast against the die in the
    brightness its views are made from: a red 4 and a glaring 1 read unknown. Calibrated on the
    table, the reader keeps the table's own colour (model.white)."""
    model = calibrate(_changed_calibration(tmp_path, _wood))
    assert model.tray_colour[2] > 1.3 * model.tray_colour[0]  # it knows the table is brown
    assert not model.balanced  # ... and that the brown is the table's, not a lamp's
    assert _set_dice_misses(model, _wood)[0] == []


def _cool_lamp(img):
    """A cool daylight lamp over the white sheet (bench/cameras.py's cool_lamp): blue up a fifth, red
    down a quarter."""
    return np.clip(img * np.array([1.2, 1.0, 0.75]), 0, 255).astype(np.uint8)


def test_a_cool_lamps_colour_is_divided_out_where_a_tables_own_colour_is_kept(tmp_path, monkeypatch):
    """A white sheet under a cool lamp shows blue, as a table of its own colour would. Kept as the
    table's colour, the lamp dimmed the smoky dice's red pips against the rest: calibration's own
    check read 72 % of its left-out dice, and a 1 and a red 4 of the fixture photos read unknown.
    Calibration now tries the tray taken for white too, and keeps what reads its photos better."""
    model = calibrate(_changed_calibration(tmp_path / "as_found", _cool_lamp))
    assert model.report["accuracy"] >= 0.85
    assert _set_dice_misses(model, _cool_lamp) == ([], 14)
    # Under this lamp the photos' dice also look more alike cut at their tops (find/parallax.py), and
    # cut there the table's own colour reads them as well: the lamp is asked about with the cuts where
    # the dice are found
    monkeypatch.setattr(sizing, "CLEAR_MOVE", 1.0)
    model = calibrate(_changed_calibration(tmp_path / "found", _cool_lamp))
    assert model.parallax == 0.0
    assert model.balanced and any("lamp" in line for line in report_lines(model.report))
    assert model.report["accuracy"] >= 0.85
    assert _set_dice_misses(model, _cool_lamp) == ([], 14)


@pytest.mark.parametrize("tray", [lambda img: felt(img, 0.7), _wood], ids=["felt", "wood"])
def test_black_dice_on_green_felt_or_dark_wood_are_found_whole_and_read(tmp_path, tray):
    """On green felt or a darker wooden table, the middle of a black die measures a third of the tray's
    brightness instead of a fifth on white card. Calibration found a die in every photo at white card's
    ratios and kept them, though only each die's darkest part was taken for die: a lone die with a
    lamp's streak across it was not found at all (112300), and a die cut short read unknown. It now
    raises the ratios while the middles of the dice it was shown are too light and the dice keep
    their size (sizing.darkness)."""
    model = calibrate(_changed_calibration(tmp_path, tray))
    misses, seen = _set_dice_misses(model, tray)
    assert seen == 14 and misses == []


def test_dice_found_in_part_in_a_few_calibration_photos_are_not_taken_for_dice_too_small(tmp_path):
    """Green felt seen by a 384 px camera: the dice are some 17 px across, but in one of the 24
    calibration photos the black dice were found only in part and measured 12. Calibration judged
    the dice's size by the smallest photo and refused the lot ("only about 12 pixels across, too few
    to tell the faces apart"). One camera shows one size of dice: a photo whose dice measure far
    below the others' no longer counts."""
    def felt_far(img):
        return felt(cv2.resize(img, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA), 0.7)

    model = calibrate(_changed_calibration(tmp_path, felt_far))
    misses, seen = _set_dice_misses(model, felt_far, scale=0.6)
    assert seen == 14 and len(misses) <= 1, misses


def _set_dice_misses(model, change, scale=1.0):
    """(misses, set dice seen) reading the fixture photos of read/ and detect/ as change shows them
    (scale: how much it shrinks or enlarges them): each miss (photo, labelled face, faces read at its
    spot)."""
    import json

    from vision.images import read_image

    reader, misses, seen = DiceReader(model), [], 0
    for sub in ("read", "detect"):
        for name, entry in json.loads((PHOTOS / sub / "labels.json").read_text()).items():
            dice = reader.read(change(read_image(PHOTOS / sub / name))).dice
            for t in entry["dice"]:
                x, y = scale * t["x"], scale * t["y"]
                near = [d.face for d in dice if abs(d.x - x) < 12 * scale and abs(d.y - y) < 12 * scale]
                if t["kind"] == "set":
                    seen += 1
                    if near != [t["face"] or "unknown"]:
                        misses.append((name, t["face"], near))
    return misses, seen


def _dim_noisy(img):
    """A dim room (0.45 of the light) and a sensor's noise at that gain, the same grain in every
    picture of a size (one camera)."""
    grain = np.random.default_rng(img.shape[0]).normal(0, 5, img.shape)
    return np.clip(img * 0.45 + grain, 0, 255).astype(np.uint8)


def test_dice_in_a_dim_noisy_room_are_read_by_their_pips_not_the_sensors_grain(tmp_path):
    """In a dim room the camera's noise is a large share of what a dark die shows, and the edge
    directions of a face 32 px across followed the grain. Calibrated in such a room, the left-out
    calibration dice read 48-68 % right (three seeds) and 2-4 of these 13 real dice read wrong. A
    calibrated model blurs each crop a little before its edges are taken (Model.soften): 72-76 %,
    and 1-2 wrong."""
    model = calibrate(_changed_calibration(tmp_path, _dim_noisy))
    assert model.descriptor == "views" and model.soften > 0
    misses, dice_seen = _set_dice_misses(model, _dim_noisy)
    assert model.report["accuracy"] >= 0.7
    assert dice_seen >= 10 and len(misses) <= 2, misses


def test_a_glossy_die_a_shaken_camera_smears_is_read_from_a_cut_nudged_off_centre(tmp_path):
    """The shake smears the glossy 1 of t1_IMG_20191208_111642.jpg and its reflection sideways, and the
    die is cut out a little off its face: read from that one cut it was `unknown` (two calibration
    seeds). A doubtful die is read again from cuts nudged off centre (Model.nudge), and reads bee."""
    model = calibrate(_changed_calibration(tmp_path, shaken))
    assert model.descriptor == "views" and model.nudge > 0
    misses, dice_seen = _set_dice_misses(model, shaken)
    assert dice_seen >= 10 and not [m for m in misses if m[0] == "t1_IMG_20191208_111642.jpg"], misses
    assert len(misses) <= 1, misses


def test_dice_too_small_to_read_are_named_with_what_to_do(tmp_path):
    # the same real photos from a camera three times farther away: dice some 11 pixels across, found in
    # an enlarged copy, but too few pixels to tell a face by (dice of 14 pixels are read: see above)
    dst = _changed_calibration(tmp_path, lambda img: cv2.resize(img, None, fx=0.38, fy=0.38,
                                                                interpolation=cv2.INTER_AREA))
    with pytest.raises(CalibrationError, match=r"/[a-z]+/.*\.jpg.*dice are only about 1[01] pixels across.*"
                                               r"bring the camera closer.*at least 12 pixels"):
        calibrate(dst)


@pytest.mark.parametrize("seed", [1, 2])
def test_pip_dice_taught_one_to_four_read_a_five_or_a_six_unknown(tmp_path, seed):
    # no two of 1-4 pips laid over each other make a 6, and on the second table symbol maps read the
    # left-out photos better only because views also learned what is not a face
    from vision.demo.art import PIP_ART

    rng = np.random.default_rng(seed)
    rig = render.with_art(render.random_rig(rng), PIP_ART[0])
    render.write_calibration_set(tmp_path, rng, rig, per_face=6, empty=2)
    reader = DiceReader(calibrate(tmp_path))
    read = {"five": [], "six": [], "zombee": []}
    for _ in range(8):
        scene = render.render_scene(rng, rig, faces=["six", "six", "zombee", "five"])
        reading = reader.read(scene.image)
        for die, truth in zip(reading.dice, match(reading.dice, scene.dice)):
            if truth is not None:
                read[truth.face].append(die)
    assert len(read["six"]) == 16 and len(read["five"]) == 8
    assert sum(d.face == "unknown" for d in read["six"]) >= 12
    assert sum(d.face == "unknown" for d in read["five"]) >= 6
    assert not [d for d in read["six"] + read["five"] if d.face != "unknown" and d.confidence >= 0.9]
    assert sum(d.face == "zombee" for d in read["zombee"]) >= 7  # a 4 is still a 4


def test_a_face_never_taught_is_not_read_surely_on_a_table_whose_sixes_lie_near_its_fours(tmp_path):
    # chosen only to explain the taught faces, this table's confidence was sharp enough to read a 5 as
    # "zzz 0.92" and a 6 as "zombee 0.97"; the taught faces hidden in turn now soften it
    from vision.demo.art import PIP_ART

    rng = np.random.default_rng(8_700_004)
    rig = render.with_art(render.random_rig(rng, render.HELDOUT), PIP_ART[1])
    render.write_calibration_set(tmp_path, rng, rig, per_face=6, empty=3)
    reader = DiceReader(calibrate(tmp_path))
    read = {"five": [], "six": [], "zombee": []}
    for _ in range(10):
        scene = render.render_scene(rng, rig, faces=["six", "five", "zombee", "five", "six"])
        reading = reader.read(scene.image)
        for die, truth in zip(reading.dice, match(reading.dice, scene.dice)):
            if truth is not None:
                read[truth.face].append(die)
    assert len(read["six"]) == len(read["five"]) == 20
    assert not [d for d in read["six"] + read["five"] if d.face != "unknown" and d.confidence >= 0.9]
    assert sum(d.face == "unknown" for d in read["six"] + read["five"]) >= 30
    assert sum(d.face == "zombee" for d in read["zombee"]) >= 9  # a 4 is still a 4


def test_zombee_dice_are_read_both_by_their_views_and_by_their_symbol_maps(tmp_path):
    # Views follow a symbol's outline and barely see its colour; symbol maps see the colour but take a
    # lamp's spot beside a round honey drop for a plain bee's white wing. On this table of plain bees
    # and round honey drops under glare, maps alone read 4 of the next 199 dice wrong
    from vision.demo.art import Art
    from vision.name.modelfile import load_model, save_model

    rng = np.random.default_rng(8_300_014)
    rig = render.with_art(render.random_rig(rng, render.HELDOUT),
                          Art(body=(22, 22, 24), bee="plain", honey="round", zzz="small", gloss=0.25, tray="cloth"))
    render.write_calibration_set(tmp_path, rng, rig, per_face=6, empty=3)
    model, maps = calibrate(tmp_path), calibrate(tmp_path, compare="map")
    assert model.descriptor == "views" and model.second.descriptor == "map" and model.second.net is model.net
    assert model.report["compares"] == "views and map" and maps.second is None
    save_model(model, tmp_path / "both.npz")
    readers = {"both": DiceReader(load_model(tmp_path / "both.npz")), "maps": DiceReader(maps)}
    wrong = dict.fromkeys(readers, 0)
    for _ in range(40):
        scene = render.render_scene(rng, rig, count=5)
        for how, reader in readers.items():
            reading = reader.read(scene.image)
            for die, truth in zip(reading.dice, match(reading.dice, scene.dice)):
                wrong[how] += truth is not None and die.face != (truth.face if truth.readable else "unknown")
    assert wrong["both"] == 0 and wrong["maps"] >= 2


@pytest.mark.parametrize("gains", [(2.0, 1.1, 1.9), (2.4, 1.5, 1.1)], ids=["purple", "navy"])
def test_dice_of_a_lighter_dark_colour_are_read_by_which_side_of_each_edge_is_lighter(tmp_path, gains, monkeypatch):
    """Purple or navy dice (bench/cameras.py's purple_dice and navy_dice): a dark body lighter than
    black, closer to its pips. A calibrated model's edge directions tell a pip's lighter inside from
    its darker surround (Model.signed). Folded into half a turn, over three calibration seeds the 14
    set dice of the fixture photos read with 2, 2 and 1 misses (purple) and 2, 3 and 3 (navy), the
    glossy 1 of 111642 unknown each time; over a whole turn 0, 1, 0 and 1, 1, 0."""

    def dye(img):
        return dyed(img, gains)

    model = calibrate(_changed_calibration(tmp_path / "as_found", dye))
    misses, seen = _set_dice_misses(model, dye)
    assert seen == 14 and len(misses) <= 1, misses
    # these photos' dice also look more alike cut at their tops (find/parallax.py), where the symbol
    # maps may read them as well; the edge directions' sign is asked about with the cuts as found
    monkeypatch.setattr(sizing, "CLEAR_MOVE", 1.0)
    model = calibrate(_changed_calibration(tmp_path / "found", dye))
    assert model.parallax == 0.0 and model.descriptor == "views" and model.signed
    misses, seen = _set_dice_misses(model, dye)
    assert seen == 14 and len(misses) <= 1, misses


def _purple_table(folder: Path, seed: int = 3):
    """(rig, rng) of a rendered table of purple dice on a lilac cloth, its calibration photos in folder."""
    rng = np.random.default_rng(seed)
    rig = render.random_rig(rng, render.HELDOUT)
    rig = replace(rig, tray=(215, 195, 215), art=replace(rig.art, body=(115, 35, 90)))
    render.write_calibration_set(folder, rng, rig, per_face=6, empty=2)
    return rig, rng


def _rolls_counted_and_read(model, rig, rng, rolls: int = 24) -> tuple[int, int]:
    reader = DiceReader(model)
    counted = right = 0
    for _ in range(rolls):
        scene = render.render_scene(rng, rig, count=4)
        reading = reader.read(scene.image)
        counted += len(reading.dice) == len(scene.dice)
        right += sum(t is not None and t.face == d.face for d, t in zip(reading.dice, match(reading.dice, scene.dice)))
    return counted, right


def test_purple_dice_on_a_lilac_cloth_are_found_in_the_colour_they_are_dark_in(tmp_path, monkeypatch):
    """Purple dice are dark in green and light in red and blue: by their brightest channel they sit near
    the ratio a die must fall below, so a lamp's fall-off hides some and a raised ratio takes in shadows.
    Calibration sees them coloured and looks for them in green (sizing.die_channel): of 24 rolls of four
    dice, all counted and 96 dice read right, where by the brightest channel 18 rolls and 86 dice."""
    rig, rng = _purple_table(tmp_path / "cal")
    model = calibrate(tmp_path / "cal")
    assert model.channel == 1
    counted, right = _rolls_counted_and_read(model, rig, np.random.default_rng(7))
    assert counted >= 23 and right >= 93
    # the same table looked for by the brightest channel (no die counts as coloured): rolls miscounted
    monkeypatch.setattr(sizing, "COLOURED", 0.0)
    model = calibrate(tmp_path / "cal")
    assert model.channel == -1
    counted, _ = _rolls_counted_and_read(model, rig, np.random.default_rng(7))
    assert counted <= 21


@pytest.mark.parametrize("change, channel", [
    (lambda im: dyed(im, (2.0, 1.1, 1.9)), 1),  # purple dice: dark in green
    (lambda im: felt(im, 0.7), -1),  # black dice on green felt: darkest against the felt in green, not coloured
    (lambda im: np.clip(im * np.float32((0.75, 0.95, 1.15)), 0, 255).astype(np.uint8), -1),  # a warm lamp
], ids=["purple dice", "green felt", "warm lamp"])
def test_only_coloured_dice_are_looked_for_in_one_colour(tmp_path, change, channel):
    sized = sizing.at_die_size({sub.name: [(f.name, read_image(f)) for f in sorted(sub.glob("*.jpg"))]
                                for sub in _changed_calibration(tmp_path, change).iterdir() if sub.is_dir()})
    assert sized.channel == channel


def test_a_face_taught_from_many_dice_keeps_fewer_copies_of_each_and_reads_as_well(tmp_path_factory, monkeypatch):
    # a table's corrections add photos every time it learns from them: every copy of every die is
    # compared with each die read, so the copies a face keeps are bounded, never its real dice
    from vision.teach import calibrate as calibration
    from vision.teach.examples import AUGMENT

    folder, rig, rng = rendered_table(tmp_path_factory, 512)
    full = calibrate(folder, compare="map")
    monkeypatch.setattr(calibration, "FACE_COPIES", 2 * AUGMENT)  # as if each face had 40 times the dice
    bounded = calibrate(folder, compare="map")
    for c, face in enumerate(CLASSES[:UNKNOWN]):
        dice = int((full.labels == c).sum()) // AUGMENT
        assert dice >= 3, face
        assert (bounded.labels == c).sum() == dice * max(calibration.MIN_COPIES, 2 * AUGMENT // dice)
    rolls = [render.render_scene(rng, rig, count=5) for _ in range(12)]

    def right(model):
        reader, total = DiceReader(model), 0
        for scene in rolls:
            dice = reader.read(scene.image).dice
            total += sum(t is not None and d.face == t.face for d, t in zip(dice, match(dice, scene.dice)))
        return total

    assert right(bounded) >= right(full) - 1 and right(full) >= 55
