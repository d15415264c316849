"""The report card calibration ends with: how each face's left-out dice read, the weakest face, and
what to photograph next (for `companion vision calibrate` and the teaching wizard on the phone)."""

from __future__ import annotations

import numpy as np

from companion.commands import DICE_FACES

GOOD = 0.95  # cross-validated share of a face's dice read right for the face to count as learned
MIN_PHOTOS = 3  # fewer photos of a face cannot show how that face varies


def quality(pred: np.ndarray, truth: np.ndarray, photos_per_face: dict, threshold: float = 0.5) -> dict:
    """The calibration's report card from cross-validated probabilities: share of each face's dice read right."""
    faces = {}
    for i, face in enumerate(DICE_FACES):
        sel = truth == i
        if not sel.any():
            faces[face] = 0.0
            continue
        got = pred[sel].argmax(1)
        sure = pred[sel].max(1) >= threshold
        faces[face] = round(float(((got == i) & sure).mean()), 3)
    short = [f for f in DICE_FACES if photos_per_face.get(f, 0) < MIN_PHOTOS]
    # a face short of photos comes first, and of those the one read worst (every face taught from two
    # photos named bee, the first, when zzz read 0 %)
    weakest = min(short or DICE_FACES, key=lambda f: (faces[f], photos_per_face.get(f, 0)))
    weak = [f for f in DICE_FACES if faces[f] < GOOD]
    ok = not short and not weak
    # the advice in parts, for a phone to say in its own language: how many more photos of the
    # weakest face, and (when a face is short of photos) which other faces are short or read badly
    more = 0 if ok else max(2, 6 - photos_per_face.get(weakest, 0)) if short or faces[weakest] < 0.8 else 2
    also = [f for f in DICE_FACES if f != weakest and (f in short or f in weak)] if short else []
    if ok:
        advice = "good: every face was read right when left out"
    else:
        advice = f"take {more} more photos of {weakest}" + (
            f" (only {photos_per_face.get(weakest, 0)})" if weakest in short else
            f" ({100 * faces[weakest]:.0f}% of its dice read right when left out)")
        if also:
            advice += "; also " + ", ".join(also)
    total = sum(photos_per_face.values())
    right = sum(faces[f] * int((truth == i).sum()) for i, f in enumerate(DICE_FACES))
    return {"ok": ok, "faces": faces, "weakest": weakest, "advice": advice, "more": more, "also": also,
            "short": weakest in short,
            "accuracy": round(right / max(len(truth), 1), 3), "photos": dict(photos_per_face),
            "dice": {f: int((truth == i).sum()) for i, f in enumerate(DICE_FACES)}, "total_photos": total}


def report_lines(report: dict) -> list[str]:
    """The report as a person reads it after `companion vision calibrate`."""
    def one(face: str, share: float) -> str:
        n = report["photos"].get(face, 0)
        # a face of one photo cannot be left out and read by the others: said, not "0%"
        return f"{face} {'not measured' if n < 2 else f'{100 * share:.0f}%'} ({n} photo{'' if n == 1 else 's'})"

    faces = ", ".join(one(f, a) for f, a in report["faces"].items())
    measured = all(report["photos"].get(f, 0) >= 2 for f in report["faces"])
    lines = [f"cross-validated: {100 * report['accuracy']:.1f}% of calibration dice read right; {faces}" if measured
             else f"cross-validated: not measured where a face has one photo (a photo is read by the others "
                  f"of its face, left out in turn); {faces}"]
    lines += report.get("doubts") or []  # a photo in the wrong folder first: more photos would not mend it
    lines.append(f"weakest face: {report['weakest']}; {report['advice']}")
    if report.get("network"):
        lines.append("the ZomBee network was refitted to these dice and names the faces together with them")
    if report.get("pips"):
        counts = ", ".join(f"{face} {n}" for face, n in report["pips"].items())
        lines.append(f"pip dice ({counts}): the pip reader reads their pips together with these photos, "
                     f"and a count no face shows reads unknown")
    if report.get("untaught_unknown") is not None:
        lines.append(f"a face never taught reads unknown {100 * report['untaught_unknown']:.0f}% of the time "
                     f"(each face hidden in turn)")
    if report.get("lamp_divided_out"):
        lines.append("the tray's tint looks like the lamp's: it is divided out of the dice, as from a white tray")
    if report.get("enlarged"):
        lines.append(f"the dice are small in these photos: every frame is read enlarged {report['enlarged']:.1f} "
                     f"times; a camera closer to the tray reads them better")
    return lines
