"""Pip die reader benchmark: the hand-labelled real photos, read with no calibration, beside a peer.

    python bench/pips.py [--photos ../shared/dice-photos] [--no-variants] [--peer PATH]

Reads every photo of --photos/test_raw (every die there is labelled with its pips, of every colour and
kind) with vision.pips.read_d6. The photos are split once by name (sorted; even places "tuning", odd
places "held-out"); the reader's rules were chosen looking at the tuning half only, so the held-out
half is what to quote. A reading is matched to a labelled die when its centre lies within 0.6 of the
die's side. Printed per half:
  per die      labelled dice read as their value (a missed die or an "unknown" is not right)
  photos       photos with every labelled die right and no die that is not there
  wrong count  photos where the number of dice found differs from the number lying there; "apart":
               the same among photos where no two dice are closer than 1.5 sides (none touch)
  sure         dice read as a value at confidence >= 0.9, and how many of those were wrong (a die
               found where none lies counts as wrong)
  ms           per photo, one core (cv2.setNumThreads(1)), median and slowest
Then the speed on a drawn 640x640 tray with 25 dice (the target: <= 30 ms on one core).
Variants read the held-out half again, changed as other cameras and rooms change a photo: scaled,
turned, seen by a camera farther off or wider (the same dice in a frame twice as large, or a 16:9
frame twice as high and wider still, or a 4K one) or three times closer (the photo enlarged round its dice and
cut back to its size), tilted 20 or 35 degrees (tools/tilt.py; the 16:9 frame tilted 35 too, its
dice some 15 pixels across, the far ones smaller), darker and brighter, a warmer
lamp, blurred, noisy, saved as a poor JPEG, and laid on other cloths (green and black felt, a red
cloth, oak: the sheet replaced, the dice and their shadows kept).
The peer (byler-d6-dice.tflite, ../shared/peers) is read on the same photos when the file and
ai_edge_litert are both present; it is never part of the product.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from vision.images import read_image  # noqa: E402
from vision.pips import UNKNOWN, read_d6  # noqa: E402

from dice_photos import UNLABELLED  # noqa: E402  (bench/, beside this script)

SURE = 0.9
MATCH = 0.6  # a reading belongs to a labelled die within this share of the die's side
PEER_CLASSES = [1, 4, 3, 5, 6, 2]  # the peer's class index to pip value (../shared/peers/README.md)
PEER_THRESHOLD = 0.2  # the peer's best score threshold on these photos


def load_labels(photos: Path) -> dict:
    out = json.loads((photos / "test_raw" / "labels.json").read_text())
    for name, folders, (x, y), box, _ in UNLABELLED:
        if "test_raw" in folders and name in out:
            out[name]["dice"].append({"value": None, "x": x, "y": y, "box": list(box), "kind": "unlabelled"})
    return out


def halves(names) -> dict:
    names = sorted(names)
    return {"tuning": names[0::2], "held-out": names[1::2]}


def _side(die) -> float:
    x0, y0, x1, y1 = die["box"]
    return max(x1 - x0, y1 - y0)


def score_photo(truth: list, readings: list) -> dict:
    """Readings (dicts with x, y, value, confidence) against the labelled dice of one photo."""
    pairs = sorted(((np.hypot(r["x"] - t["x"], r["y"] - t["y"]) / _side(t), i, j)
                    for i, t in enumerate(truth) for j, r in enumerate(readings)))
    used_t, used_r, match = set(), set(), {}
    for dist, i, j in pairs:
        if dist <= MATCH and i not in used_t and j not in used_r:
            used_t.add(i), used_r.add(j)
            match[i] = readings[j]
    labelled = [i for i, t in enumerate(truth) if t["value"] is not None]
    right = sum(1 for i in labelled if i in match and match[i]["value"] == truth[i]["value"])
    extra = len(readings) - len(used_r)
    sure = [r for r in readings if r["value"] != UNKNOWN and r["confidence"] >= SURE]
    sure_wrong = extra_sure = sum(1 for j, r in enumerate(readings) if j not in used_r and r in sure)
    for i, r in match.items():
        if r in sure and truth[i]["value"] is not None and r["value"] != truth[i]["value"]:
            sure_wrong += 1
    del extra_sure
    centres = np.array([(t["x"], t["y"]) for t in truth])
    side = max(_side(t) for t in truth) if truth else 0
    apart = all(np.hypot(*(centres[a] - centres[b])) >= 1.5 * side
                for a in range(len(truth)) for b in range(a))
    return {"dice": len(labelled), "right": right, "whole": right == len(labelled) and extra == 0,
            "count_wrong": len(readings) != len(truth), "apart": apart, "sure": len(sure), "sure_wrong": sure_wrong}


def summary(scores: list) -> str:
    dice = sum(s["dice"] for s in scores)
    right = sum(s["right"] for s in scores)
    apart = [s for s in scores if s["apart"]]
    sure = sum(s["sure"] for s in scores)
    sure_wrong = sum(s["sure_wrong"] for s in scores)
    return (f"per die {100 * right / max(dice, 1):5.1f} % ({right}/{dice})  "
            f"photos {100 * sum(s['whole'] for s in scores) / max(len(scores), 1):5.1f} %  "
            f"wrong count {100 * sum(s['count_wrong'] for s in scores) / max(len(scores), 1):4.1f} % "
            f"(apart {sum(s['count_wrong'] for s in apart)}/{len(apart)})  "
            f"sure {sure} wrong {sure_wrong} ({100 * sure_wrong / max(sure, 1):.2f} %)")


def our_reader(nets=None):
    """Our read of a photo, by the shipped networks or by (finder, reader) when nets are given."""
    def read(img) -> list:
        return [d.to_dict() for d in read_d6(img, nets)]
    return read


def peer_reader(path: Path):
    """The peer detector as a function of a photo, or None when its file or ai_edge_litert is missing."""
    if not path.is_file():
        return None
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        return None
    net = Interpreter(model_path=str(path), num_threads=1)
    net.allocate_tensors()
    inp = net.get_input_details()[0]
    outs = net.get_output_details()

    def read(img) -> list:
        h, w = img.shape[:2]
        rgb = cv2.cvtColor(cv2.resize(img, (320, 320), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB)
        net.set_tensor(inp["index"], rgb[None].astype(inp["dtype"]))
        net.invoke()
        got = [net.get_tensor(o["index"]) for o in outs]
        boxes = next(g for g in got if g.ndim == 3)[0]
        flat = [g[0] for g in got if g.ndim == 2]
        scores = next(f for f in flat if f.max() <= 1.0 and not np.allclose(f, np.round(f)))
        classes = next(f for f in flat if f is not scores)
        out = []
        for (y0, x0, y1, x1), c, s in zip(boxes, classes, scores):
            if s >= PEER_THRESHOLD:
                out.append({"x": (x0 + x1) / 2 * w, "y": (y0 + y1) / 2 * h,
                            "value": PEER_CLASSES[int(c)], "confidence": float(s)})
        return out
    return read


def variants() -> dict:
    """Ways a photo changes on other cameras and in other rooms, each as (image, points) -> same."""
    def affine(img, pts, m, size):
        out = cv2.warpAffine(img, m, size, borderMode=cv2.BORDER_REPLICATE)
        return out, [tuple(m @ np.array([x, y, 1.0])) for x, y in pts], abs(m[0, 0] ** 2 + m[0, 1] ** 2) ** 0.5

    def scale(f):
        def do(img, pts):
            h, w = img.shape[:2]
            return affine(img, pts, np.array([[f, 0, 0], [0, f, 0]]), (round(w * f), round(h * f)))
        return do

    def turn(deg):
        def do(img, pts):
            h, w = img.shape[:2]
            return affine(img, pts, cv2.getRotationMatrix2D((w / 2, h / 2), deg, 1.0), (w, h))
        return do

    def pixels(fn):
        return lambda img, pts: (fn(img), pts, 1.0)

    def tilt(deg, axis):
        from tools.tilt import tilted
        return lambda img, pts: (*tilted(img, pts, deg, axis), 1.0)

    def wider(k, aspect=1.0):
        # a camera farther off or of a wider lens: the same dice in a frame k times as large (aspect times
        # as wide again), the rest of it the photo's own sheet colour, the seam feathered
        def do(img, pts):
            h, w = img.shape[:2]
            big_h, big_w = int(h * k), int(w * k * aspect)
            top, left = (big_h - h) // 2, (big_w - w) // 2
            sheet = np.median(img.reshape(-1, 3), axis=0).astype(np.float32)
            out = sheet + cv2.GaussianBlur(np.random.default_rng(h).normal(0, 4, (big_h, big_w, 3)).astype(np.float32),
                                           (0, 0), 1.0)
            keep = np.zeros((h, w), np.float32)
            keep[24:-24, 24:-24] = 1
            keep = cv2.GaussianBlur(keep, (0, 0), 12)[..., None]
            out[top:top + h, left:left + w] = keep * img + (1 - keep) * out[top:top + h, left:left + w]
            return np.clip(out, 0, 255).astype(np.uint8), [(x + left, y + top) for x, y in pts], 1.0
        return do

    def closer(k):
        # a camera k times closer: the photo enlarged round its dice and cut back to its size; a die the
        # cut reaches (within a die's side of it) is neither right nor wrong, a die beyond it not there
        def do(img, pts):
            h, w = img.shape[:2]
            big = cv2.resize(img, (round(w * k), round(h * k)), interpolation=cv2.INTER_CUBIC)
            cx, cy = np.mean(pts, axis=0) * k if len(pts) else (w * k / 2, h * k / 2)
            left, top = int(np.clip(cx - w / 2, 0, big.shape[1] - w)), int(np.clip(cy - h / 2, 0, big.shape[0] - h))
            moved = [(x * k - left, y * k - top) for x, y in pts]
            reach = 25 * k  # the photos' dice are 25-50 pixels across
            cut = [not (reach <= x < w - reach and reach <= y < h - reach) for x, y in moved]
            return big[top:top + h, left:left + w], moved, k, cut
        return do

    rng = np.random.default_rng(7)

    def jpeg(img):
        return cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 30])[1], cv2.IMREAD_COLOR)

    return {
        "scale 0.6": scale(0.6), "scale 1.5": scale(1.5), "turned 30": turn(30), "turned 45": turn(45),
        "wider 2x": wider(2), "wider 16:9": wider(2, 16 / 9), "wider 4K": wider(3.375, 16 / 9), "closer 3x": closer(3),
        "wide, tilted 35": lambda img, pts: tilt(35, 60)(*wider(2, 16 / 9)(img, pts)[:2]),
        "tilted 20": tilt(20, 0), "tilted 35": tilt(35, 60),
        "darker 40 %": pixels(lambda i: cv2.convertScaleAbs(i, alpha=0.6)),
        "brighter 40 %": pixels(lambda i: cv2.convertScaleAbs(i, alpha=1.4)),
        "warm lamp": pixels(lambda i: np.clip(i * np.array([0.8, 1.0, 1.15]), 0, 255).astype(np.uint8)),
        "blur": pixels(lambda i: cv2.GaussianBlur(i, (0, 0), 1.2)),
        "noise": pixels(lambda i: np.clip(i + rng.normal(0, 8, i.shape), 0, 255).astype(np.uint8)),
        "jpeg 30": pixels(jpeg),
    }


def cloths(photos: Path) -> dict:
    """The held-out photos' light sheet replaced by other cloths, each as (image, points) -> same: the
    sheet is told from the dice by the camera's empty photos, and the dice keep their shadows
    (tools/real_cloth.py). A compositing, not a photo: a thin light rim stays round some dice and a
    white die can lose part of its body, so read these rows as a check of cloths, not a promise."""
    from tools.real_cloth import empty_sheet, relaid
    from vision.demo.art import texture
    empty = empty_sheet(photos)
    if empty is None:
        return {}

    def lay(colour, kind):
        # drawn once: every photo of the camera is laid on the same cloth
        cloth = np.float32(colour) + texture(kind, empty.shape[:2], np.random.default_rng(5))

        def do(img, pts):
            if img.shape != empty.shape:
                return img, pts, 1.0
            return relaid(img, empty, cloth)[0], pts, 1.0
        return do
    return {"green felt": lay((40, 95, 35), "felt"), "black felt": lay((28, 28, 30), "felt"),
            "red cloth": lay((45, 45, 150), "cloth"), "oak wood": lay((70, 120, 170), "wood")}


def run(reader, photos: Path, labels: dict, names, change=None):
    scores, times = [], []
    for name in names:
        img = read_image(photos / "test_raw" / name)
        truth = [dict(d) for d in labels[name]["dice"]]
        if change is not None:
            img, pts, f, *cut = change(img, [(d["x"], d["y"]) for d in truth])
            for d, (x, y), gone in zip(truth, pts, cut[0] if cut else [False] * len(truth)):
                x0, y0, x1, y1 = d["box"]
                d["x"], d["y"], d["box"] = x, y, [0, 0, (x1 - x0) * f, (y1 - y0) * f]
                if gone:
                    d["value"] = None  # cut by the photo's edge: neither right nor wrong
            h, w = img.shape[:2]  # a die a turn or a tilt carried out of the photo is no longer in it
            truth = [d for d in truth if 0 <= d["x"] < w and 0 <= d["y"] < h]
        t = time.perf_counter()
        readings = reader(img)
        times.append(1000 * (time.perf_counter() - t))
        scores.append(score_photo(truth, readings))
    return scores, times


def speed(nets=None) -> float:
    """Median ms of read_d6 on a drawn 640x640 tray holding 25 dice."""
    from vision.pips.draw import draw_die, tray
    rng = np.random.default_rng(3)
    img = tray(640, 640, seed=3)
    for i in range(25):
        img = draw_die(img, 80 + 120 * (i % 5), 80 + 120 * (i // 5), int(rng.integers(1, 7)), side=40,
                       angle=float(rng.uniform(0, 90)))
    read_d6(img, nets)
    times = []
    for _ in range(20):
        t = time.perf_counter()
        read_d6(img, nets)
        times.append(1000 * (time.perf_counter() - t))
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", default=str(ROOT.parent / "shared" / "dice-photos"),
                    help="the labelled photos (default: ../shared/dice-photos beside the repository)")
    ap.add_argument("--peer", default=None, help="the peer's .tflite (default: ../shared/peers/byler-d6-dice.tflite)")
    ap.add_argument("--reader", default=None,
                    help="another pip reader file to score in the first one's place, the shipped second readers "
                         "still asked about its doubtful dice (default: the shipped one)")
    ap.add_argument("--no-variants", action="store_true", help="skip the changed photos")
    args = ap.parse_args(argv)
    photos = Path(args.photos)
    if not (photos / "test_raw" / "labels.json").is_file():
        print(f"no labelled photos in {str(photos / 'test_raw')!r} (use --photos)")
        return 1
    cv2.setNumThreads(1)
    nets = None
    if args.reader:  # a newly trained reader, scored before it replaces the shipped one
        from vision.pips import networks
        from vision.pips.net import READER_CLASSES, PipNet
        nets = (networks()[0], PipNet.load(args.reader, READER_CLASSES))
    labels = load_labels(photos)
    peer = peer_reader(Path(args.peer) if args.peer else photos.parent / "peers" / "byler-d6-dice.tflite")
    readers = {"pips": our_reader(nets)} | ({"peer": peer} if peer else {})
    if not peer:
        print("peer: not run (needs ../shared/peers/byler-d6-dice.tflite and `pip install ai-edge-litert`)")
    for half, names in halves(labels).items():
        print(f"\n== {half} photos ({len(names)})")
        for who, reader in readers.items():
            scores, times = run(reader, photos, labels, names)
            print(f"{who:5s} {summary(scores)}  ms {statistics.median(times):.1f} (slowest {max(times):.1f})")
    print(f"\nspeed: 640x640 photo with 25 dice, one core: {speed(nets):.1f} ms median of 20 (target <= 30)")
    if args.no_variants:
        return 0
    names = halves(labels)["held-out"]
    print(f"\n== held-out photos changed ({len(names)} each)")
    for what, change in (variants() | cloths(photos)).items():
        for who, reader in readers.items():
            scores, _ = run(reader, photos, labels, names, change)
            print(f"{what:13s} {who:5s} {summary(scores)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
