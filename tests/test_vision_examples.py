import numpy as np

from vision.teach.examples import augment, mixtures, prototype, query
from vision.cut.features import DIM, VIEW_DIM, VIEW_PATCH, views


def _die(spots):
    """A dark VIEW_PATCH crop with white pips at the given (x, y) spots."""
    import cv2

    crop = np.full((VIEW_PATCH, VIEW_PATCH, 3), 40, np.uint8)
    for x, y in spots:
        cv2.circle(crop, (x, y), 3, (230, 230, 230), -1)
    return crop


TRAY = np.array([210.0, 210.0, 210.0], np.float32)
ONE = _die([(19, 19)])
FOUR = _die([(11, 11), (27, 11), (11, 27), (27, 27)])
FIVE = _die([(19, 19), (11, 11), (27, 11), (11, 27), (27, 27)])


def test_a_one_laid_over_a_four_is_a_five():
    mixes, photos = mixtures("views", [(ONE, TRAY, 0, 1, None), (FOUR, TRAY, 3, 2, None)], np.random.default_rng(0),
                             shifted=0)
    assert mixes.shape == (2, 8, VIEW_DIM) and photos.tolist() == [[1, 2], [1, 2]]
    five = views(FIVE, TRAY)[0]
    assert np.linalg.norm(mixes[0, 0] - five) < 0.05  # the same picture up to rounding
    assert np.linalg.norm(mixes[0, 0] - views(FOUR, TRAY)[0]) > 0.2


def test_dice_of_one_face_are_never_mixed_and_pairs_are_capped():
    dice = [(ONE, TRAY, 0, 1, None), (ONE, TRAY, 0, 2, None)]
    assert len(mixtures("map", dice, np.random.default_rng(0), shifted=0)[0]) == 0
    many = [(ONE, TRAY, k % 4, k, None) for k in range(12)]  # 54 pairs of different faces
    mixes, _ = mixtures("map", many, np.random.default_rng(0), limit=10, shifted=0)
    assert mixes.shape == (20, DIM)


def test_a_four_over_a_shifted_four_is_a_six():
    # no two of 1-4 pips laid over each other with a turn make a 6; one symbol moved along an edge does
    six = views(_die([(11, 11), (19, 11), (27, 11), (11, 27), (19, 27), (27, 27)]), TRAY)
    mixes, photos = mixtures("views", [(FOUR, TRAY, 3, 1, None)], np.random.default_rng(0), shifted=20)
    assert mixes.shape == (20, 8, VIEW_DIM) and photos.tolist() == [[1, 1]] * 20
    nearest = min(np.linalg.norm(m[0] - s) for m in mixes for s in six)
    assert nearest < 0.5 * min(np.linalg.norm(views(FOUR, TRAY)[0] - s) for s in six)


def test_queries_and_prototypes_have_the_shapes_a_model_compares():
    assert query("views", FOUR, TRAY).shape == (8, VIEW_DIM) and prototype("views", FOUR, TRAY).shape == (VIEW_DIM,)
    assert query("map", FOUR, TRAY).shape == (DIM,) and prototype("map", FOUR, TRAY).shape == (DIM,)


def test_augmented_crops_are_the_die_as_photographed_then_jittered_copies():
    import cv2

    frame = np.full((120, 160, 3), 210, np.uint8)
    cv2.rectangle(frame, (60, 40), (92, 72), (40, 40, 40), -1)
    cv2.circle(frame, (76, 56), 4, (230, 230, 230), -1)
    crops = augment(frame, 76, 56, 33, 0.0, np.random.default_rng(0), n=6)
    assert len(crops) == 6 and all(c.shape == (VIEW_PATCH, VIEW_PATCH, 3) and c.dtype == np.uint8 for c in crops)
    assert np.abs(crops[0].astype(int) - crops[1].astype(int)).mean() > 1  # copies differ from the original
