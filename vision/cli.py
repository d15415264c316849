"""`companion vision calibrate|read|watch`: registered through the companion.cli entry point."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np

from companion.config import MAX_STILL_MS
from companion.errors import CameraError, CompanionError, ImageError
from companion.zombee_dice import DICE

from .name.modelfile import load_model, save_model


def register(subparsers) -> argparse.ArgumentParser:
    vision = subparsers.add_parser("vision", help="read dice from photos or a camera, calibrate the reader")
    sub = vision.add_subparsers(dest="vision_command", metavar="{calibrate,read,watch}")
    vision.set_defaults(func=lambda args: _usage(vision))

    cal = sub.add_parser("calibrate", help="learn this table's dice from photos (DIR/empty, DIR/bee, ...)")
    cal.add_argument("dir", help="folder with empty/, bee/, honey/, zzz/, zombee/ photos, and optionally rolls/: "
                                 "photos of whole rolls with rolls/labels.json naming their dice "
                                 "({\"photo.jpg\": [{\"x\": .., \"y\": .., \"face\": ..}]})")
    cal.add_argument("--out", required=True, help="model file to write (.npz)")
    cal.add_argument("--compare", choices=("auto", "views", "map"), default="auto",
                     help="how dice are compared: edge views, symbol maps, or whichever reads the photos best")
    cal.add_argument("--force", action="store_true",
                     help="replace --out even when the model already there reads these photos better, "
                          "or when it is not a model")
    cal.set_defaults(func=cmd_calibrate)

    rd = sub.add_parser("read", help="read the dice in one or more photos")
    rd.add_argument("images", nargs="+", metavar="IMAGE")
    rd.add_argument("--model", help="calibrated model file (default: the shipped model)")
    rd.add_argument("--json", action="store_true", help="print one JSON array")
    rd.add_argument("--annotate", metavar="DIR", help="write each photo with boxes and labels into DIR")
    rd.add_argument("--thrown", type=int, metavar="N",
                    help="how many dice were thrown, when known: decides how touching dice are cut apart, and each "
                         "reading gets a 'check' when the photo cannot show that many")
    rd.add_argument("--dice", choices=("zombee", "d6"), default="zombee",
                    help="which dice lie there: ZomBee dice (read by the model) or plain six-sided pip dice (d6, "
                         "read by the shipped pip networks, no calibration needed)")
    rd.set_defaults(func=cmd_read)

    w = sub.add_parser("watch", help="print each settled reading from a camera as a JSON line")
    w.add_argument("--source", default="picamera2", help="picamera2, a webcam index, synthetic, a folder or video")
    w.add_argument("--model", help="calibrated model file (default: the shipped model)")
    w.add_argument("--still-ms", type=int, default=300, help="how long the dice must lie still (ms)")
    w.add_argument("--max-readings", type=int, help="stop after this many readings")
    w.set_defaults(func=cmd_watch)
    return vision


def _usage(parser) -> int:
    parser.print_usage(sys.stderr)
    print("companion vision: choose calibrate, read or watch", file=sys.stderr)
    return 2


def _fail(message: str, status: int) -> int:
    print(f"companion vision: {message}", file=sys.stderr)
    return status


def _reader(path):
    from .reader import DiceReader

    return DiceReader(load_model(path))


def cmd_calibrate(args) -> int:
    from .teach.calibrate import calibrate, score_on
    from .teach.report import report_lines

    folder = Path(args.out).resolve().parent
    if not folder.is_dir():  # said before the calibration's seconds (minutes on a Pi), not after
        return _fail(f"cannot write {args.out!r}: folder {str(folder)!r} does not exist", 1)
    if not args.force and Path(args.out).exists() and not _model_file(Path(args.out)):
        # a mistyped --out replaced a photo or a document with the model
        return _fail(f"cannot write {args.out!r}: a file is there that is not a dice model; choose another --out "
                     f"(a .npz), or use --force to replace it", 1)
    try:
        model = calibrate(args.dir, log=lambda m: print(m, file=sys.stderr),
                          compare=None if args.compare == "auto" else args.compare)
        kept = None if args.force else _better_in_place(args.out, model, args.dir, score_on)
        if kept is None:
            save_model(model, Path(args.out))  # whole: a full card leaves the old model as it was
    except ImageError as exc:
        return _fail(str(exc), 2)
    except CompanionError as exc:
        return _fail(str(exc), 1)
    except OSError as exc:
        return _fail(f"cannot write {args.out!r}: {exc.strerror or exc}", 1)
    if kept is not None:
        for line in report_lines(model.report):
            print(line)
        return _fail(kept, 1)
    print(f"wrote {args.out} (die side {model.side:.1f} px)")
    for line in report_lines(model.report):
        print(line)
    return 0


def _model_file(path: Path) -> bool:
    """Whether path holds a dice model of any version (a NumPy archive with a format_version)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return "format_version" in data.files
    except (OSError, ValueError, EOFError, TypeError, AttributeError):  # a photo, a text, a folder, a .npy
        return False


