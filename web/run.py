"""`companion run`: the engine, the dice reader, the button panel and the phone page together.

One Table (the single writer) takes commands from the camera, the panel, the
phones and the CLI. On a Raspberry Pi the camera and the GPIO panel are real;
with --demo, or wherever no Pi is found, a synthetic camera renders a fresh
roll whenever the (virtual) Roll button asks for one, and the panel runs on
gpiozero's mock pins, pressed from the page.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from companion.config import Settings, default_config_path, load_settings, read_config
from companion.errors import CompanionError, ConfigError
from companion.gamelog import GameLog
from companion.table import Table
from companion.zombee_dice import YELLOW, legal_rerolls

DEMO_TABLE = 0  # the seed of the demo's rendered table, light and camera
DEMO_FPS = 10  # rendering a bouncing frame takes ~80 ms here: 10 fps keeps the demo camera in real time


def on_a_pi() -> bool:
    try:
        return "raspberry pi" in Path("/proc/device-tree/model").read_text(errors="replace").lower()
    except OSError:
        return False


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("run", help="the whole table companion: camera, buttons and phone page",
                              description="Start the table companion. Off a Raspberry Pi (or with --demo) the camera "
                                          "and the button panel are simulated; the page and the game log are real.")
    p.add_argument("--demo", action="store_true", help="simulated camera and buttons, even on a Pi")
    p.add_argument("--db", help="game log (SQLite); default from the config, else the user data directory")
    p.add_argument("--config", help="settings file (TOML); default $COMPANION_CONFIG or "
                                    "~/.config/table-companion/companion.toml")
    p.add_argument("--host", help="address to listen on (default 0.0.0.0)")
    p.add_argument("--port", type=int, help="TCP port (default 8000)")
    p.add_argument("--pin", help="override PIN (default $COMPANION_PIN, else from the config, else a random one)")
    p.add_argument("--camera", help="picamera2, a webcam index (0), a folder of images, or synthetic")
    p.add_argument("--model", help="dice model from `companion vision calibrate` (default: the shipped model)")
    p.set_defaults(func=handle)


class DemoRoller:
    """The demo's virtual player: rolls the synthetic camera's dice when Roll is pressed.

    A later roll picks up every die the rules let it (all yellow dice of the last
    roll, and a ZomBee for each Zzz), as a bold player would; Stop ends the rolling.
    """

    def __init__(self, table: Table, camera: Any, tracker: Any):
        self.table, self.camera, self.tracker = table, camera, tracker

    def roll(self) -> None:
        state = self.table.state()
        if state is None or state.get("game") != "zombee" or state.get("phase") != "roll":
            why = "no ZomBee game is under way" if state is None or state.get("game") != "zombee" \
                else f"{state['pending']} must {'flip a flower' if state['phase'] == 'flip' else 'choose'} first"
            self.table.refuse(f"Roll: nobody is rolling now ({why})", "panel", {"button": "Roll"})
            return
        if state["rolls"] == 0:
            self.camera.roll(count=5)
            return
        picks = legal_rerolls(state["kept"], state["last_roll"])
        chosen = [f for f in YELLOW for _ in range(picks[f])] + ["zombee"] * picks["zombee"]
        if not chosen:
            self.table.refuse("Roll: no die may be rolled again; press Stop", "panel", {"button": "Roll"})
            return
        self.tracker.expect_reroll(state, chosen)
        self.camera.roll(count=len(chosen))


def demo_camera() -> Any:
    """The demo's tray: one steady, well-lit rig (the same table every time), fresh rolls each time."""
    import numpy as np

    from vision.render import random_rig
    from vision.synthetic import SyntheticCamera

    return SyntheticCamera(rig=random_rig(np.random.default_rng(DEMO_TABLE)), realtime=True, fps=DEMO_FPS)


def _settings(args: argparse.Namespace) -> tuple[Settings, str | None]:
    path = args.config or default_config_path()
    settings = load_settings(read_config(path), str(path) if path else "the config file")
    overrides = {k: getattr(args, k) for k in ("db", "host", "port", "pin", "camera", "model") if getattr(args, k)}
    return Settings(**{**settings.__dict__, **overrides}), (str(path) if path else None)


