"""Refuse requests for a Host the companion does not serve under (DNS rebinding).

A page on another site can point its own name at the companion's address; the
browser then sends that site's name in `Host` and lets the page read the answer.
Only names that are the companion's own are served: localhost, this machine's
host name and its `.local` (mDNS) name, names given in ALLOWED_HOSTS (the
configured listen host among them), and any IP address written as such (an IP in
`Host` cannot come from a rebinding: the attacker's page has a name). "*" in
ALLOWED_HOSTS switches the check off.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Iterable

from flask import Flask, request
from werkzeug.exceptions import MisdirectedRequest

LOOPBACK_NAMES = ("localhost", "localhost.localdomain")


def _bare(host: str) -> str:
    """The name of a Host header, without port, brackets or trailing dot, lower case."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8000
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])  # fe80::1%eth0
        return True
    except ValueError:
        return False


def machine_names() -> set[str]:
    """This machine's own names, found without asking the network."""
    names = set(LOOPBACK_NAMES)
    try:
        name = socket.gethostname().lower().rstrip(".")
    except OSError:
        name = ""
    if name:
        short = name.split(".", 1)[0]
        names |= {name, short, f"{short}.local"}
    return names


def allowed_hosts(extra: Iterable[str] = ()) -> frozenset[str]:
    return frozenset(machine_names() | {_bare(h) for h in extra if h and h.strip()})


def host_is_served(host: str, allowed: frozenset[str]) -> bool:
    if "*" in allowed:
        return True
    bare = _bare(host)
    return _is_ip(bare) or bare in allowed


def install(app: Flask) -> None:
    extra = app.config.get("ALLOWED_HOSTS") or ()
    if isinstance(extra, str):
        extra = [h for h in extra.split(",")]
    allowed = allowed_hosts(extra)

    @app.before_request
    def check_host():
        host = request.environ.get("HTTP_HOST")
        if host is None:
            return  # HTTP/1.0 without Host: no browser (and so no rebinding page) sends that
        if not host_is_served(host, allowed):
            shown = host if len(host) <= 80 else host[:77] + "..."
            raise MisdirectedRequest(
                f"this companion does not serve the host {shown!r}; open it by its address "
                "(as the QR code shows), or add the name to allowed_hosts in the config")