def _better_in_place(path, model, folder, score_on) -> str | None:
    """Why the model already at path stays (it reads the new calibration photos better than the new
    model reads them left out), or None to go ahead. A missing or unreadable file is simply replaced, and
    so is a model taught from some of the new calibration's photos and rolls: the new one learned more."""
    if not Path(path).exists():
        return None
    try:
        old = load_model(path)
    except CompanionError:
        return None
    taught = {k: set((old.report or {}).get(k, ())) for k in ("photo_ids", "roll_ids")}
    now = {k: set(model.report.get(k, ())) for k in ("photo_ids", "roll_ids")}
    if taught["photo_ids"] and all(taught[k] <= now[k] for k in now) and now != taught:
        # the same table taught more: corrected rolls or the photos a report asked for. Its dice left out
        # now include the hard ones just corrected, so its own cross-validated figure falls; comparing it
        # kept the old model and a game night replayed through rolls/ never learned (docs/dice-reader.md)
        return None
    after = model.report["accuracy"]
    seen = taught["photo_ids"] & now["photo_ids"]
    if seen and old.report:
        # the old model learned from these photos: reading them is no test, compare like with like
        before, how = float(old.report.get("accuracy", 0.0)), "cross-validated on its own photos"
    else:
        before, how = score_on(old, folder), "reading the new photos"
    if before > after + 0.02 or (old.report or {}).get("ok") and not model.report["ok"] and before >= after:
        return (f"kept {path}: it reads {100 * before:.0f}% right ({how}), the new model {100 * after:.0f}% "
                f"(cross-validated); use --force to replace it")
    return None


def _marked_names(images, folder: Path) -> dict:
    """Where --annotate writes each photo's marked copy: its name as a .png in folder, never over a photo
    being read (folder may be the photos' own) nor over another photo's copy (x.jpg and x.png, a/x.jpg
    and b/x.jpg), which get "-marked" and a number instead."""
    photos = {Path(p).resolve() for p in images}
    taken, out = set(), {}
    for path in images:
        stem = Path(path).stem
        for n in range(len(images) + 1):
            name = folder / (stem + ("" if n == 0 else "-marked" if n == 1 else f"-marked-{n}") + ".png")
            if name.resolve() not in photos and name.resolve() not in taken:
                break
        taken.add(name.resolve())
        out[path] = name
    return out


def cmd_read(args) -> int:
    from .camera.view import annotate
    from .images import read_image
    from .moved import moved_words

    if args.dice == "d6":
        return _read_d6(args)
    if args.thrown is not None and not 1 <= args.thrown <= DICE:
        return _fail(f"--thrown {args.thrown}: ZomBee throws 1 to {DICE} dice (all {DICE} on a turn's first roll)", 2)
    try:
        reader = _reader(args.model)
    except CompanionError as exc:
        return _fail(str(exc), 2)
    if args.annotate:
        if Path(args.annotate).exists() and not Path(args.annotate).is_dir():  # it read "File exists"
            return _fail(f"--annotate {args.annotate!r} is a file: give a folder to write the marked photos into", 2)
        try:
            Path(args.annotate).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return _fail(f"cannot create {args.annotate!r}: {exc.strerror or exc}", 2)
    marked = _marked_names(args.images, Path(args.annotate)) if args.annotate else {}
    results, status, moved = [], 0, {}
    for path in args.images:
        try:
            frame = read_image(path)
            reading = reader.read(frame, expected=args.thrown)
        except ImageError as exc:
            results.append({"image": path, "error": str(exc)})
            status = 1
            continue
        results.append({"image": path, **reading.to_dict()})
        # said to a person (the JSON keys stay as they are); told the count, such dice are read at their size
        # and nothing is said (the tray watcher says it at the table); untold, smaller ones are too, and said
        moved[path] = None if reading.moved and args.thrown else moved_words(reading.measured, bool(reading.moved))
        if args.annotate:
            out = marked[path]
            if not cv2.imwrite(str(out), annotate(frame, reading)):
                results[-1]["error"] = f"could not write {str(out)!r}"
                status = 1
    if args.json:
        print(json.dumps(results, indent=None))
    else:
        for r in results:
            if "dice" in r:
                faces = ", ".join(f"{d['face']} ({d['confidence']:.2f})" for d in r["dice"]) or "no dice"
                print(f"{r['image']}: {faces}{'  [hand in the tray]' if r.get('hand') else ''}"
                      f"{'  [check the dice: ' + r['check'] + ']' if r.get('check') else ''}"
                      f"{'  [' + moved[r['image']] + ']' if moved.get(r['image']) else ''}")
            if "error" in r:
                print(f"{r['image']}: error: {r['error']}")
    return status


