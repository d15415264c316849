"""`companion run`: the composition root, where the engine, the dice reader, the button panel
and the phone page are put together.

One Table (the single writer) takes commands from the camera, the panel, the
phones and the CLI. On a Raspberry Pi the camera and the GPIO panel are real;
with --demo, or wherever no Pi is found, a synthetic camera renders a fresh
roll whenever the (virtual) Roll button asks for one, and the panel runs on
gpiozero's mock pins, pressed from the page.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from companion.config import Settings, default_config_path, load_settings, read_config
from companion.errors import CameraError, CompanionError, ConfigError
from companion.events import N_, worded
from companion.gamelog import GameLog
from companion.loglock import ServerLock
from companion.notices import NoticeKind
from companion.table import Table

from .corrections import CorrectionWatcher
from .demo import DemoRoller, demo_camera, lay_tray
from .health import Health


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


def settings_from(args: argparse.Namespace, environ=os.environ) -> tuple[Settings, bool, str | None]:
    """(settings, PIN note, config path): the command line beats the settings file; the PIN
    comes from --pin, else $COMPANION_PIN, else the settings file, else the one kept in the data
    folder (the note says so; None for a given PIN)."""
    from web.cli import pin_from

    path = args.config or default_config_path()
    source = str(path) if path else "the config file"
    settings = load_settings(read_config(path), source)
    # `is not None`: `--port 0` or `--pin ''` must reach their checks, not fall back to a default
    overrides = {k: getattr(args, k) for k in ("db", "host", "port", "camera", "model")
                 if getattr(args, k) is not None}
    pin, made_up = pin_from(args, environ, configured=settings.pin, config_source=source)
    return replace(settings, **overrides, pin=pin), made_up, (str(path) if path else None)


def build(args: argparse.Namespace, *, clock=time.time, teach_options: dict | None = None) -> dict[str, Any]:
    """Open everything `companion run` needs; returns the parts so they can be stopped in order.
    teach_options: vision.teach.wizard.Teacher's keywords (tests use smaller calibrations)."""
    from hw.panel import Panel, PinsUnavailable, pin_factory_for
    from hw.pins import coerce
    from vision.pip_reading import PipReader
    from vision.reader import DiceReader
    from vision.settle import Settler
    from companion.files import room
    from vision.teach.captures import DiceStore
    from vision.teach.wizard import Teacher
    from vision.teach.relearn import Relearner
    from vision.tray import RollTracker, TrayWatcher
    from vision.camera.view import CameraView
    from vision.doubt import Asking

    from web import create_app

    settings, made_up, config_path = settings_from(args)
    demo = args.demo or not on_a_pi()
    pin = settings.pin
    # A bad pin map or model file fails here, before the game log is opened or touched.
    pin_map = coerce(config_path)
    store = DiceStore(settings.dice_path())
    reader = DiceReader(taught_model(store, settings, explicit=getattr(args, "model", None) is not None))
    camera = demo_camera() if demo and not settings.camera else None
    parts: dict[str, Any] = {"demo": demo, "pin": pin, "made_up": made_up, "settings": settings}
    try:
        # A second server on this log stops here, before its camera or the log is opened: the first
        # holds the camera, and "cannot be opened" would hide what is really wrong.
        parts["lock"] = ServerLock(settings.db_path()).acquire()
        # So does a camera that cannot be opened, before the log is opened; one lost later is waited for.
        start_camera = parts["camera"] = None if camera is not None else StartCamera(
            settings.camera or "picamera2", camera_origin(args, settings, config_path),
            required=args.camera is not None)
        log = parts["log"] = GameLog(settings.db_path(), clock=clock)
        table = parts["table"] = Table(log).start()
        state = table.state()
        restarted = state is not None and not state.get("over")
        tracker = RollTracker()
        if camera is not None:
            open_camera = lambda: camera  # noqa: E731 - the demo's camera never goes away
            roller = parts["roller"] = DemoRoller(table, camera, tracker)
        else:
            open_camera = start_camera
        asking = Asking(table)  # a die between two faces: asked by the watcher, answered on a phone
        watcher = parts["watcher"] = TrayWatcher(table, open_camera, Settler(settings.still_ms / 1000, reader),
                                                 tracker=tracker, asking=asking,
                                                 # the Zoo's one plain die: read with no teaching (vision/pips)
                                                 pip_settler=Settler(settings.still_ms / 1000, PipReader()))
        on_roll = roller.roll if camera is not None else watcher.read_now
        teacher = parts["teacher"] = Teacher(
            store, watcher.latest, lambda: watcher.settler.reader,
            lambda model: setattr(watcher.settler, "reader", DiceReader(model)),  # one swap: no restart
            teaching=lambda on: setattr(watcher, "teaching", on), **(teach_options or {}))
        space = lambda: room(store.free())  # noqa: E731 - the dice folder's card: where teaching writes
        view = CameraView(watcher.latest, lambda: watcher.settler.reader, lambda: watcher.camera_ok, space=space)
        health = parts["health"] = Health(table, settings.db_path().parent, camera_ok=lambda: watcher.camera_ok)
        try:
            panel = Panel(table, pin_map, pin_factory_for(True if demo else None), on_roll=on_roll)
        except PinsUnavailable as exc:  # another program holds them: the game goes on from the phones
            health.panel_unavailable(str(exc))
            panel = Panel(table, pin_map, pin_factory_for(True), on_roll=on_roll)  # mock pins: the page's mirror
        panel = parts["panel"] = panel.start()
        status = {"demo": demo, "restarted": restarted, "started": clock(),
                  "log_damaged": log.kept_aside.name if log.kept_aside is not None else None,
                  **({"game": state["game_id"], "move": state["seq"]} if restarted else {})}  # named on every page
        parts["app"] = create_app({
            "TABLE": table, "PIN": pin, "ALLOWED_HOSTS": settings.host_names(),
            "CAMERA_VIEW": view, "TEACHER": teacher, "ASKING": asking,
            "DEMO_TRAY": (lambda faces: lay_tray(camera, watcher.latest, faces)) if camera is not None else None,
            "COACH": settings.coach, "DICE": settings.dice, "STATS_WARM_UP": True, "SPACE": space,
            "DEMO_PRESS": panel.press if demo else None, "DEMO_BUTTONS": panel.buttons,
            "STATUS": lambda: {**status, "camera": {True: "ok", False: "lost", None: "starting"}[watcher.camera_ok],
                               "panel": panel.snapshot(),  # what the box shows, for a page that opens now
                               "faults": health.faults()},  # the Pi's own (power, heat, SD card, panel pins)
        })
        watcher.start()
        health.start()
        relearner = parts["relearner"] = Relearner(teacher)
        parts["corrections"] = CorrectionWatcher(table, watcher, store, on_kept=relearner.kept).start()
        if log.kept_aside is not None:  # the moves it held cannot be read: said, with where they are kept
            print(f"warning: the game log's write-ahead file was damaged; the moves since the last checkpoint "
                  f"could not be read, and a copy is kept at {log.kept_aside}", file=sys.stderr)
        if restarted:
            table.notify(NoticeKind.RESTART, **worded(N_("The companion restarted; game {game} continues where "
                                                          "it stood (move {move})."),
                                                       game=state["game_id"], move=state["seq"]))
        return parts
    except BaseException:
        shutdown(parts)
        raise


