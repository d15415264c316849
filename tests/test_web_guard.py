"""The PIN policy and the Host check, as a guesser or a rebinding page would meet them."""

from __future__ import annotations

import socket

import pytest

from companion.cli import main
from web import create_app
from web.auth import pin_matches
from web.hosts import machine_names

PIN = "246813"
ZOO = {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}


@pytest.fixture
def app(table, clock):
    app = create_app({"TABLE": table, "PIN": PIN, "CLOCK": clock, "ALLOWED_HOSTS": ["pi.lan"]})
    yield app
    app.extensions["companion"].hub.close()


def post(client, address, pin, body=ZOO):
    return client.post("/api/commands", json=body, headers={"Authorization": f"Bearer {pin}"},
                       environ_base={"REMOTE_ADDR": address})


# --- PIN length: run and serve alike ------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "serve"])
@pytest.mark.parametrize("pin, reason", [("", "must not be empty"), ("12345", "at least 6 characters, got 5")])
def test_run_and_serve_refuse_a_short_pin_before_opening_anything(tmp_path, capsys, command, pin, reason):
    db = tmp_path / "games.sqlite"
    assert main([command, "--pin", pin, "--db", str(db), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion {command}: ") and reason in err and err.count("\n") == 1
    assert not db.exists()


# --- wrong guesses: per address and overall -----------------------------------------------------------


def test_many_addresses_guessing_slow_the_whole_table_while_known_phones_get_in(app, clock):
    client = app.test_client()
    assert post(client, "10.0.0.2", PIN).status_code == 200  # a phone that knows the PIN
    answers = [post(client, f"10.0.1.{i}", f"{i:06d}").status_code for i in range(100) for _ in range(4)]
    # 20 wrong PINs are weighed (the 20th already answers 429: the table slows down), no more.
    assert answers[:19] == [401] * 19 and answers[19:] == [429] * 381
    assert post(client, "10.0.0.2", PIN).status_code == 200  # a known phone is not held up
    newcomer = post(client, "10.0.0.3", PIN)
    assert newcomer.status_code == 429 and 0 < int(newcomer.headers["Retry-After"]) <= 5
    assert "wrong PIN" in newcomer.get_json()["error"]
    clock.now += 5  # the table weighs one more PIN now: a right one gets in
    assert post(client, "10.0.0.3", PIN).status_code == 200
    assert post(client, "10.0.1.7", "999999").status_code == 429  # weighed, and the next slot is 5 s away
    assert post(client, "10.0.0.4", PIN).status_code == 429  # so even a right PIN from a new phone waits
    clock.now += 5
    assert post(client, "10.0.0.4", PIN).status_code == 200
    clock.now += 301  # a quiet window: guessing is back to the per-address rule
    assert [post(client, "10.0.1.9", f"99999{i}").status_code for i in range(5)] == [401] * 4 + [429]


def test_one_address_is_locked_out_alone(app, clock):
    client = app.test_client()
    for _ in range(4):
        assert post(client, "10.0.2.1", "000000").status_code == 401
    assert post(client, "10.0.2.1", "000000").status_code == 429
    assert post(client, "10.0.2.1", PIN).status_code == 429  # even the right PIN waits
    assert post(client, "10.0.2.2", PIN).status_code == 200  # others are not affected


def near_misses(pin: str) -> list[str]:
    """Every PIN one slip away from pin: a character cut, added or changed at each place, every
    prefix, spaces around it, and the same digits in other Unicode forms."""
    other = {c: str((int(c) + 1) % 10) for c in "0123456789"}
    misses = [pin[:i] + pin[i + 1:] for i in range(len(pin))]  # one cut
    misses += [pin[:i] + "7" + pin[i:] for i in range(len(pin) + 1)]  # one added
    misses += [pin[:i] + other[pin[i]] + pin[i + 1:] for i in range(len(pin))]  # one changed
    misses += [pin[:n] for n in range(1, len(pin))]  # a prefix
    misses += [pin + " ", " " + pin, pin + "\u00a0", pin.upper() + "0"]
    misses += [pin.translate(str.maketrans("0123456789", digits)) for digits in ("\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669")]
    return list(dict.fromkeys(m for m in misses if m != pin))


@pytest.mark.parametrize("given", near_misses(PIN))
def test_a_pin_one_slip_from_the_right_one_is_wrong(given):
    assert not pin_matches(given, PIN)
    assert pin_matches(PIN, PIN)


@pytest.mark.parametrize("given, pin", [(None, PIN), ("", PIN), (PIN, ""), (PIN, None), ("", "")])
def test_no_pin_or_no_pin_set_never_matches(given, pin):
    assert not pin_matches(given, pin)


def test_every_near_miss_over_http_is_refused_and_counted_as_a_wrong_pin(app, clock):
    client = app.test_client()
    # spaces around the PIN are not part of it on the wire: HTTP and `bearer` strip a header's ends
    for i, given in enumerate(m for m in near_misses(PIN) if m == m.strip(" ")):
        address = f"10.0.3.{i}"
        # a header can carry only Latin-1: other Unicode digits arrive as their UTF-8 bytes
        wire = given.encode("utf-8").decode("latin-1")
        answers = [post(client, address, wire).status_code for _ in range(5)]
        assert answers == [401] * 4 + [429], (given, answers)  # the fifth wrong PIN locks the address
        clock.now += 301  # a quiet window before the next address guesses, so the table does not slow down
    assert post(client, "10.0.3.250", PIN).status_code == 200


@pytest.mark.parametrize("header", ["Bearer ", "Bearer", "Basic MjQ2ODEz", PIN, f"Bearer{PIN}"])
def test_an_empty_or_malformed_authorization_is_refused_without_locking_anyone_out(app, header):
    """No PIN shown is not a guess: a phone that has not asked its player yet is told 401 each time."""
    client = app.test_client()
    for _ in range(6):
        r = client.post("/api/commands", json=ZOO, headers={"Authorization": header},
                        environ_base={"REMOTE_ADDR": "10.0.4.1"})
        assert r.status_code == 401
    assert post(client, "10.0.4.1", PIN).status_code == 200


# --- Host -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", "192.168.1.20",
                                  "PI.LAN:8000", "pi.lan."])
