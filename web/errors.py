"""Every error as JSON `{"error": "..."}`: never an HTML page, never a traceback."""

from __future__ import annotations

import logging

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException, InternalServerError

from companion.errors import IllegalCommand, MovedOn

log = logging.getLogger(__name__)

MESSAGES = {
    400: "bad request",
    401: "this needs the override PIN: send Authorization: Bearer <PIN>",
    404: "no such page",
    405: "method not allowed here",
    413: "the body is too large (16 KiB at most)",
    415: "send the body as JSON with Content-Type: application/json",
    429: "too many wrong PINs from this address; wait and try again",
    500: "internal error",
    503: "the server is busy; try again shortly",
}

def _json_error(exc: HTTPException):
    response = exc.get_response()  # keeps headers such as Allow and Retry-After
    description = exc.description
    if not description or description == type(exc).description:
        description = MESSAGES.get(exc.code, exc.name)
    response.data = jsonify(error=description).get_data()
    response.content_type = "application/json"
    if exc.code == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="companion overrides"'
    return response


def install(app: Flask) -> None:
    app.register_error_handler(HTTPException, _json_error)

    @app.errorhandler(IllegalCommand)
    def refused(exc: IllegalCommand):
        return jsonify(error=str(exc)), 400

    @app.errorhandler(MovedOn)
    def moved_on(exc: MovedOn):  # sent with If-Match for a state the table has left
        return jsonify(error=str(exc)), 412

    @app.errorhandler(Exception)
    def crashed(exc: Exception):
        log.exception("request failed")
        return _json_error(InternalServerError())

    @app.after_request
    def headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        )
        if response.mimetype == "application/json":
            response.headers.setdefault("Cache-Control", "no-store")
        return response
