"""How often the camera would ask about a die (vision/doubt.py) on the real photos, and whether the
question offers the die's face: `python bench/doubt.py [--photos DIR]`.

For each labelled die read `unknown` by the model calibrated from the set's calibration/: asked (it lies
between two faces) or left to "check the dice"; of those asked, how many offer the die's own face among
the two (one tap enters it) and how many are 5 or 6 pips, which no tap names ("Something else…").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dice_photos import labels, scorer  # noqa: E402  (bench/, beside this script)
from vision.doubt import CLOSE, MOSTLY, between  # noqa: E402
from vision.images import read_image  # noqa: E402
from vision.reader import DiceReader  # noqa: E402
from vision.teach.calibrate import calibrate  # noqa: E402

PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "dice-photos"


def tally(reader: DiceReader, photos: Path, sub: str, score) -> dict:
    truth_of = labels(photos, sub)
    out = {"dice": 0, "unknown": 0, "asked": 0, "offers_face": 0, "untaught_asked": 0, "unknown_untaught": 0}
    for f in sorted((photos / sub).glob("*.jpg")):
        reading = reader.read(read_image(f))
        truth = truth_of[f.name]["dice"]
        got = [d.to_dict() for d in reading.dice]
        for i, j in score.match(truth, got).items():
            t = truth[i]
            if t.get("kind", "set") != "set":
                continue
            out["dice"] += 1
            die = reading.dice[j]
            if die.face != "unknown":
                continue
            out["unknown"] += 1
            untaught = t.get("face") is None
            out["unknown_untaught"] += untaught
            pair = between(die)
            if pair is not None:
                out["asked"] += 1
                out["untaught_asked"] += untaught
                out["offers_face"] += t.get("face") in pair
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=Path, default=PHOTOS)
    args = ap.parse_args(argv)
    if not (args.photos / "score.py").is_file():
        print(f"no dice-photos set at {args.photos} (use --photos)")
        return 2
    score = scorer(args.photos)
    reader = DiceReader(calibrate(args.photos / "calibration"))
    print(f"asked: a die read unknown whose runner-up has >= {CLOSE} of the likeliest face's probability "
          f"and the two together >= {MOSTLY}")
    for sub in ("test", "test_raw"):
        t = tally(reader, args.photos, sub, score)
        print(f"{sub}/: {t['dice']} labelled dice, {t['unknown']} read unknown ({t['unknown_untaught']} of them "
              f"5 or 6 pips); asked {t['asked']}: {t['offers_face']} offer the die's face, "
              f"{t['untaught_asked']} are 5 or 6 pips (Something else); "
              f"{t['unknown'] - t['asked']} left to check the dice")
    return 0


if __name__ == "__main__":
    sys.exit(main())
