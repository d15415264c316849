"""Photos and frames as the reader takes them: an image file read from disk, or an array handed over,
each checked first so that bad input gets a one-line error naming the file and what is wrong."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.errors import ImageError

from . import MAX_PIXELS


def check_frame(frame) -> np.ndarray:
    """A BGR uint8 frame, or ImageError saying what was handed over instead."""
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3):
        raise ImageError(f"a frame must be an 8-bit image array, got {type(frame).__name__} "
                         f"{getattr(frame, 'dtype', '')} {getattr(frame, 'shape', '')}")
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if frame.ndim != 3 or frame.shape[2] != 3 or min(frame.shape[:2]) < 32:
        raise ImageError(f"a frame must be a colour image at least 32x32, got shape {frame.shape}")
    return frame


# what a folder of photos is read for (calibration, a folder replayed as a camera); HEIC and HEIF, a
# phone's default format that OpenCV cannot decode, are listed too so that such a photo is named and
# explained rather than silently passed over
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".heic", ".heif"}
# an ISO media file's type box ("ftyp" at byte 4) and the brands of a HEIC or HEIF still photo
_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"}


def is_heif(data: np.ndarray) -> bool:
    """Whether the bytes of a file are a HEIC or HEIF photo (an iPhone's own format, among others)."""
    head = data[:12].tobytes()
    return head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS


def photo_files(folder: Path) -> list[Path]:
    """The photos in a folder, by name: files with a photo's ending, not hidden ones (a Mac copies "._IMG.jpg"
    beside each photo onto a USB stick: its metadata, no image)."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and not p.name.startswith(".")
                  and p.is_file())


def read_image(path, longest: int | None = None) -> np.ndarray:
    """Load a photo from disk; ImageError names the file when it is missing or not an image. longest:
    a photo larger than this on its longer side is averaged down to it (photos held together)."""
    p = Path(path)
    if p.is_dir():  # it read "cannot read the file (Is a directory)"
        raise ImageError(f"{str(path)!r} is a folder: give the photos in it ({str(p / '*.jpg')!r})")
    try:
        data = np.fromfile(p, np.uint8)
    except OSError as exc:
        raise ImageError(f"{str(path)!r}: cannot read the file ({exc.strerror or exc})") from None
    try:
        img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    except cv2.error:  # OpenCV refuses an image over OPENCV_IO_MAX_IMAGE_PIXELS (see vision/__init__.py)
        raise ImageError(f"{str(path)!r}: too large to read (over {MAX_PIXELS // 1_000_000} megapixels) "
                         f"or damaged: take the photo at a smaller size") from None
    if img is None and is_heif(data):
        raise ImageError(f"{str(path)!r}: a HEIC photo, which the reader cannot open: take JPEG photos "
                         f"(on an iPhone: Settings, Camera, Formats, Most Compatible) or convert it to JPEG")
    if img is None:
        raise ImageError(f"{str(path)!r}: not a readable image (corrupt, empty or an unknown format)")
    if min(img.shape[:2]) < 32:  # said of the file, not as check_frame's "got shape (1, 1, 3)"
        raise ImageError(f"{str(path)!r}: {img.shape[1]}x{img.shape[0]} pixels, too small a picture to show dice "
                         f"(at least 32x32)")
    if longest is not None and max(img.shape[:2]) > longest:
        img = resized(img, longest / max(img.shape[:2]))
    return img


def resized(img: np.ndarray, f: float) -> np.ndarray:
    """The picture f times its size: averaged down (no aliasing), or enlarged smoothly."""
    size = (max(1, round(img.shape[1] * f)), max(1, round(img.shape[0] * f)))
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC)
