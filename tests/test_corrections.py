"""Corrections teach: a roll the camera read and a phone corrected keeps its dice, never otherwise."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from companion.notices import DiceStatus, NoticeKind
from table_companion.corrections import CorrectionWatcher
from table_companion.demo import demo_camera
from vision.teach.captures import DiceStore
from vision.reader import DiceReader

SPOTS = [(100, 100, 0.1), (300, 120, 0.5), (500, 300, 1.0), (200, 350, 0.3), (420, 180, 0.7)]


@pytest.fixture
def rig(table, tmp_path):
    camera = demo_camera()
    camera.realtime = False
    camera.placed = [(f, *s) for f, s in zip(["bee", "honey", "zzz", "zombee", "bee"], SPOTS)]
    _, frame = camera.read()
    reading = DiceReader().read(frame)
    assert sorted(reading.faces) == ["bee", "bee", "honey", "zombee", "zzz"]
    watcher = SimpleNamespace(last_read=(frame, reading))
    store = DiceStore(tmp_path / "dice")
    table.submit({"cmd": "new_game", "game": "zombee", "players": ["Tom", "Mia"]}, "cli")
    sub = table.subscribe()
    sub.get(1)
    keeper = CorrectionWatcher(table, watcher, store)

    def run(command, source):
        table.submit(command, source)
        while (message := sub.get(0.2)) is not None:
            keeper.on_message(message)

    return SimpleNamespace(table=table, store=store, reading=reading, run=run, keeper=keeper)


def corrected(faces, k, face):
    out = list(faces)
    out[k] = face
    return out


def test_an_undone_camera_roll_corrected_on_a_phone_keeps_the_dice(rig):
    faces = rig.reading.faces
    rig.run({"cmd": "roll", "faces": faces}, "camera")
    rig.run({"cmd": "undo"}, "web")
    k = faces.index("honey")
    rig.run({"cmd": "roll", "faces": corrected(faces, k, "zzz")}, "web")
    assert rig.store.pending_dice() == 5
    kept = rig.store.pending()[0][1]["dice"]
    assert [d["face"] for d in kept] == corrected(faces, k, "zzz")


def test_a_roll_entered_after_check_the_dice_keeps_them(rig):
    faces = rig.reading.faces
    rig.keeper.on_message({"type": "notice", "kind": NoticeKind.DICE, "status": DiceStatus.CHECK,
                           "text": "Check the dice", "seen": faces})
    rig.run({"cmd": "roll", "faces": corrected(faces, faces.index("zombee"), "bee")}, "web")
    assert rig.store.pending_dice() == 5


def test_nothing_is_kept_silently(rig):
    faces = rig.reading.faces
    rig.run({"cmd": "roll", "faces": faces}, "camera")
    rig.run({"cmd": "stop"}, "web")  # the game went on: the camera's roll stood
    rig.run({"cmd": "undo"}, "web")
    rig.run({"cmd": "undo"}, "web")
    rig.run({"cmd": "roll", "faces": corrected(faces, faces.index("honey"), "zzz")}, "web")
    assert rig.store.pending_dice() == 0  # the roll undone was not the camera's last word
    rig.run({"cmd": "undo"}, "web")
    rig.run({"cmd": "roll", "faces": faces}, "camera")
    rig.run({"cmd": "undo"}, "web")
    rig.run({"cmd": "roll", "faces": corrected(corrected(faces, 0, "zzz"), faces.index("honey"), "zombee")}, "web")
    assert rig.store.pending_dice() == 0  # two dice changed to different faces: which is which is a guess