def camera_origin(args: argparse.Namespace, settings: Settings, config_path: str | None) -> str:
    """Where the camera spec came from, for the message when it cannot be opened."""
    if args.camera is not None:
        return "--camera"
    return f"camera in {config_path}" if settings.camera else "the default camera (picamera2)"


class StartCamera:
    """The camera of `spec`, opened at the start. A spec that names no camera at all stops the start in
    one line (the page's "camera lost" did not tell a typo from an unplugged cable), and so does a camera
    asked for on the command line (`required`: someone at a terminal waits for the answer). One from the
    settings file or the default Pi camera that is merely not there yet (a loose ribbon at boot) is said
    in one line, and the companion starts without it: the phones and the panel keep the score by hand,
    and the watcher opens it when it comes. The tray watcher is handed the first source, then opens the
    spec again itself each time the camera is lost."""

    def __init__(self, spec: str, origin: str, opener: Callable[[str], Any] | None = None, required: bool = True,
                 warn: Callable[[str], Any] | None = None):
        from vision.camera.sources import SPECS, UnknownSource, open_source

        self.spec, self._open, self._first = spec, opener or open_source, None
        try:
            self._first = self._open(spec)
        except UnknownSource as exc:  # it says what is accepted itself
            raise UnknownSource(f"{origin}: {exc}") from None
        except CameraError as exc:
            if required:
                raise CameraError(f"{origin}: {exc}; --camera takes {SPECS}") from None
            (warn or _warn)(f"{origin}: {exc}; starting without it (dice by hand on the phones) until it is found")

    def __call__(self) -> Any:
        first, self._first = self._first, None
        return first if first is not None else self._open(self.spec)

    def close(self) -> None:
        """Close the first source if the watcher never took it (it closes what it took)."""
        first, self._first = self._first, None
        if first is not None:
            first.close()


