"""Running the app with waitress: the thread pool, the address to show, the QR code."""

from __future__ import annotations

import signal
import socket
import threading
from typing import Any, Callable

from waitress import create_server, wasyncore

from .address import display_host, page_url, page_urls  # noqa: F401 - where serve and run look them up

HEADROOM = 8  # threads beyond the stream cap, for page loads and commands
OUTBUF = 256 * 1024  # bytes waiting for one connection before its writer waits (waitress: 16 MB)


def threads_for(app: Any) -> int:
    return int(app.config["MAX_STREAMS"]) + HEADROOM


def _options(app: Any, threads: int | None) -> dict[str, Any]:
    threads = threads or threads_for(app)
    return {
        "threads": threads,
        # Notice a vanished phone after one heartbeat, not two or three.
        "channel_request_lookahead": 1,
        "connection_limit": int(app.config.get("MAX_CONNECTIONS") or max(100, threads + 50)),
        "ident": "companion",
        # Refused on its Content-Length, before it is read: waitress read a body of up to 1 GB into
        # memory or a file before Flask's own MAX_BODY limit saw it (a Pi's RAM and SD card)
        "max_request_body_size": app.config["MAX_CONTENT_LENGTH"],
        "clear_untrusted_proxy_headers": True,
        # A phone that stays connected but stops reading: waitress buffered every message for it (1 MB in
        # memory, then temporary files without end: 91 MB for ten such phones), so its stream never fell
        # behind and was never ended. Past this, the stream's thread waits: its queue fills, and the hub
        # ends it (hub.Hub's queue_size), as docs/web.md says.
        "outbuf_high_watermark": OUTBUF,
    }


def make_server(app: Any, host: str = "127.0.0.1", port: int = 8000, threads: int | None = None):
    """A waitress server bound now (port 0 picks a free port); call `.run()` to serve.

    Its own errors are JSON, each address holds at most MAX_CONNECTIONS_PER_ADDRESS
    connections, and a request must arrive whole in time (web.wire, web.patience)."""
    from .wire import make_fair

    server = create_server(app, host=host, port=port, **_options(app, threads))
    return make_fair(server, int(app.config["MAX_CONNECTIONS_PER_ADDRESS"]), app.config["UNCAPPED_ADDRESSES"],
                     app.config.get("PATIENCE"), standing(app))


def standing(app: Any) -> Callable[[str], int]:
    """How much an address's waiting connections are kept when the server is full (web.patience):
    a phone that has shown the PIN keeps them, one holding an event stream loses them last."""
    from .patience import KNOWN, STRANGER, STREAMING
    from .stream import SHARES

    limiter = app.extensions["companion"].limiter
    shares = app.extensions[SHARES]

    def rank(address: str) -> int:
        if limiter.known(address):
            return KNOWN
        return STREAMING if shares.count(address) else STRANGER
    return rank


def serve(app: Any, host: str = "0.0.0.0", port: int = 8000, threads: int | None = None,
          on_ready: Callable[[int], None] | None = None) -> None:
    """Serve until Ctrl-C (or SIGTERM in the main thread), then stop cleanly.

    `on_ready(port)` is called once the socket listens (port 0 picks a free one).
    """
    server = ServerThread(app, host, port, threads)
    if on_ready is not None:
        on_ready(server.port)
    server.serve_until_interrupted()


class ServerThread:
    """The app under waitress in a background thread: for `serve`, tests and the benchmark."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, threads: int | None = None):
        self.app = app
        self.server = make_server(app, host, port, threads)
        self.port = self.server.effective_port
        self.url = f"http://{host if ':' not in host else f'[{host}]'}:{self.port}"
        self.thread = threading.Thread(target=self.server.run, name="waitress", daemon=True)

    def start(self) -> "ServerThread":
        self.thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """End the event streams, let the workers finish, then close every socket.

        The sockets are closed by the server's own loop thread (through its trigger):
        closing them from here races with that loop and leaves it serving kept-alive
        connections.
        """
        from . import close_app

        close_app(self.app)
        self.server.task_dispatcher.shutdown(timeout=timeout)
        if self.thread.is_alive():
            sockets = getattr(self.server, "_map", None) or getattr(self.server, "map", {})
            try:
                self.server.trigger.pull_trigger(lambda: wasyncore.close_all(sockets))
            except OSError:  # the loop closed its trigger meanwhile: it is ending by itself
                pass
            self.thread.join(timeout)
        if self.thread.is_alive():  # pragma: no cover - the loop did not stop
            self.server.close()

    def serve_until_interrupted(self) -> None:
        previous = None
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGTERM, _interrupt)
        self.start()
        try:
            while self.thread.is_alive():
                self.thread.join(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)

    def __enter__(self) -> "ServerThread":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def listen_problem(host: str, port: int) -> str | None:
    """Why `run` or `serve` could not listen on host:port, found before anything is opened; None to try it.

    waitress would say only "Invalid host/port specified." (with a traceback) or, for
    a port above 65535, quietly listen on another one.
    """
    if not 0 <= port <= 65535:
        return f"--port must be 0-65535, got {port}"
    if host and all(c.isdigit() or c == "." for c in host):
        try:  # meant as an IPv4 address: judged here, without asking a name server about "999.1.1.1"
            socket.inet_aton(host)
        except OSError:
            return f"--host {host!r} is not an IPv4 address (four numbers 0-255, like 192.168.1.20)"
        return None
    try:
        socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        return f"--host {host!r} is not an address or a name of this machine to listen on ({reason})"
    return None


def port_taken(host: str, port: int) -> str | None:
    """Why nothing can listen on host:port now (another program holds it), found before the game log is
    opened: it was found only once the server started, after an empty game log and its lock were made."""
    if not port:
        return None  # any free port
    try:
        family = socket.getaddrinfo(host or "0.0.0.0", port, 0, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as waitress binds
            probe.bind((host or "0.0.0.0", port))
    except OSError as exc:
        return f"cannot listen on {host or '0.0.0.0'}:{port}: {exc.strerror or exc}"
    return None


def qr_text(url: str) -> str:
    """The URL as a QR code drawn with block characters for the terminal."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True)
    return out.getvalue()
