"""Writing a file whole or not at all (companion.files): the old file survives a full card, and the
error names the file and the room left."""

from __future__ import annotations

import errno
import os
import stat
from types import SimpleNamespace

import pytest

import companion.files
from companion.errors import CompanionError
from companion.files import WriteError, free_space, size_words, write_atomic


def test_a_write_replaces_the_file_whole_and_leaves_nothing_beside_it(tmp_path):
    path = tmp_path / "sub" / "notes.json"
    write_atomic(path, b"first")
    write_atomic(path, b"second", mode=0o600)
    assert path.read_bytes() == b"second" and os.listdir(path.parent) == ["notes.json"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_full_card_keeps_the_old_file_and_says_which_file_and_how_much_room(tmp_path, monkeypatch):
    path = tmp_path / "model.npz"
    path.write_bytes(b"the old one")
    real = os.write

    def half_then_full(fd, data):
        real(fd, bytes(data[:3]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(companion.files.os, "write", half_then_full)
    with pytest.raises(WriteError) as caught:
        write_atomic(path, b"the new one", disk_usage=lambda p: SimpleNamespace(free=16 * 1024))
    exc = caught.value
    assert isinstance(exc, OSError) and isinstance(exc, CompanionError) and exc.errno == errno.ENOSPC and exc.full
    assert str(exc) == f"cannot write {path}: No space left on device (16 KB free)"
    assert exc.words("tap Finish again") == ("The memory card is full (16 KB free); delete old game exports or "
                                             "photos, then tap Finish again")
    assert path.read_bytes() == b"the old one" and os.listdir(tmp_path) == ["model.npz"]


def test_a_missing_folder_of_the_users_is_not_made_when_asked_not_to(tmp_path):
    with pytest.raises(WriteError, match="No such file or directory") as caught:
        write_atomic(tmp_path / "typo" / "game.jsonl", b"x", parents=False)
    assert not caught.value.full and "check the memory card" in caught.value.words("try again")


@pytest.mark.parametrize("n, words", [(None, "unknown"), (16 * 1024, "16 KB"), (3_355_443, "3.2 MB"),
                                      (3 << 30, "3.0 GB")])
def test_sizes_in_words(n, words):
    assert size_words(n) == words


def test_free_space_is_asked_of_the_nearest_folder_that_exists(tmp_path):
    asked = []
    assert free_space(tmp_path / "not" / "yet", lambda p: asked.append(p) or SimpleNamespace(free=7)) == 7
    assert asked == [tmp_path]