def mode_line(parts: dict[str, Any]) -> str:
    """What runs, for the first line: a camera given with --demo is a real one."""
    if not parts["demo"]:
        return "on the Pi"
    camera = parts.get("camera")
    if camera is None:
        return "demo mode: simulated camera and buttons (press them on the page)"
    return f"demo mode: camera {camera.spec}, simulated buttons (press them on the page)"


def _warn(line: str) -> None:
    print(f"companion run: {line}", file=sys.stderr, flush=True)


def taught_model(store: Any, settings: Settings, explicit: bool):
    """The model to read with: --model on the command line, else the one taught from the phone (the
    data folder's, so it survives restarts), else the config's model, else the shipped one."""
    from vision.teach.captures import DEFAULT
    from vision.name.model import ModelError

    if explicit:
        return settings.model
    problem = store.index_problem()
    if problem:  # the page says it too, and offers the newest model that loads
        print(f"companion run: {problem}; using {settings.model or 'the shipped model'} until a taught model is "
              "chosen on the phone (Camera and dice)", file=sys.stderr)
    index = store.index()
    for which in (index.get("current"), index.get("previous")):
        if which in (None, DEFAULT):
            return settings.model
        try:
            return store.load(which)
        except ModelError as exc:  # a damaged taught model must not keep the companion from starting
            print(f"companion run: the dice model taught on the phone cannot be used ({exc}); trying the "
                  "previous one", file=sys.stderr)
    return settings.model


def shutdown(parts: dict[str, Any]) -> None:
    """Stop what build() started, camera first, then the game log and last its lock."""
    for name, method in (("health", "stop"), ("corrections", "stop"), ("watcher", "stop"), ("camera", "close"), ("panel", "close"),
                         ("table", "stop"), ("log", "close"), ("lock", "release")):
        part = parts.get(name)
        if part is None:
            continue
        try:
            getattr(part, method)()
        except Exception as exc:  # keep closing the rest; the log must still be closed
            print(f"companion run: stopping the {name}: {exc}", file=sys.stderr)


def handle(args: argparse.Namespace) -> int:
    from web.cli import banner
    from web.serve import ServerThread, page_urls

    from web.serve import listen_problem, port_taken
    host, port = args.host or "0.0.0.0", 8000 if args.port is None else args.port
    problem = listen_problem(host, port)
    if problem:  # before the game log, the camera or the panel is opened
        print(f"companion run: {problem}", file=sys.stderr)
        return 2
    # a port given here is tried now; the settings file's (or 8000) when the server starts
    taken = port_taken(host, port) if args.port is not None else None
    if taken:
        print(f"companion run: {taken} (is the companion already running?)", file=sys.stderr)
        return 1
    try:
        parts = build(args)
    except (CompanionError, ValueError) as exc:
        print(f"companion run: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (ConfigError, ValueError)) else 1
    try:
        s = parts["settings"]
        try:
            server = ServerThread(parts["app"], s.host, s.port)
        except (OSError, ValueError) as exc:  # ValueError: waitress refusing a host from the settings file
            print(f"companion run: cannot listen on {s.host}:{s.port}: {getattr(exc, 'strerror', None) or exc}",
                  file=sys.stderr)
            return 1
        print(f"Table companion, {mode_line(parts)}. Game log: {s.db_path()}", flush=True)
        urls = page_urls(s.host, server.port)
        parts["app"].config["INVITE_URL"] = urls[0]  # the page's Invite view shows the same address
        print(banner(urls[0], parts["pin"], parts["made_up"], f"http://127.0.0.1:{server.port}/", urls[1:]),
              flush=True)
        server.serve_until_interrupted()
        return 0
    finally:
        shutdown(parts)
