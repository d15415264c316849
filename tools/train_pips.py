"""Train the pip reader's two networks and write them as ONNX (vision/models/pips.onnx, pips_read.onnx).

    python -m tools.train_pips data   --photos ../shared/dice-photos   # rendered trays, cached
    python -m tools.train_pips finder --photos ../shared/dice-photos --minutes 20
    python -m tools.train_pips reader --photos ../shared/dice-photos --minutes 15

Learns from the TUNING half of the labelled photos only (even places of the sorted names, as
bench/pips.py splits them; the held-out half is never seen) and from rendered trays
(tools/pip_scenes.py), each heavily changed as other cameras and rooms change a photo: scaled,
turned, mirrored, lit brighter or darker, a lamp's colour, hues of the dice shifted, blurred, noisy,
saved as a poor JPEG, partly covered. Needs PyTorch and onnx (the `train` extra); seeded.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from tools.pip_scenes import NONE_HERE, UNKNOWN, scene
from tools.real_cloth import empty_sheet, on_cloth
from vision.pips.net import CROP, FINDER_ONNX, LOG_SIZE, READER_ONNX, crop

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path("/tmp/pips-train")
STRIDE = 4
WINDOW = 160  # the finder learns on windows of this side
FINDER_SIDE = 320  # the photo's long side as the finder reads it
READ_SIDE = 32  # a die's crop as the reader reads it (--side)
READ_CROP = CROP  # a die's crop is this many times its box (--crop; written into the reader's file)
NONE_CLASS, UNKNOWN_CLASS = 7, 6
NO_DIE = NONE_HERE  # a place with no die that looks like one: a pen's end drawn, a false find of the last finder
REAL_CROPS = 12000  # crops cut from changed tuning photos before the reader learns
# Of the tuning photos the reader learns from, this share has its sheet replaced by another cloth (real_cloth.py).
# The finder learns from the sheet only: a run with cloths found no fewer wrong dice on them, and fewer right
CLOTH = 0.4
# Of the photos, this share has its brightness contrast pressed and its colours kept (--pressed): the runs
# that made the third reader file (pips_read_3.onnx), whose doubts differ from the first reader's
PRESSED = 0.0


def tuning(photos: Path) -> list[tuple[np.ndarray, list]]:
    """The tuning half: (photo, [(x, y, box, value or None)]) for even places of the sorted names."""
    labels = json.loads((photos / "test_raw" / "labels.json").read_text())
    sys.path.insert(0, str(ROOT / "bench"))
    from dice_photos import UNLABELLED
    for name, folders, (x, y), box, _ in UNLABELLED:
        if "test_raw" in folders and name in labels:
            labels[name]["dice"].append({"value": None, "x": x, "y": y, "box": list(box)})
    out = []
    for name in sorted(labels)[0::2]:
        img = cv2.imread(str(photos / "test_raw" / name), cv2.IMREAD_COLOR)
        dice = [(d["x"], d["y"], max(d["box"][2] - d["box"][0], d["box"][3] - d["box"][1]), d["value"])
                for d in labels[name]["dice"]]
        out.append((img, dice))
    return out


def hard_negatives(real) -> list:
    """real with each photo's false finds of the shipped finder added as NO_DIE places: what looked like
    a die to it (the holes in the tray's bar, its ends, shadows) is what the reader must learn is none."""
    from vision.pips import networks
    from vision.pips.finding import apart
    from vision.pips.net import finder_input, peaks
    finder, _ = networks()
    out, count = [], 0
    for img, dice in real:
        extra = []
        for f in (0.6, 1.0, 1.5):
            small = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
            blob, g = finder_input(small, finder.side)
            for x, y, box, _ in apart(peaks(finder.forward(blob), finder.stride, g, 0.15)):
                x, y, box = x / f, y / f, box / f
                if all(math.hypot(x - d[0], y - d[1]) > 0.6 * d[2] for d in dice + extra):
                    extra.append((x, y, box, NO_DIE))
        count += len(extra)
        out.append((img, dice + extra))
    print(f"{count} false finds of the shipped finder taught as no die", flush=True)
    return out


# ---------------------------------------------------------------- changes to a photo
def photometric(img: np.ndarray, rng) -> np.ndarray:
    """Light, lamp colour, hue, blur, noise and JPEG as other cameras and rooms give them."""
    if rng.random() < 0.5:  # the dice' colours shifted round the hue circle
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = (hsv[..., 0].astype(np.int16) + int(rng.integers(0, 180))) % 180
        if rng.random() < 0.5:
            hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.5, 1.5), 0, 255)
        img = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    if PRESSED and rng.random() < PRESSED:  # brightness contrast pressed, colours kept: pips told by hue
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
        mean = lab[..., 0].mean()
        lab[..., 0] = mean + (lab[..., 0] - mean) * rng.uniform(0.25, 0.7)
        lab[..., 1:] = 128 + (lab[..., 1:] - 128) * rng.uniform(1.0, 1.6)
        img = cv2.cvtColor(np.clip(lab, 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR)
    x = img.astype(np.float32) / 255
    x = x ** rng.uniform(0.6, 1.6)
    x = (x - 0.5) * rng.uniform(0.6, 1.4) + 0.5 + rng.uniform(-0.25, 0.25)
    x = x * rng.uniform(0.75, 1.25, 3)  # white balance
    x = x * 255
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.6))
    if rng.random() < 0.5:
        x = x + rng.normal(0, rng.uniform(1, 12), x.shape)
    img = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(20, 96))])[1], 1)
    return img


