"""The camera from the phone (override PIN): the camera view, teaching the dice, corrections.

    GET  /api/camera.jpg[?overlay=1]   the newest frame (503 JSON when there is no camera)
    GET  /api/camera                    what is wrong with the picture, in words, and the dice seen
    GET  /api/calibration               the model in use, the previous one, corrected dice waiting, a wizard
    POST /api/calibration/start|capture|finish|use|revert|cancel|learn|forget
    POST /api/demo/tray                 demo mode: {"faces": [...]} lays those dice at rest in the tray

Config: CAMERA_VIEW (vision.camera.view.CameraView), TEACHER (vision.teach.wizard.Teacher), DEMO_TRAY (callable
faces -> None, demo mode only). The view's work happens here, in the request's thread.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import BadRequest, Conflict, NotFound, ServiceUnavailable

from companion.commands import quote

from .api import json_body, require_pin

bp = Blueprint("camera", __name__)


@bp.record_once
def _words(state) -> None:
    # The section's template marks its words with _() for the page's catalogue (Flask-Babel installs
    # the real one); without it they stay English.
    state.app.jinja_env.globals.setdefault("_", lambda text, **values: text % values if values else text)
FINISH_WAIT_S = 110.0  # a build still running then is answered {"building": true}; the page polls


def _view():
    view = current_app.config.get("CAMERA_VIEW")
    if view is None:
        raise ServiceUnavailable("no camera: the companion runs without one")
    return view


def _teacher():
    teacher = current_app.config.get("TEACHER")
    if teacher is None:
        raise ServiceUnavailable("no camera: the dice cannot be taught without one")
    return teacher


def _teach(action, *args):
    from vision.teach.wizard import TeachBusy, TeachError

    try:
        return action(*args)
    except TeachBusy as exc:
        raise Conflict(str(exc)) from None
    except TeachError as exc:
        raise BadRequest(str(exc)) from None


@bp.get("/api/camera.jpg")
def snapshot():
    from vision.camera.view import NoCamera

    require_pin()
    try:
        data = _view().jpeg(request.args.get("overlay") in ("1", "true", "yes"))
    except NoCamera as exc:
        raise ServiceUnavailable(str(exc)) from None
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/api/camera")
def camera_status():
    require_pin()
    return jsonify(_view().status())


@bp.get("/api/calibration")
def calibration():
    require_pin()
    return jsonify(_teacher().status())


@bp.post("/api/calibration/<action>")
def calibration_action(action: str):
    require_pin()
    teacher = _teacher()
    raw = json_body() if request.content_length else {}
    if action == "capture":
        unknown = [k for k in raw if k != "face"]
        if unknown:
            raise BadRequest(f"unknown key {quote(unknown[0])}; a capture takes face")
        if not isinstance(raw.get("face"), str):
            raise BadRequest('a capture needs {"face": "bee"|"honey"|"zzz"|"zombee"|"empty"}')
        return jsonify(_teach(teacher.capture, raw["face"]))
    actions = {"start": teacher.start, "use": teacher.use, "revert": teacher.revert, "cancel": teacher.cancel,
               "forget": teacher.forget,
               "finish": lambda: teacher.finish(FINISH_WAIT_S), "learn": lambda: teacher.learn(FINISH_WAIT_S)}
    if action not in actions:
        raise NotFound(f"no calibration action {quote(action)}; actions are capture, {', '.join(actions)}")
    return jsonify(_teach(actions[action]))


@bp.post("/api/demo/tray")
def demo_tray():
    lay = current_app.config.get("DEMO_TRAY")
    if lay is None:
        raise NotFound("there is no synthetic tray: the companion is not in demo mode")
    require_pin()
    raw = json_body()
    unknown = [k for k in raw if k != "faces"]
    faces = raw.get("faces")
    if unknown or not isinstance(faces, list) or not all(isinstance(f, str) for f in faces):
        raise BadRequest('lay dice with {"faces": ["bee", "honey", ...]} ([] empties the tray)')
    try:
        lay(faces)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    return jsonify(ok=True, faces=faces)
