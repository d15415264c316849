"""The tuning photos' real dice laid on other cloths, for training the pip reader (tools/train_pips.py).

The real photos show one light plastic sheet. Laid by compositing on a green or black felt, a red
cloth or oak (bench/pips.py's cloth rows), the held-out dice the reader read 96 % of on the sheet
read 46-89 %, and 3-4 % of them surely wrong: it had learned the real look of a die on that sheet
only, and the rendered trays' cloths did not carry over to real dice. Only the reader learns from
these: a finder run with them found no fewer wrong dice on the cloths and fewer right on the sheet.

Where a pixel is sheet comes from the empty photos of the same camera (calibration/empty): a pixel
whose colour is the empty sheet's, times a shade (a die's shadow, the lamp's fall-off), is sheet;
that shade is kept on the new cloth, so the dice keep their shadows. JPEG smears a die's colour a
few pixels onto the sheet round it, so a pixel as bright as the sheet may differ more in hue. A
white die is nearly the sheet's colour: a die whose box is mostly taken for sheet is not taught from
that photo (its value becomes None), since its body may have gone with the sheet.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tools.pip_scenes import tray

MOSTLY_SHEET = 0.5  # of a die's inner box: more than this taken for sheet, and the die is not taught here
POCKET = 300  # pixels: sheet enclosed by a die smaller than this is the die's own (a white pip, a light face)


def empty_sheet(photos: Path) -> np.ndarray | None:
    """The empty sheet as the camera shows it (the median of calibration/empty/), or None."""
    shots = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in sorted((photos / "calibration" / "empty").glob("*.jpg"))]
    shots = [s for s in shots if s is not None]
    return np.median(np.stack(shots), axis=0).astype(np.float32) if shots else None


def sheet_of(img: np.ndarray, empty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mask of sheet pixels, the shade of each pixel against the empty sheet)."""
    ratio = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.8) / np.maximum(cv2.GaussianBlur(empty, (0, 0), 2), 1)
    ratio /= np.median(ratio.reshape(-1, 3), axis=0)  # the photo's own exposure
    shade = ratio.mean(axis=2)
    hue_off = np.linalg.norm(ratio - shade[..., None], axis=2) / np.maximum(shade, 0.05)
    as_bright = np.clip(1 - np.abs(shade - 1) / 0.12, 0, 1)  # JPEG's colour smear round a die
    sheet = (hue_off < 0.07 + 0.2 * as_bright) & (shade > 0.3) & (shade < 1.09)
    die = cv2.morphologyEx((~sheet).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    _, parts, stats, _ = cv2.connectedComponentsWithStats(1 - die, connectivity=4)
    small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] < POCKET)
    die[np.isin(parts, small[small > 0])] = 1
    return 1 - die, shade


def relaid(img: np.ndarray, empty: np.ndarray, cloth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(img with its sheet replaced by cloth (float BGR, img's size), shadows and the lamp's fall-off
    kept; the mask of what was sheet)."""
    sheet, shade = sheet_of(img, empty)
    alpha = cv2.GaussianBlur(1.0 - sheet.astype(np.float32), (0, 0), 0.7)[..., None]
    out = alpha * img + (1 - alpha) * cloth * np.clip(shade, 0, 1.1)[..., None]
    return np.clip(out, 0, 255).astype(np.uint8), sheet


def on_cloth(img: np.ndarray, dice: list, empty: np.ndarray | None, rng) -> tuple[np.ndarray, list]:
    """img laid on a rendered cloth (tools/pip_scenes.tray); dice [(x, y, box, value)] with those mostly
    taken for sheet set to None. Unchanged when the photo is not of the empty sheet's camera."""
    if empty is None or img.shape != empty.shape:
        return img, dice
    out, sheet = relaid(img, empty, tray(rng, *img.shape[:2]))
    kept = []
    for x, y, box, value in dice:
        q = box / 4  # the die's inner box
        inner = sheet[max(0, int(y - q)):int(y + q), max(0, int(x - q)):int(x + q)]
        taught = value is None or value <= 0 or not inner.size or inner.mean() <= MOSTLY_SHEET
        kept.append((x, y, box, value if taught else None))
    return out, kept