def warp(img, dice, rng, f, size, centre):
    """img turned any way, mirrored or not, scaled by f, cut to size (w, h) round centre; dice moved along."""
    a = rng.uniform(0, 360)
    m = cv2.getRotationMatrix2D(centre, a, f)
    m[:, 2] += np.array(size) / 2 - np.array(centre)
    if rng.random() < 0.5:
        m = np.array([[-1, 0, size[0]], [0, 1, 0]]) @ np.vstack([m, [0, 0, 1]])
    out = cv2.warpAffine(img, m, size, flags=cv2.INTER_AREA if f < 0.7 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
    moved = [(*(m @ np.array([x, y, 1.0])), box * f, v) for x, y, box, v in dice]
    return out, moved


def cutout(img, rng, dice):
    """A few blocks of any colour over the photo (a hand, a card); a die mostly under one is unknown."""
    dice = [list(d) for d in dice]
    for _ in range(int(rng.integers(0, 3))):
        h, w = img.shape[:2]
        bw, bh = int(rng.integers(4, w // 3)), int(rng.integers(4, h // 3))
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        cv2.rectangle(img, (x, y), (x + bw, y + bh), tuple(int(v) for v in rng.integers(0, 256, 3)), -1)
        for d in dice:
            half = d[2] / 2
            ix = max(0, min(x + bw, d[0] + half) - max(x, d[0] - half))
            iy = max(0, min(y + bh, d[1] + half) - max(y, d[1] - half))
            if ix * iy > 0.3 * d[2] ** 2 and d[3] not in (None, NO_DIE):
                d[3] = UNKNOWN
    return img, dice


# ---------------------------------------------------------------- rendered data, cached
def make_data(seed: int, finder_scenes: int, crop_scenes: int) -> None:
    CACHE.mkdir(exist_ok=True)
    rng = np.random.default_rng(seed)
    imgs, dice = [], []
    for _ in range(finder_scenes):
        img, d = scene(rng, 256, 256)
        imgs.append(img)
        dice.append(json.dumps(d))
    if imgs:
        np.savez_compressed(CACHE / "finder.npz", imgs=np.array(imgs), dice=np.array(dice))
    crops, ys = [], []
    for _ in range(crop_scenes):
        img, d = scene(rng, 160, 160, count=int(rng.integers(2, 12)), sizes=(14.0, 56.0))
        c, y = crops_of(img, d, rng, negatives=2)
        crops += c
        ys += y
    np.savez_compressed(CACHE / f"reader{_side_tag()}.npz", crops=np.array(crops), ys=np.array(ys))
    print(f"rendered {finder_scenes} trays and {len(ys)} crops into {CACHE}")


def crops_of(img, dice, rng, negatives: int):
    """The reader's crops of every die in img (jittered as the finder places them) and of places with none."""
    crops, ys = [], []
    for x, y, box, v in dice:
        if v is None:
            continue
        j = box * 0.1
        crops.append(crop(img, x + rng.normal(0, j), y + rng.normal(0, j), box * rng.uniform(0.85, 1.2),
                          READ_SIDE, READ_CROP))
        ys.append(NONE_CLASS if v == NO_DIE else UNKNOWN_CLASS if v == UNKNOWN else v - 1)
    dice = [d for d in dice if d[3] != NO_DIE]
    h, w = img.shape[:2]
    typical = float(np.median([d[2] for d in dice])) if dice else float(rng.uniform(15, 50))
    for _ in range(negatives * 20):
        if len(ys) - len([d for d in dice if d[3] is not None]) >= negatives:
            break
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        if all(math.hypot(x - d[0], y - d[1]) > 0.75 * max(d[2], typical) for d in dice):
            crops.append(crop(img, x, y, typical * rng.uniform(0.8, 1.2), READ_SIDE, READ_CROP))
            ys.append(NONE_CLASS)
    return crops, ys


# ---------------------------------------------------------------- the finder
def heat_targets(dice, shape):
    """CenterNet targets on the stride grid: heat (gaussian per die), and at each centre's cell the
    offset inside the cell and the box's log size."""
    gh, gw = shape[0] // STRIDE, shape[1] // STRIDE
    heat = np.zeros((gh, gw), np.float32)
    reg = np.zeros((3, gh, gw), np.float32)
    mask = np.zeros((gh, gw), np.float32)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32) + 0.5
    for x, y, box, v in dice:
        cx, cy = x / STRIDE, y / STRIDE
        if v == NO_DIE:
            continue
        if not (0 <= cx < gw and 0 <= cy < gh):
            continue
        s = max(0.6, box / STRIDE / 6)
        heat = np.maximum(heat, np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s)))
        ix, iy = int(cx), int(cy)
        heat[iy, ix] = 1.0
        reg[:, iy, ix] = (cx - ix, cy - iy, min(math.log(max(box / STRIDE, 1.0)) / LOG_SIZE, 1.0))
        mask[iy, ix] = 1.0
    return heat, reg, mask


