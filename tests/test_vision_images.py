import cv2
import numpy as np
import pytest

from companion.errors import ImageError
from vision.images import check_frame, photo_files, read_image


def test_a_broken_missing_or_tiny_photo_is_named(tmp_path):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    with pytest.raises(ImageError, match="broken.jpg.*not a readable image"):
        read_image(bad)
    with pytest.raises(ImageError, match="missing.png.*cannot read"):
        read_image(tmp_path / "missing.png")
    with pytest.raises(ImageError, match="is a folder"):
        read_image(tmp_path)
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((10, 12, 3), np.uint8))
    with pytest.raises(ImageError, match=r"tiny.png.*12x10 pixels"):
        read_image(tiny)


# the first bytes of an iPhone's photo: an ISO media file of brand "heic"
HEIC_START = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"


def test_a_phones_heic_photo_is_named_with_what_to_do_rather_than_called_corrupt(tmp_path):
    photo = tmp_path / "IMG_0042.HEIC"
    photo.write_bytes(HEIC_START + bytes(2000))
    with pytest.raises(ImageError, match=r"IMG_0042.HEIC.*HEIC photo.*JPEG"):
        read_image(photo)
    # the same bytes under a .jpg name (renamed by hand) are still a HEIC photo
    renamed = tmp_path / "IMG_0042.jpg"
    renamed.write_bytes(photo.read_bytes())
    with pytest.raises(ImageError, match="IMG_0042.jpg.*HEIC photo"):
        read_image(renamed)


def test_grey_and_transparent_frames_are_taken_as_colour_and_others_refused():
    assert check_frame(np.full((48, 64), 200, np.uint8)).shape == (48, 64, 3)
    assert check_frame(np.zeros((48, 64, 4), np.uint8)).shape == (48, 64, 3)
    with pytest.raises(ImageError, match="8-bit image array.*float64"):
        check_frame(np.zeros((48, 64, 3), np.float64))
    with pytest.raises(ImageError, match="at least 32x32"):
        check_frame(np.zeros((16, 64, 3), np.uint8))


def test_a_folder_gives_its_photos_by_name_without_a_macs_metadata_files(tmp_path):
    for name in ("b.JPG", "a.png", "._a.png", "notes.txt"):
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / "c.jpg").mkdir()  # a folder with a photo's ending is no photo
    assert [p.name for p in photo_files(tmp_path)] == ["a.png", "b.JPG"]


def test_a_large_photo_held_with_others_is_averaged_down_to_the_size_asked(tmp_path):
    # calibration holds every photo at once: a phone's 12 megapixels each took a Pi's memory
    stripes = np.zeros((1200, 3200, 3), np.uint8)
    stripes[:, ::2] = 200  # one-pixel stripes: sampled, they would stay stripes or turn black or light
    path = tmp_path / "phone.png"
    cv2.imwrite(str(path), stripes)
    held = read_image(path, longest=1600)
    assert held.shape == (600, 1600, 3)
    assert abs(float(held.mean()) - 100) < 1 and held.std() < 1
    assert read_image(path).shape == stripes.shape  # unless asked
    assert read_image(path, longest=4000).shape == stripes.shape  # never enlarged
