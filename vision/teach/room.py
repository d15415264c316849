"""Room on the memory card for teaching the dice: asked before a step starts, so a full card is said
at once, in words, and not after a minute of building (or never, with the build's thread dead).

What a step needs is told from the photos already on the card (a table's photos are all about the
same size), else from the newest frame encoded as the store would keep it.
"""

from __future__ import annotations

import cv2

from companion import files
from companion.errors import CompanionError

MARGIN = 256 * 1024  # the calibration's notes, the index, a file system's own blocks


class NoRoom(CompanionError, OSError):
    """A step refused, or ended, for want of room on the card (or a write the card refused). What was
    acknowledged before is kept; the message says why and what to tap once room is made."""


def refuse_full(exc: files.WriteError, again: str) -> NoRoom:
    """The words for a write the card refused, with the way on."""
    return NoRoom(exc.words(again))


def photo_size(store, latest) -> int:
    """About how much one calibration photo takes on the card."""
    known = store.photo_size()
    if known:
        return known
    shot = latest.get()
    if shot is not None:
        ok, data = cv2.imencode(".png", shot.frame)
        if ok:
            return len(data)
    return 1024 * 1024  # no photo and no camera: a 640x480 PNG is well under this


def check(store, need: int, doing: str, again: str) -> None:
    """NoRoom when the store's card has less than need (+ MARGIN) bytes free; nothing when it has, or
    when its room cannot be told."""
    free = store.free()
    if free is not None and free < need + MARGIN:
        raise NoRoom(f"The memory card is too full to {doing}: about {files.size_words(need + MARGIN)} needed, "
                     f"{files.size_words(free)} free; delete old game exports or photos, then {again}")


def to_teach(store, latest, steps) -> int:
    """One capture of each step and the model built from them: the least that teaches a model (each
    capture then asks for its own room, and leaves the model's)."""
    return len(steps) * photo_size(store, latest) + store.model_size()


def to_capture(store, latest) -> int:
    """The photo, and room left for the model it is to be built into."""
    return photo_size(store, latest) + store.model_size()


def to_learn(store, current) -> int:
    """A copy of the photos of the model in use, one photo per corrected roll, and the model."""
    photos = store.photos_dir(current)
    per_photo = store.photo_size() or 0
    return store.folder_size(photos) + len(store.pending()) * per_photo + store.model_size()