def finder_sample(rng, real, pool):
    if rng.random() < 0.5:
        img, dice = real[int(rng.integers(0, len(real)))]
        f = 0.5 * math.exp(rng.uniform(math.log(0.45), math.log(1.8)))
        if dice and rng.random() < 0.5:
            d = dice[int(rng.integers(0, len(dice)))]
            centre = (d[0] + rng.normal(0, 60), d[1] + rng.normal(0, 60))
        else:
            centre = (rng.uniform(0, img.shape[1]), rng.uniform(0, img.shape[0]))
        img, dice = warp(img, dice, rng, f, (WINDOW, WINDOW), centre)
    else:
        i = int(rng.integers(0, len(pool[0])))
        img, dice = pool[0][i], json.loads(pool[1][i])
        f = math.exp(rng.uniform(math.log(0.6), math.log(1.5)))
        img, dice = warp(img, dice, rng, f, (WINDOW, WINDOW), (128 + rng.normal(0, 20), 128 + rng.normal(0, 20)))
    img, dice = cutout(photometric(img, rng), rng, dice) if rng.random() < 0.3 else (photometric(img, rng), dice)
    return img, heat_targets(dice, img.shape)


def _side_tag() -> str:
    """The caches' and weights' tag of a reader of another crop side or factor than the first one."""
    return ("" if READ_SIDE == 32 else f"_{READ_SIDE}") + ("" if READ_CROP == CROP else f"_x{READ_CROP:g}")


def _resumed(torch, net, name: str, resume: bool, lr: float) -> float:
    """Go on from the last run's weights (CACHE/name) at a third of the rate, or start afresh."""
    if not resume:
        return lr
    saved, own = torch.load(CACHE / name), net.state_dict()
    fits = {k: v for k, v in saved.items() if k in own and own[k].shape == v.shape}
    net.load_state_dict(fits, strict=False)  # a reader of another crop side learns its dense layer afresh
    print(f"going on from {CACHE / name}" + (f", afresh: {', '.join(sorted(set(own) - set(fits)))}"
                                             if len(fits) < len(own) else ""), flush=True)
    return lr / 3


