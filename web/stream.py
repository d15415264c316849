"""GET /events: Server-Sent Events for every phone at the table."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request
from werkzeug.exceptions import ServiceUnavailable

from .hub import messages

bp = Blueprint("events", __name__)


@bp.get("/events")
def events():
    c = current_app.extensions["companion"]
    stream = c.hub.open_stream()
    if stream is None:
        raise ServiceUnavailable(f"too many open pages ({c.hub.max_streams}); close one or try again shortly",
                                 retry_after=10)
    try:
        initial = c.table.state()
    except BaseException:
        stream.close()
        raise
    disconnected = request.environ.get("waitress.client_disconnected")
    coaching = current_app.extensions["coaching"]
    response = Response(messages(stream, initial, c.heartbeat_s, disconnected, shown=coaching.attach),
                        mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.call_on_close(stream.close)  # also when the body was never read
    return response