def _read_d6(args) -> int:
    """`read --dice d6`: each photo's pip dice, their places and values (1-6 or "unknown")."""
    from .images import read_image
    from .pips import read_d6

    for flag in ("model", "annotate", "thrown"):
        if getattr(args, flag) is not None:
            return _fail(f"--{flag} is for ZomBee dice; pip dice (--dice d6) are read without it", 2)
    results, status = [], 0
    for path in args.images:
        try:
            dice = read_d6(read_image(path))
        except ImageError as exc:
            results.append({"image": path, "error": str(exc)})
            status = 1
            continue
        results.append({"image": path, "dice": [{k: d.to_dict()[k] for k in ("x", "y", "value", "confidence")}
                                                for d in dice]})
    if args.json:
        print(json.dumps(results, indent=None))
    for r in results if not args.json else ():
        if "error" in r:
            print(f"{r['image']}: error: {r['error']}")
        else:
            print(f"{r['image']}: " + (", ".join(f"{d['value']} ({d['confidence']:.2f})" for d in r["dice"])
                                       or "no dice"))
    return status


def cmd_watch(args) -> int:
    from .camera.sources import FOLDER_FPS, FolderSource, SyntheticCamera, open_source
    from .settle import Settler

    # Past the settings file's bound no roll is ever read: the synthetic tray re-rolls before, a real
    # one is picked up again; --still-ms 99999999999 waited in silence forever.
    if not 0 <= args.still_ms <= MAX_STILL_MS:
        return _fail(f"--still-ms must be 0-{MAX_STILL_MS} (ms the dice must lie still), got {args.still_ms}", 2)
    if args.max_readings is not None and args.max_readings < 1:
        return _fail(f"--max-readings must be 1 or more, got {args.max_readings}", 2)
    try:
        reader = _reader(args.model)
    except CompanionError as exc:
        return _fail(str(exc), 2)
    settler = Settler(args.still_ms / 1000.0, reader)
    count = frames = 0
    try:
        with open_source(args.source) as source:
            demo = isinstance(source, SyntheticCamera)
            if demo:
                source.roll()
            idle = 0
            for ts, frame in source:
                frames += 1
                try:
                    reading = settler.feed(ts, frame)
                except ImageError as exc:
                    # A replayed photo the reader cannot take (too small): it ended the command with
                    # the reader's words alone, naming neither the photo nor the command.
                    return _fail(f"replay stopped at {_frame_name(source, frames, args.source)}: {exc}", 1)
                if reading is not None:
                    print(json.dumps({"timestamp": round(ts, 3), "dice": [d.to_dict() for d in reading.dice]}),
                          flush=True)
                    count += 1
                    if args.max_readings and count >= args.max_readings:
                        break
                if demo and not source.busy:
                    idle += 1
                    if idle > 30 + args.still_ms * 0.03:  # about a second of rest after a demo roll settles
                        source.roll(count=int(source.rng.integers(1, 6)))
                        idle = 0
    except CameraError as exc:
        return _fail(str(exc), 1)
    except KeyboardInterrupt:
        return 0
    if frames and not count:
        # A folder or a video that ended without a reading printed nothing at all: say why
        why = f"in {frames} frames the dice never lay still for {args.still_ms} ms"
        if isinstance(source, FolderSource):
            still = math.ceil(args.still_ms * FOLDER_FPS / 1000) + 1
            why += (f" (photos are replayed {1000 // FOLDER_FPS} ms apart: a roll is read once {still} photos "
                    f"in a row show the same dice; `companion vision read` reads photos one by one)")
        print(f"companion vision: no reading: {why}", file=sys.stderr)
    return 0


def _frame_name(source, number: int, spec: str) -> str:
    """The photo a folder source replayed as frame `number` (1-based), else the frame's number."""
    files = getattr(source, "files", None)
    if files and 0 < number <= len(files):
        return repr(str(files[number - 1]))
    return f"frame {number} of {spec!r}"