def test_own_names_and_addresses_are_served(app, host):
    assert app.test_client().get("/api/info", headers={"Host": host}).status_code == 200


def test_this_machines_names_are_served(app):
    name = socket.gethostname().split(".")[0]
    assert {name.lower(), f"{name.lower()}.local"} <= machine_names()
    assert app.test_client().get("/api/info", headers={"Host": f"{name}.local:8000"}).status_code == 200


@pytest.mark.parametrize("path", ["/api/state", "/api/log", "/", "/events"])
def test_a_rebinding_host_is_refused_as_json(app, path):
    r = app.test_client().get(path, headers={"Host": "attacker.example:8000"})
    assert r.status_code == 421 and r.is_json
    assert "attacker.example" in r.get_json()["error"] and "allowed_hosts" in r.get_json()["error"]


def test_a_request_without_host_is_served(table):
    """HTTP/1.0 tools may leave Host out; a browser never does, so no rebinding page can."""
    from web.serve import ServerThread

    app = create_app({"TABLE": table})
    with ServerThread(app) as srv, socket.create_connection(("127.0.0.1", int(srv.port)), timeout=5) as s:
        s.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
        assert s.makefile("rb").readline().split()[1] == b"200"


def test_the_check_can_be_switched_off(table):
    app = create_app({"TABLE": table, "ALLOWED_HOSTS": "*"})
    assert app.test_client().get("/api/info", headers={"Host": "anything.example"}).status_code == 200


def test_allowed_hosts_come_from_the_config_file(tmp_path, table):
    from companion.config import load_settings, read_config

    path = tmp_path / "companion.toml"
    path.write_text('[companion]\nhost = "192.168.1.5"\nallowed_hosts = "pi.lan, table.home"\n')
    settings = load_settings(read_config(path))
    assert settings.host_names() == ["192.168.1.5", "pi.lan", "table.home"]
    client = create_app({"TABLE": table, "ALLOWED_HOSTS": settings.host_names()}).test_client()
    assert client.get("/api/info", headers={"Host": "table.home:8000"}).status_code == 200
    assert client.get("/api/info", headers={"Host": "pi.lan.attacker.example"}).status_code == 421