def train_finder(photos: Path, minutes: float, seed: int, out: Path, resume: bool = False) -> None:
    import torch
    from tools.pip_nets import Finder, finder_onnx, focal
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # two threads wait on each other on a busy machine: 5x slower
    rng = np.random.default_rng(seed)
    real = tuning(photos)
    data = np.load(CACHE / "finder.npz")
    pool = (data["imgs"], data["dice"])
    net, lr = Finder(), 2e-3
    if resume and not (CACHE / "finder.pt").is_file():  # no weights kept here: go on from the shipped file
        import onnx
        from tools.pip_nets import finder_from_onnx
        batch = np.stack([finder_sample(rng, real, pool)[0] for _ in range(64)])
        net, lr = finder_from_onnx(onnx.load(str(FINDER_ONNX)), batch), lr / 3
        print(f"going on from {FINDER_ONNX}", flush=True)
    else:
        lr = _resumed(torch, net, "finder.pt", resume, lr)
    opt = torch.optim.AdamW(net.parameters(), lr, weight_decay=1e-4)
    start, step, batch = time.time(), 0, 16
    budget = minutes * 60
    while time.time() - start < budget:
        frac = (time.time() - start) / budget
        for g in opt.param_groups:
            g["lr"] = lr * 0.5 * (1 + math.cos(math.pi * frac)) + 5e-5
        got = [finder_sample(rng, real, pool) for _ in range(batch)]
        x = torch.tensor(np.stack([g[0] for g in got]).transpose(0, 3, 1, 2), dtype=torch.float32)
        heat = torch.tensor(np.stack([g[1][0] for g in got]))
        reg = torch.tensor(np.stack([g[1][1] for g in got]))
        mask = torch.tensor(np.stack([g[1][2] for g in got]))
        z = net(x, logits=True)
        loss_h = focal(z[:, 0], heat)
        pos = mask.sum().clamp(min=1)
        p = torch.sigmoid(z[:, 1:])
        loss_r = ((p[:, :2] - reg[:, :2]).abs().sum(1) * mask).sum() / pos
        loss_s = ((p[:, 2] - reg[:, 2]).abs() * mask).sum() / pos * 10
        loss = loss_h + loss_r + loss_s
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 50 == 0:
            print(f"finder step {step} {time.time() - start:.0f}s heat {loss_h.item():.3f} "
                  f"offset {loss_r.item():.3f} size {loss_s.item():.3f}", flush=True)
    net.eval()
    torch.save(net.state_dict(), CACHE / "finder.pt")
    out.write_bytes(finder_onnx(net, FINDER_SIDE, STRIDE).SerializeToString())
    print(f"finder: {step} steps, written {out}")


# ---------------------------------------------------------------- the reader
def reader_real(rng, real, n: int, empty=None):
    """n crops from the tuning photos, each photo changed as a whole first (cloth, scale, turn, light)."""
    crops, ys = [], []
    while len(ys) < n:
        img, dice = real[int(rng.integers(0, len(real)))]
        if rng.random() < CLOTH:
            img, dice = on_cloth(img, dice, empty, rng)
        f = math.exp(rng.uniform(math.log(0.45), math.log(2.0)))
        h, w = img.shape[:2]
        size = (int(w * min(f, 1.0)), int(h * min(f, 1.0)))
        img, dice = warp(img, dice, rng, f, size, (w / 2, h / 2))
        img = photometric(img, rng)
        if rng.random() < 0.3:
            img, dice = cutout(img, rng, dice)
        c, y = crops_of(img, dice, rng, negatives=4)
        crops += c
        ys += y
    return crops, ys


