"""Reachable: the LAN address in the banner and the QR codes, the Invite view, `companion qr`."""

from __future__ import annotations

import argparse
import socket
import struct
import xml.etree.ElementTree as ET

import pytest

from web import address, cli, create_app, invite

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def lan(monkeypatch):
    """A machine at 192.168.1.7 called companion (companion.local)."""
    monkeypatch.setattr(address, "lan_address", lambda probes=address.PROBES: "192.168.1.7")
    monkeypatch.setattr(address, "mdns_name", lambda: "companion.local")
    return "http://192.168.1.7:8000/"


def decode_png(path) -> str:
    import cv2

    text, _, _ = cv2.QRCodeDetector().detectAndDecode(cv2.imread(str(path)))
    return text


# --- the address -----------------------------------------------------------------------------


def test_the_lan_address_comes_first_and_the_local_name_beside_it(lan):
    assert address.page_urls("0.0.0.0", 8000) == [lan, "http://companion.local:8000/"]
    assert address.page_urls("192.168.1.9", 8000) == ["http://192.168.1.9:8000/"]  # a chosen address stays


def test_without_a_lan_address_the_local_name_then_the_machine_itself(monkeypatch):
    monkeypatch.setattr(address, "lan_address", lambda probes=address.PROBES: None)
    monkeypatch.setattr(address, "mdns_name", lambda: "companion.local")
    assert address.page_urls("0.0.0.0", 80) == ["http://companion.local:80/"]
    monkeypatch.setattr(address, "mdns_name", lambda: None)
    assert address.page_urls("0.0.0.0", 80) == ["http://127.0.0.1:80/"]


def test_the_outgoing_interfaces_address_is_found_by_a_udp_connect(monkeypatch):
    sent = []

    class Probe:
        def __init__(self, *a):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

        def connect(self, target):
            if target[0].startswith("10."):
                raise OSError("no route")

        def getsockname(self):
            return ("192.168.1.7", 50000)

        def sendto(self, *a):  # pragma: no cover - must never be called
            sent.append(a)

    monkeypatch.setattr(socket, "socket", Probe)
    assert address.lan_address() == "192.168.1.7" and not sent


def test_without_a_route_the_host_names_own_lan_address_is_used(monkeypatch):
    monkeypatch.setattr(socket, "gethostname", lambda: "companion")
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a: [(2, 2, 17, "", (ip, 0)) for ip in
                                                           ("127.0.1.1", "169.254.3.3", "192.168.1.7")])
    assert address.lan_address(probes=()) == "192.168.1.7"


def test_the_banner_shows_both_and_the_qr_code_holds_the_lan_address(lan):
    from web.serve import qr_text

    text = cli.banner(lan, "246813", None, "http://127.0.0.1:8000/", ["http://companion.local:8000/"])
    assert text.splitlines()[0] == f"Table companion: open {lan} on your phone (or scan the code below)."
    assert "Also: http://companion.local:8000/" in text
    assert qr_text(lan) in text and qr_text("http://companion.local:8000/") not in text


# --- the Invite view -------------------------------------------------------------------------


@pytest.fixture
def client(table):
    app = create_app({"TABLE": table})
    yield app.test_client()
    app.extensions["companion"].hub.close()


def test_the_invite_code_is_the_address_the_phone_used(client):
    r = client.get("/invite.svg", headers={"Host": "192.168.1.20:8000"})
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    root = ET.fromstring(r.get_data(as_text=True))
    assert root.tag == SVG + "svg" and root.find(SVG + "path") is not None
    assert r.get_data(as_text=True) == invite.qr_svg("http://192.168.1.20:8000/")


def test_a_page_opened_on_the_machine_itself_invites_to_the_lan_address(client, lan):
    assert client.get("/invite.svg", headers={"Host": "localhost:8000"}).get_data(as_text=True) == invite.qr_svg(lan)
    html = client.get("/invite", headers={"Host": "127.0.0.1:8000"}).get_data(as_text=True)
    assert f'href="{lan}"' in html and 'src="/invite.svg"' in html


def test_the_address_serve_printed_is_the_one_invited_to(table, lan):
    app = create_app({"TABLE": table, "INVITE_URL": lan})
    try:
        svg = app.test_client().get("/invite.svg", headers={"Host": "192.168.1.30:8000"}).get_data(as_text=True)
    finally:
        app.extensions["companion"].hub.close()
    assert svg == invite.qr_svg(lan)


def test_the_page_links_to_the_invite_view_in_both_languages(client):
    assert 'href="/invite">Invite<' in client.get("/").get_data(as_text=True)
    html = client.get("/invite", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "<h1>Handy einladen</h1>" in html


# --- companion qr ----------------------------------------------------------------------------


def qr(*argv) -> int:
    p = argparse.ArgumentParser(prog="companion")
    invite.register(p.add_subparsers())
    args = p.parse_args(["qr", *argv])
    return args.func(args)


def test_the_svg_sticker_shows_the_lan_address_under_its_code(tmp_path, lan, capsys):
    out = tmp_path / "lid.svg"
    assert qr("-o", str(out)) == 0
    root = ET.parse(out).getroot()
    texts = [t.text for t in root.iter(SVG + "text")]
    assert texts[-1] == lan and root.get("width").endswith("mm")
    assert capsys.readouterr().out.strip() == f"{out}: {lan}  (also http://companion.local:8000/)"


def test_the_png_sticker_is_a_png_that_reads_back_as_the_lan_address(tmp_path, lan):
    out = tmp_path / "lid.png"
    assert qr("--port", "8000", "-o", str(out)) == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width == height >= 300  # big enough to print
    assert decode_png(out) == lan


def test_dash_prints_the_code_on_the_terminal_with_the_address_under_it(tmp_path, lan, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert qr("-o", "-") == 0
    out = capsys.readouterr().out
    assert "\u2588" in out or "\u2580" in out  # block characters: a code a phone can scan off the screen
    assert out.splitlines()[-1] == f"{lan}  (also http://companion.local:8000/)"
    assert list(tmp_path.iterdir()) == []  # no file named "-"


def test_a_given_host_and_port_go_on_the_sticker(tmp_path):
    out = tmp_path / "lid.png"
    assert qr("--host", "10.0.0.5", "--port", "8080", "-o", str(out)) == 0
    assert decode_png(out) == "http://10.0.0.5:8080/"


def test_a_sticker_of_this_machines_own_address_is_written_with_a_warning(tmp_path, capsys):
    out = tmp_path / "lid.png"
    assert qr("--host", "127.0.0.1", "-o", str(out)) == 0
    assert decode_png(out) == "http://127.0.0.1:8000/"
    assert "a phone that scans the sticker opens itself" in capsys.readouterr().err
    assert qr("--host", "10.0.0.5", "-o", str(out)) == 0 and capsys.readouterr().err == ""


@pytest.mark.parametrize("argv, message", [(["-o", "lid.gif"], "as .svg or .png"), (["--port", "0"], "1-65535"),
                                           # a sticker of http://999.1.1.1:8000/ was written
                                           (["--host", "999.1.1.1"], "--host '999.1.1.1' is not an IPv4 address")])
def test_a_sticker_that_cannot_be_made_says_why(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    assert qr(*argv) == 2
    assert message in capsys.readouterr().err and not list(tmp_path.iterdir())