def build(args: argparse.Namespace, *, clock=time.time) -> dict[str, Any]:
    """Open everything `companion run` needs; returns the parts so they can be stopped in order."""
    from hw.panel import Panel, pin_factory_for
    from hw.pins import coerce
    from vision.reader import DiceReader
    from vision.settle import Settler
    from vision.sources import open_source
    from vision.tray import RollTracker, TrayWatcher

    from . import create_app
    from .cli import pin_from

    settings, config_path = _settings(args)
    demo = args.demo or not on_a_pi()
    pin, made_up = pin_from(argparse.Namespace(pin=settings.pin))
    # A bad pin map or model file fails here, before the game log is opened or touched.
    pin_map = coerce(config_path)
    reader = DiceReader(settings.model)
    log = GameLog(settings.db_path(), clock=clock)
    parts: dict[str, Any] = {"log": log, "demo": demo, "pin": pin, "made_up": made_up, "settings": settings}
    try:
        table = parts["table"] = Table(log).start()
        state = table.state()
        restarted = state is not None and state.get("phase") not in ("game_over", "tournament_over")
        tracker = RollTracker()
        camera = demo_camera() if demo and not settings.camera else None
        if camera is not None:
            open_camera = lambda: camera  # noqa: E731 - the demo's camera never goes away
            roller = parts["roller"] = DemoRoller(table, camera, tracker)
        else:
            spec = settings.camera or "picamera2"
            open_camera = lambda: open_source(spec)  # noqa: E731 - reopened after the camera is lost
        watcher = parts["watcher"] = TrayWatcher(table, open_camera, Settler(settings.still_ms / 1000, reader),
                                                 tracker=tracker)
        on_roll = roller.roll if camera is not None else watcher.read_now
        panel = parts["panel"] = Panel(table, pin_map, pin_factory_for(True if demo else None),
                                       on_roll=on_roll).start()
        status = {"demo": demo, "restarted": restarted, "started": clock()}
        parts["app"] = create_app({
            "TABLE": table, "PIN": pin, "COACH": settings.coach, "DICE": settings.dice, "STATS_WARM_UP": True,
            "DEMO_PRESS": panel.press if demo else None, "DEMO_BUTTONS": panel.buttons,
            "STATUS": lambda: {**status, "camera": {True: "ok", False: "lost", None: "starting"}[watcher.camera_ok]},
        })
        watcher.start()
        if restarted:
            table.notify("restart", text=f"The companion restarted; game {state['game_id']} continues where it stood "
                                         f"(move {state['seq']}).")
        return parts
    except BaseException:
        shutdown(parts)
        raise


def shutdown(parts: dict[str, Any]) -> None:
    """Stop what build() started, camera first and the game log last."""
    for name, method in (("watcher", "stop"), ("panel", "close"), ("table", "stop"), ("log", "close")):
        part = parts.get(name)
        if part is None:
            continue
        try:
            getattr(part, method)()
        except Exception as exc:  # keep closing the rest; the log must still be closed
            print(f"companion run: stopping the {name}: {exc}", file=sys.stderr)


def handle(args: argparse.Namespace) -> int:
    from .cli import banner
    from .serve import ServerThread, page_url

    try:
        parts = build(args)
    except (CompanionError, ValueError) as exc:
        print(f"companion run: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (ConfigError, ValueError)) else 1
    try:
        s = parts["settings"]
        try:
            server = ServerThread(parts["app"], s.host, s.port)
        except OSError as exc:
            print(f"companion run: cannot listen on {s.host}:{s.port}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        mode = "demo mode: simulated camera and buttons (press them on the page)" if parts["demo"] else "on the Pi"
        print(f"Table companion, {mode}. Game log: {s.db_path()}", flush=True)
        print(banner(page_url(s.host, server.port), parts["pin"], parts["made_up"],
                     f"http://127.0.0.1:{server.port}/"), flush=True)
        server.serve_until_interrupted()
        return 0
    finally:
        shutdown(parts)
