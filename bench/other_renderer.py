"""The ZomBee reader on trays drawn by a second renderer it was never tuned on.

    python bench/other_renderer.py [--scope documented|any] [--tables 8] [--rolls 25] [--seed 1]
                                   [--bodies mixed|dark|light] [--save DIR]

bench/second_renderer.py draws dice trays its own way (3D cubes with rounded edges under a tilted
pinhole camera, a directional lamp with shaded sides and soft cast shadows, glare, felt/wood/
cardboard trays, blur, sensor noise, JPEG). It was written independently of vision/demo and tools/
(neither was read), so nothing in the reader was chosen looking at its pictures: this measures
whether the reader generalises to pictures it has not seen the like of.

Per table (its camera, lamp, tray, die colour and symbol style fixed): calibration photos are drawn
(empty/ and six photos a face of 1-4 dice showing that face), vision.teach.calibrate learns them
(a table it refuses is counted and named), then --rolls rolls of 1-5 dice (a fifth of them with two
dice touching) are read untold (reader.read(image)) and told (expected=the number thrown). A reading
is matched to a thrown die when its centre lies within 0.6 of the die's side (greedy, nearest first,
one to one). Printed per table and in total:
  per die      thrown dice read as their face (missed or "unknown" is not right)
  rolls        rolls with every die right and no die more
  wrong count  rolls where the number of dice read differs from the number thrown
  sure wrong   dice read at confidence >= 0.9 that are not the face of the die they match (or match
               none), of all dice read at >= 0.9
  ms           per read, median
and the misses by true face -> read face ("-" = not found), and per die for dark-bodied dice (black,
navy, purple) and light ones apart: the reader's detector looks for dice darker than their tray
(vision/find/detect.py), so light dice, and dark dice on a dark tray, are beyond what it sets out to do.
--bodies dark draws only dark dice (the trays are still any colour). Each table's line also shows what
calibration's own quality report said of it (ok or not, and its left-out accuracy).

--scope documented (the default) draws only tables as docs/dice-reader.md asks for them: dark dice on
a light, matte tray (white card, pale felt, paper), 25 to 50 pixels across, under a camera within 8
degrees of straight down;
--scope any draws any tray (felt of every colour, wood, cardboard) under a camera tilted up to 25
degrees, with dice of any body colour unless --bodies says otherwise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/ (whose vision.py would hide the package)
from vision.reader import DiceReader  # noqa: E402
from vision.teach.calibrate import calibrate  # noqa: E402

import second_renderer as sr  # noqa: E402  (bench/, beside this script: on the path as the script's folder)

REACH = 0.6  # of a die's side: how near a reading must be to a thrown die to be its reading
SURE = 0.9


def match(truth: list, read: list, side: float) -> dict:
    """{read index: truth index}, nearest pairs first, each within REACH * side."""
    pairs = sorted((np.hypot(r.x - t[0], r.y - t[1]), i, j) for i, r in enumerate(read) for j, t in enumerate(truth))
    out, used = {}, set()
    for d, i, j in pairs:
        if d <= REACH * side and i not in out and j not in used:
            out[i] = j
            used.add(j)
    return out


class Tally:
    def __init__(self):
        self.right = self.dice = self.rolls = self.whole = self.miscount = self.sure = self.sure_wrong = 0
        self.ms: list[float] = []
        self.misses: Counter = Counter()

    def add(self, truth: list, reading, side: float, ms: float) -> list[str]:
        """Scores one read; returns the faces read for each thrown die ("-" when none matched)."""
        read = reading.dice
        m = match(truth, read, side)
        got = ["-"] * len(truth)
        for i, j in m.items():
            got[j] = read[i].face
        right = sum(g == t[2] for g, t in zip(got, truth))
        self.right, self.dice, self.rolls = self.right + right, self.dice + len(truth), self.rolls + 1
        self.whole += right == len(truth) and len(read) == len(truth)
        self.miscount += len(read) != len(truth)
        for i, r in enumerate(read):
            if r.confidence >= SURE and r.face != "unknown":  # a face read surely (a sure unknown is no claim)
                self.sure += 1
                self.sure_wrong += i not in m or r.face != truth[m[i]][2]
        for g, t in zip(got, truth):
            if g != t[2]:
                self.misses[(t[2], g)] += 1
        self.ms.append(ms)
        return got

    def pct(self) -> float:
        return 100 * self.right / max(self.dice, 1)

    def lines(self, name: str) -> list[str]:
        return [f"{name}: per die {self.pct():.1f} % ({self.right}/{self.dice}), "
                f"rolls wholly right {100 * self.whole / max(self.rolls, 1):.1f} % ({self.whole}/{self.rolls}), "
                f"wrong count {100 * self.miscount / max(self.rolls, 1):.1f} % ({self.miscount}), "
                f"sure wrong {self.sure_wrong}/{self.sure}, "
                f"median {statistics.median(self.ms) if self.ms else 0:.1f} ms/read",
                "  misses (true -> read: n): "
                + (", ".join(f"{a}->{b}: {n}" for (a, b), n in self.misses.most_common()) or "none")]


def _roll(rng, table):
    n = int(rng.integers(1, 6))
    return sr.render(rng, table, [str(f) for f in rng.choice(sr.FACES, size=n)])


def nights(args, bodies, surfaces, most_tilt, sizes) -> int:
    """A game night a table, as the issue replays one: --rolls rolls read in order, told how many were
    thrown (the game knows); a roll with a die read wrong is corrected (its photo and every die's face
    into the calibration folder's rolls/, as the phone's correction keeps it) and learned at once, up to
    --night corrections. As the companion does, a relearned model is switched in only when it reads
    the corrected rolls at least as well as the one in use. Scored: the rolls after the first
    correction, and those after the last (the --night-th), by the model then in use and by the first."""
    print(f"game nights: {args.rolls} rolls a table, wrong rolls corrected and learned (at most {args.night})")
    print("table  die          surface     side px  corrected  learn s  after the first: in use  first model")
    totals, learn_s = [Tally() for _ in range(4)], []
    for k in range(args.tables):
        rng = np.random.default_rng([args.seed, k])
        table = sr.random_table(rng, bodies, surfaces, most_tilt, sizes)
        head = f"{k:5d}  {table.body:11s}  {table.surface:10s}  {table.die_px:7.0f}"
        with tempfile.TemporaryDirectory() as tmp:
            sr.write_calibration(tmp, rng, table)
            try:
                first = calibrate(tmp)
            except Exception as e:  # noqa: BLE001  (a refusal is a result: name it and go on)
                print(f"{head}  refused: {type(e).__name__}: {e}")
                continue
            rolls = Path(tmp) / "rolls"
            rolls.mkdir()
            model, labels, kept, took = first, {}, [], []
            mine, theirs, late, late_first = Tally(), Tally(), Tally(), Tally()
            for r in range(args.rolls):
                scene = _roll(rng, table)
                n = len(scene.dice)
                reading = DiceReader(model).read(scene.image, expected=n)
                if labels:  # after the first correction: the model in use against the first
                    for tally in (mine, late) if len(labels) >= args.night else (mine,):
                        tally.add(scene.dice, reading, table.die_px, 0)
                    for tally in (theirs, late_first) if len(labels) >= args.night else (theirs,):
                        tally.add(scene.dice, DiceReader(first).read(scene.image, expected=n), table.die_px, 0)
                if len(labels) >= args.night:
                    continue
                probe = Tally()
                probe.add(scene.dice, reading, table.die_px, 0)
                if probe.whole:
                    continue
                name = f"roll{r:03d}.png"
                cv2.imwrite(str(rolls / name), scene.image)
                labels[name] = [{"x": round(x, 1), "y": round(y, 1), "face": f} for x, y, f in scene.dice]
                (rolls / "labels.json").write_text(json.dumps(labels))
                kept.append(scene)
                t0 = time.perf_counter()
                candidate = calibrate(tmp)
                took.append(time.perf_counter() - t0)
                now, new = (sum(_right(m, s, table) for s in kept) for m in (model, candidate))
                if new >= now:
                    model = candidate
        learn_s += took
        for total, tally in zip(totals, (mine, theirs, late, late_first)):
            total.right, total.dice = total.right + tally.right, total.dice + tally.dice
        print(f"{head}  {len(labels):9d}  {np.median(took) if took else 0:7.1f}  "
              f"{mine.right:4d}/{mine.dice:<4d} {mine.pct():5.1f} %  {theirs.right:4d}/{theirs.dice:<4d} {theirs.pct():5.1f} %",
              flush=True)
    for what, (learned, plain) in (("after the first correction", totals[:2]),
                                   (f"after the {args.night}th correction", totals[2:])):
        print(f"rolls {what}, per die: model in use {learned.pct():.1f} % ({learned.right}/{learned.dice}), "
              f"first model {plain.pct():.1f} % ({plain.right}/{plain.dice})")
    print(f"learning took a median {np.median(learn_s) if learn_s else 0:.1f} s (target <= 20 s)")
    return 0


def _right(model, scene, table) -> int:
    t = Tally()
    t.add(scene.dice, DiceReader(model).read(scene.image, expected=len(scene.dice)), table.die_px, 0)
    return t.right


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--rolls", type=int, default=25)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bodies", choices=("mixed", "dark", "light"), default="mixed",
                    help="die colours: mixed (mostly light, a quarter dark), or only dark or only light ones")
    ap.add_argument("--scope", choices=("documented", "any"), default="documented",
                    help="documented: dark dice, light tray, camera nearly straight down (docs/dice-reader.md); "
                         "any: every tray, die colour and tilt the renderer draws")
    ap.add_argument("--save", type=Path, help="write the first table's calibration and 10 rolls a table here")
    ap.add_argument("--night", type=int, metavar="K", default=0,
                    help="play a game night a table instead: the wrong rolls corrected and learned, up to K of them")
    args = ap.parse_args(argv)
    documented = args.scope == "documented"
    cv2.setNumThreads(1)
    totals = {"untold": Tally(), "told": Tally()}
    kinds = {kind: {"untold": Tally(), "told": Tally()} for kind in ("dark", "light")}  # by die body
    bodies = {"mixed": sr.DARK_BODIES if documented else None, "dark": sr.DARK_BODIES,
              "light": tuple(b for b in sr.BODIES if b not in sr.DARK_BODIES)}[args.bodies]
    surfaces, most_tilt, sizes = (sr.LIGHT_SURFACES, 8.0, (25.0, 50.0)) if documented else (None, 25.0, (40.0, 80.0))
    print(f"scope: {args.scope} ({'dark dice 25-50 px across on a light tray, camera within 8 degrees of straight down' if documented else 'any tray, die colour and tilt up to 25 degrees'})")
    if args.night:
        return nights(args, bodies, surfaces, most_tilt, sizes)
    refused, cal_s = [], []
    print("table  die          surface     tilt  side px  calib s  calib says (left-out)  untold %  told %")
    for k in range(args.tables):
        rng = np.random.default_rng([args.seed, k])
        table = sr.random_table(rng, bodies, surfaces, most_tilt, sizes)
        kind = kinds["dark" if table.body in sr.DARK_BODIES else "light"]
        head = f"{k:5d}  {table.body:11s}  {table.surface:10s}  {table.tilt:4.0f}  {table.die_px:7.0f}"
        with tempfile.TemporaryDirectory() as tmp:
            sr.write_calibration(tmp, rng, table)
            if args.save and k == 0:
                import shutil
                shutil.copytree(tmp, args.save / "calibration_table0", dirs_exist_ok=True)
            t0 = time.perf_counter()
            try:
                model = calibrate(tmp)
            except Exception as e:  # noqa: BLE001  (a refusal is a result: name it and go on)
                refused.append(k)
                print(f"{head}  refused after {time.perf_counter() - t0:.1f} s: {type(e).__name__}: {e}")
                continue
            cal = time.perf_counter() - t0
            cal_s.append(cal)
        reader = DiceReader(model)
        mine = {"untold": Tally(), "told": Tally()}
        for r in range(args.rolls):
            n = int(rng.integers(1, 6))
            faces = [str(f) for f in rng.choice(sr.FACES, size=n)]
            scene = sr.render(rng, table, faces)
            truth = scene.dice
            side = table.die_px  # the top's side in the middle of the picture (a far die looks a bit smaller)
            got = {}
            for how, expected in (("untold", None), ("told", len(truth))):
                t0 = time.perf_counter()
                reading = reader.read(scene.image, expected=expected)
                ms = 1000 * (time.perf_counter() - t0)
                for tally in (mine[how], totals[how], kind[how]):
                    got[how] = tally.add(truth, reading, side, ms)
                got[how + "_n"] = len(reading.dice)
            if args.save and r < 10:
                args.save.mkdir(parents=True, exist_ok=True)
                ok = all(g == t[2] for g, t in zip(got["untold"], truth)) and got["untold_n"] == len(truth)
                read = "-".join(g if g != "-" else "none" for g in got["untold"])
                more = "" if got["untold_n"] == len(truth) else f"_n{got['untold_n']}"  # how many were read
                name = f"t{k}_r{r:02d}_{'ok' if ok else 'MISS'}_true-{'-'.join(faces)}_read-{read}{more}.png"
                cv2.imwrite(str(args.save / name), scene.image)
        says = f"{'ok' if model.report.get('ok') else 'not ok'} ({100 * model.report.get('accuracy', 0):.0f} %)"
        print(f"{head}  {cal:7.1f}  {says:>21s}  {mine['untold'].pct():8.1f}  {mine['told'].pct():6.1f}")
    print()
    print(f"tables {args.tables}, refused {len(refused)}{' ' + str(refused) if refused else ''}; "
          f"calibration median {statistics.median(cal_s) if cal_s else 0:.1f} s")
    for how in ("untold", "told"):
        for line in totals[how].lines(how):
            print(line)
    for name, kind in kinds.items():
        if kind["untold"].rolls:
            print(f"{name}-bodied dice ({kind['untold'].dice}): per die untold {kind['untold'].pct():.1f} %, "
                  f"told {kind['told'].pct():.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
