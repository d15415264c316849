"""The camera's question over HTTP: every phone reads it and the die's crop, one answer with the PIN enters
the roll, a second one that contradicts it is refused with the reason, bad answers name what was wrong."""

from __future__ import annotations

import pytest

from vision.doubt import Asking
from web import create_app

from test_vision_doubt import BETWEEN, frame, reading

PIN = "864209"
AUTH = {"Authorization": f"Bearer {PIN}"}


@pytest.fixture
def client(table):
    table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "web")
    asking = Asking(table)
    asking.ask(frame(), reading(doubts={2: BETWEEN}), {"cmd": "roll", "faces": ["bee", "bee", "unknown", "zzz", "zombee"]},
               (2,), table.state())
    return create_app({"TABLE": table, "PIN": PIN, "ASKING": asking}).test_client()


def test_every_phone_sees_the_question_and_the_die_uncached(client):
    question = client.get("/api/camera/doubt").get_json()["question"]
    assert question["questions"] == [{"die": 3, "faces": ["honey", "zzz"], "answer": None}]
    crop = client.get("/api/camera/doubt/3.jpg")
    assert crop.mimetype == "image/jpeg" and crop.data[:2] == b"\xff\xd8"
    assert crop.headers["Cache-Control"] == "no-store"
    assert client.get("/api/camera/doubt/9.jpg").status_code == 404


def test_the_answer_enters_the_roll_and_a_second_one_is_refused_with_the_first(client):
    ident = client.get("/api/camera/doubt").get_json()["question"]["id"]
    assert client.post("/api/camera/doubt", json={"die": 3, "face": "honey", "question": ident}).status_code == 401
    r = client.post("/api/camera/doubt", json={"die": 3, "face": "honey", "question": ident}, headers=AUTH)
    assert r.status_code == 200 and r.get_json()["state"]["last_roll"] == ["bee", "bee", "honey", "zzz", "zombee"]
    assert client.get("/api/camera/doubt").get_json()["question"] is None  # gone from every phone
    late = client.post("/api/camera/doubt", json={"die": 3, "face": "zzz", "question": ident}, headers=AUTH)
    assert late.status_code == 409
    assert "die 3 was already answered as honey and the roll entered" in late.get_json()["error"]
    assert client.get("/api/state").get_json()["seq"] == 2  # entered once


@pytest.mark.parametrize("body, says", [
    ({"die": 4, "face": "honey"}, "die 4 was not asked about; the question is about die 3"),
    ({"die": "3", "face": "honey"}, 'die "3" was not asked about'),
    ({"die": 3, "face": "dragon"}, '"dragon" is not a face of this game\'s dice; faces are bee, honey, zzz, zombee'),
    ({"die": 3, "face": "honey", "colour": "red"}, 'unknown key "colour"'),
])
def test_a_bad_answer_is_400_naming_what_was_wrong_and_changes_nothing(client, body, says):
    r = client.post("/api/camera/doubt", json=body, headers=AUTH)
    assert r.status_code == 400 and says in r.get_json()["error"]
    assert client.get("/api/camera/doubt").get_json()["question"] is not None
    assert client.get("/api/state").get_json()["rolls"] == 0


def test_an_answer_to_an_older_question_is_refused(client):
    r = client.post("/api/camera/doubt", json={"die": 3, "face": "honey", "question": 999}, headers=AUTH)
    assert r.status_code == 409 and "no longer open" in r.get_json()["error"]


def test_without_a_camera_nothing_is_asked(table):
    client = create_app({"TABLE": table, "PIN": PIN}).test_client()
    assert client.get("/api/camera/doubt").get_json() == {"question": None}
    assert client.post("/api/camera/doubt", json={"die": 1, "face": "bee"}, headers=AUTH).status_code == 404