def train_reader(photos: Path, minutes: float, seed: int, out: Path, resume: bool = False,
                 real_share: float = 0.5) -> None:
    import torch
    import onnx
    from tools.pip_nets import Reader, reader_from_onnx, reader_onnx
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # two threads wait on each other on a busy machine: 5x slower
    rng = np.random.default_rng(seed)
    real = tuning(photos)
    data = np.load(CACHE / f"reader{_side_tag()}.npz")
    synth, sy = data["crops"], data["ys"]
    start, step = time.time(), 0
    budget = minutes * 60
    real = hard_negatives(real)
    kept = CACHE / f"real_crops_{seed}_hard_cloth{'_pressed' if PRESSED else ''}{_side_tag()}.npz"
    if kept.is_file():  # the same seed cuts the same crops: cut them once
        got = np.load(kept)
        bank, bank_y = got["crops"], got["ys"]
    else:
        bank, bank_y = reader_real(rng, real, REAL_CROPS, empty_sheet(photos))
        bank, bank_y = np.stack(bank), np.array(bank_y)
        np.savez_compressed(kept, crops=bank, ys=bank_y)
    print(f"reader: {len(bank_y)} crops of the tuning photos in {time.time() - start:.0f}s", flush=True)
    net, lr = Reader(side=READ_SIDE), 2e-3
    if resume and not (CACHE / f"reader{_side_tag()}.pt").is_file():
        # this machine kept no weights of a run: go on from the shipped file, its batch norms set on a
        # batch mixed as training mixes them
        mixed = np.concatenate([bank[rng.integers(0, len(bank), 1024)], synth[rng.integers(0, len(sy), 1024)]])
        net, lr = reader_from_onnx(onnx.load(str(READER_ONNX)), mixed), lr / 3
        print(f"going on from {READER_ONNX}", flush=True)
    else:
        lr = _resumed(torch, net, f"reader{_side_tag()}.pt", resume, lr)
    opt = torch.optim.AdamW(net.parameters(), lr, weight_decay=5e-4)
    start = time.time()
    while time.time() - start < budget:
        frac = (time.time() - start) / budget
        for g in opt.param_groups:
            g["lr"] = lr * 0.5 * (1 + math.cos(math.pi * frac)) + 2e-5
        ri = rng.integers(0, len(bank), round(192 * real_share))
        si = rng.integers(0, len(sy), 192 - len(ri))
        x = np.concatenate([bank[ri], synth[si]])
        y = np.concatenate([bank_y[ri], sy[si]])
        k = int(rng.integers(0, 4))
        x = np.rot90(x, k, (1, 2))
        if rng.random() < 0.5:
            x = x[:, :, ::-1]
        xt = torch.tensor(np.ascontiguousarray(x.transpose(0, 3, 1, 2)), dtype=torch.float32)
        loss = torch.nn.functional.cross_entropy(net(xt, logits=True), torch.tensor(y, dtype=torch.long),
                                                 label_smoothing=0.02)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 100 == 0:
            print(f"reader step {step} {time.time() - start:.0f}s loss {loss.item():.3f}", flush=True)
    net.eval()
    torch.save(net.state_dict(), CACHE / f"reader{_side_tag()}.pt")
    out.write_bytes(reader_onnx(net, READ_SIDE, READ_CROP).SerializeToString())
    print(f"reader: {step} steps, written {out}")


def main(argv=None) -> int:
    global READ_SIDE, READ_CROP, PRESSED
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("data", "finder", "reader"))
    ap.add_argument("--photos", default=str(ROOT.parent / "shared" / "dice-photos"))
    ap.add_argument("--minutes", type=float, default=15)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scenes", type=int, default=2000, help="rendered trays for the finder (data)")
    ap.add_argument("--crop-scenes", type=int, default=3000, help="rendered trays cut into crops (data)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--resume", action="store_true", help="go on from the last run's weights (finder, reader)")
    ap.add_argument("--real-share", type=float, default=0.5, help="share of each batch cut from real photos (reader)")
    ap.add_argument("--crop", type=float, default=CROP, help="the reader's crop as a multiple of a die's box (data, reader)")
    ap.add_argument("--side", type=int, default=READ_SIDE, help="the reader's crop side (data, reader)")
    ap.add_argument("--pressed", type=float, default=PRESSED,
                    help="share of photos with brightness contrast pressed, colours kept (finder, reader)")
    args = ap.parse_args(argv)
    READ_SIDE, READ_CROP, PRESSED = args.side, args.crop, args.pressed
    cv2.setRNGSeed(args.seed)
    photos = Path(args.photos)
    models = ROOT / "vision" / "models"
    if args.what == "data":
        make_data(args.seed, args.scenes if _side_tag() == "" else 0, args.crop_scenes)
    elif args.what == "finder":
        train_finder(photos, args.minutes, args.seed, Path(args.out or models / "pips.onnx"), args.resume)
    else:
        train_reader(photos, args.minutes, args.seed, Path(args.out or models / "pips_read.onnx"), args.resume,
                     args.real_share)
    return 0


if __name__ == "__main__":
    sys.exit(main())
