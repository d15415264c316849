"""Other trays under the same real dice: a photo's light sheet repainted as green felt or a wooden
table, the dice left as they are; and a camera shaken over them. For the tests and bench/cameras.py."""

from __future__ import annotations

import cv2
import numpy as np

from vision.demo.art import texture


def dice_mask(img: np.ndarray) -> np.ndarray:
    """Where the dice are, softly (0-1, one channel): what is darker or more coloured than the sheet
    around it, with its holes (white pips) filled; the rest is sheet (its glare and shadows with it)."""
    light = img.max(axis=2)
    sheet_level = cv2.medianBlur(light, 41).astype(np.float32)  # a window wider than a die: the sheet
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    die = ((light < 0.7 * sheet_level) | (hsv[..., 1] > 70)).astype(np.uint8)
    die = cv2.morphologyEx(die, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    outside = die.copy()
    cv2.floodFill(outside, None, (0, 0), 2)  # what the border reaches is not inside a die
    die = cv2.dilate((outside != 2).astype(np.uint8), np.ones((3, 3), np.uint8))
    return cv2.GaussianBlur(die.astype(np.float32), (0, 0), 1.0)[..., None]


def repainted(img: np.ndarray, tint, brightness: float, surface: np.ndarray | None = None) -> np.ndarray:
    """The light sheet repainted as its light times tint (BGR) and brightness, plus surface (a texture
    round 0, such as wood grain); the dice left as they are."""
    f = img.astype(np.float32)
    sheet = 1.0 - dice_mask(img)
    new = f * np.array(tint) * brightness + (0 if surface is None else surface)
    return np.clip(f * (1 - sheet) + new * sheet, 0, 255).astype(np.uint8)


def felt(img: np.ndarray, brightness: float) -> np.ndarray:
    """Green felt at brightness times the sheet's light."""
    return repainted(img, (0.55, 1.0, 0.7), brightness)


def wood(img: np.ndarray, brightness: float) -> np.ndarray:
    """A brown wooden table at brightness times the sheet's light, with the renderer's wood grain
    (the same grain on every photo of a size: one table)."""
    grain = texture("wood", img.shape[:2], np.random.default_rng(img.shape[0]))
    return repainted(img, (0.55, 0.75, 1.0), brightness, 1.5 * grain)


def dyed(img: np.ndarray, gains) -> np.ndarray:
    """The dark dice made another dark colour: their dark body lifted by gains (BGR), the pips and the
    sheet left as they are (the light dice are tinted a little too; nothing asks anything of them)."""
    f = img.astype(np.float32)
    body = dice_mask(img) * np.clip(1 - f.max(axis=2, keepdims=True) / 140, 0, 1)  # dark pixels of a die
    return np.clip(f * (1 - body) + np.minimum(f * np.float32(gains), 255) * body, 0, 255).astype(np.uint8)


def shaken(img: np.ndarray, streak: int = 7) -> np.ndarray:
    """A camera shaken sideways while the shutter is open: each pixel the mean of streak along its row."""
    return cv2.filter2D(img, -1, np.full((1, streak), 1 / streak, np.float32))
