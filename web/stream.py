"""GET /events: Server-Sent Events for every phone at the table."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

from .fair import StreamShares
from .hub import messages

bp = Blueprint("events", __name__)
SHARES = "companion_streams"


@bp.record_once
def _shares(state) -> None:
    cfg = state.app.config
    state.app.extensions[SHARES] = StreamShares(int(cfg["MAX_STREAMS_PER_ADDRESS"]), cfg["UNCAPPED_ADDRESSES"])


@bp.get("/events")
def events():
    c = current_app.extensions["companion"]
    shares: StreamShares = current_app.extensions[SHARES]
    address = request.remote_addr or "?"
    if not shares.admit(address):
        raise TooManyRequests(f"this device already has {shares.per_address} live pages open; "
                              "close one to open another", retry_after=10)
    stream = c.hub.open_stream()
    if stream is None:
        shares.release(address)
        raise ServiceUnavailable(f"too many open pages ({c.hub.max_streams}); close one or try again shortly",
                                 retry_after=10)
    disconnected = request.environ.get("waitress.client_disconnected")
    coaching = current_app.extensions["coaching"]
    # The stream's first message is the current state: no separate read that could race an update.
    response = Response(messages(stream, c.heartbeat_s, disconnected, shown=coaching.attach),
                        mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-store"
    response.headers["X-Accel-Buffering"] = "no"
    response.call_on_close(stream.close)  # also when the body was never read
    response.call_on_close(lambda: shares.release(address, stream))
    # a vanished phone's slot comes back within half a second; one that stopped reading is hung up
    shares.watch(stream, disconnected, request.environ.get("companion.hang_up"))
    return response
