"""The address a phone at the table can open, found without sending anything on the network.

Many phones cannot open `.local` names (mDNS), so the machine's LAN address comes first
and the `.local` name is shown beside it. The LAN address is the one the machine would
send from: connecting a UDP socket picks the outgoing interface and sends no packet.
"""

from __future__ import annotations

import ipaddress
import socket

# Private addresses to "connect" a UDP socket to: nothing is sent, the kernel only picks a route.
PROBES = ("10.255.255.255", "192.168.255.255", "172.31.255.255")
ANY = ("0.0.0.0", "::", "")


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local or ip.is_multicast)


def lan_address(probes=PROBES) -> str | None:
    """This machine's IPv4 address on the local network, or None (no network)."""
    for probe in probes:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.connect((probe, 9))  # UDP: sets the route and source address; no packet leaves
                address = s.getsockname()[0]
            except OSError:  # no route to this private range
                continue
        if _usable(address):
            return address
    try:  # /etc/hosts or the local resolver: a LAN address if the host name maps to one
        name = socket.gethostname()
        found = sorted({info[4][0] for info in socket.getaddrinfo(name, None, socket.AF_INET)})
    except OSError:
        return None
    return next((a for a in found if _usable(a)), None)


def mdns_name() -> str | None:
    """`<hostname>.local`, as Raspberry Pi OS announces itself, or None without a real host name."""
    try:
        name = socket.gethostname()
    except OSError:
        return None
    if not name or name == "localhost":
        return None
    return name if "." in name else f"{name}.local"


def display_host(host: str) -> str:
    """The host phones should use for a server listening on `host`."""
    if host not in ANY:
        return host
    return lan_address() or mdns_name() or "127.0.0.1"


def url_for_host(host: str, port: int) -> str:
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def page_url(host: str, port: int) -> str:
    return url_for_host(display_host(host), port)


def page_urls(host: str, port: int) -> list[str]:
    """Every address to show: the LAN address first, then the `.local` name (when listening on all)."""
    urls = [page_url(host, port)]
    name = mdns_name() if host in ANY else None
    if name:
        urls.append(url_for_host(name, port))
    return list(dict.fromkeys(urls))
