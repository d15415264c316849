"""Inviting the next phone: the page's QR code of the address (`/invite.svg`) and
`companion qr`, the same address as a printable sticker for the lid of the box.

A Pi at the table has no screen, so nobody reads the start banner: a phone already at the
page shows the code to the next one. The address is the one the banner shows (the app's
INVITE_URL, set by `serve` and `run`: the LAN address), else the one this phone used,
unless that was the machine itself (localhost), which no other phone can open.
"""

from __future__ import annotations

import argparse
import ipaddress
import re
import sys
from html import escape
from pathlib import Path
from urllib.parse import urlsplit
from typing import Any

from flask import Blueprint, Response, current_app, request

bp = Blueprint("invite", __name__)

ERROR = "m"  # QR error correction: survives a scratched or bent sticker


def _loopback(host: str) -> bool:
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def invite_url() -> str:
    from .address import page_url

    configured = current_app.config.get("INVITE_URL")
    if configured:
        return configured
    used = urlsplit(request.host_url)
    if _loopback(used.hostname or ""):
        return page_url("0.0.0.0", used.port or 80)
    return request.host_url


@bp.get("/invite")
def invite_page():
    from flask import render_template

    from companion import __version__

    return render_template("invite.html", version=__version__), 200, {"Cache-Control": "no-cache"}


@bp.get("/invite.svg")
def invite_svg():
    return Response(qr_svg(invite_url()), mimetype="image/svg+xml", headers={"Cache-Control": "no-cache"})


def qr_svg(url: str) -> str:
    """The QR code of `url` as a standalone SVG that scales to its box (black on white)."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error=ERROR).save(out, kind="svg", scale=1, border=4, omitsize=True, xmldecl=False,
                                      dark="#000", light="#fff")
    return out.getvalue().decode()


@bp.app_context_processor
def _invite() -> dict[str, Any]:
    return {"invite_url": invite_url}


# --- the sticker -------------------------------------------------------------------------------

MODULE_MM = 1.5  # one QR module on paper: big enough for a phone at arm's length


def sticker_svg(url: str, title: str = "Table companion") -> str:
    """A printable SVG: a title, the QR code of `url` and the address written out under it."""
    import segno

    qr = segno.make(url, error=ERROR)
    size = qr.symbol_size(scale=1, border=4)[0]
    inner = re.search(r"<svg[^>]*>(.*)</svg>", qr.svg_inline(scale=1, border=4, dark="#000", light="#fff"),
                      re.S).group(1)
    text_h = 5  # modules per line of text
    width, height = size, size + 2 * text_h + 2
    font = max(2.0, min(3.2, width / max(len(url), 1) * 1.7))
    return (f'<?xml version="1.0" encoding="utf-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
            f'width="{width * MODULE_MM:g}mm" height="{height * MODULE_MM:g}mm">\n'
            f'<rect width="{width}" height="{height}" fill="#fff"/>\n'
            f'<text x="{width / 2:g}" y="{text_h - 1}" font-family="sans-serif" font-size="3.4" font-weight="bold" '
            f'text-anchor="middle" fill="#000">{escape(title)}</text>\n'
            f'<g transform="translate(0 {text_h})">{inner}</g>\n'
            f'<text x="{width / 2:g}" y="{size + text_h + 3.5:g}" font-family="monospace" font-size="{font:.2f}" '
            f'text-anchor="middle" fill="#000">{escape(url)}</text>\n'
            f'</svg>\n')


def write_sticker(url: str, path: Path) -> None:
    """`.svg`: the sticker with the address written out; `.png`: the QR code (segno's PNG writer)."""
    import segno

    suffix = path.suffix.lower()
    if suffix == ".svg":
        path.write_text(sticker_svg(url), encoding="utf-8")
    elif suffix == ".png":
        segno.make(url, error=ERROR).save(str(path), kind="png", scale=12, border=4, dark="#000", light="#fff")
    else:
        raise ValueError(f"-o {str(path)!r}: the sticker is written as .svg or .png, not {suffix or 'no suffix'!r}")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "qr", help="write the page's address as a QR sticker (SVG or PNG) for the lid of the box",
        description="Print the address phones open (the machine's LAN address) and write it as a QR code: "
                    "an SVG sticker with the address written under the code, or a PNG of the code.")
    p.add_argument("--host", default="0.0.0.0",
                   help="the address the companion listens on (default 0.0.0.0: this machine's LAN address)")
    p.add_argument("--port", type=int, default=8000, help="its TCP port (default 8000)")
    p.add_argument("-o", "--output", default="companion-qr.svg", metavar="FILE",
                   help="FILE.svg or FILE.png (default companion-qr.svg); - prints the code on the terminal")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from .address import page_urls
    from .serve import listen_problem

    if not 1 <= args.port <= 65535:
        print(f"companion qr: --port must be 1-65535, got {args.port}", file=sys.stderr)
        return 2
    if args.host and all(c.isdigit() or c == "." for c in args.host):
        # Meant as an IPv4 address: "999.1.1.1" went on the sticker, a code no phone can open. Another
        # machine's address (the Pi's, made on a laptop) is fine; names are not looked up.
        problem = listen_problem(args.host, args.port)
        if problem:
            print(f"companion qr: {problem}", file=sys.stderr)
            return 2
    urls = page_urls(args.host, args.port)
    if args.output == "-":  # for a terminal (the Pi's installer ends with it): the code, then the address
        from .serve import qr_text

        print(qr_text(urls[0]) + urls[0] + (f"  (also {'  '.join(urls[1:])})" if urls[1:] else ""))
        return 0
    path = Path(args.output)
    try:
        write_sticker(urls[0], path)
    except ValueError as exc:
        print(f"companion qr: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"companion qr: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{path}: {urls[0]}" + (f"  (also {'  '.join(urls[1:])})" if urls[1:] else ""))
    if args.host.startswith("127.") or args.host in ("localhost", "::1"):  # written as asked, with a warning
        print(f"companion qr: {args.host} is this machine's own address: a phone that scans the sticker "
              "opens itself, not the companion; leave --host out for the LAN address", file=sys.stderr)
    return 0
