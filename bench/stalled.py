"""Phones that stay connected but stop reading (a phone put to sleep with the page open), while the
game goes on: what the companion keeps for them, and what they get when they read again.

    python bench/stalled.py [--phones 3] [--moves 3000]

Prints the server's memory, the temporary files its web server spilled to, the live streams it
still counts, and the bytes each phone receives once it reads again and whether its stream then
ended (the page reconnects and gets the state as it is). Figures are for this machine.
"""

from __future__ import annotations

import argparse
import os
import select
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.process import CompanionProcess  # noqa: E402

NAMES = ["A" * 40, "B" * 40, "C" * 40]  # long names: larger states, fewer moves to fill the buffers


def quiet_phone(port: int) -> socket.socket:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a sleeping phone's small window
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return s


def read_again(phones: list[socket.socket], seconds: float = 10.0) -> tuple[list[int], int]:
    """(bytes each phone receives reading again, how many of their streams ended meanwhile)."""
    got, ended = [0] * len(phones), set()
    for p in phones:
        p.setblocking(False)
    end = time.monotonic() + seconds
    while time.monotonic() < end and len(ended) < len(phones):
        ready, _, _ = select.select(phones, [], [], 0.2)
        for p in ready:
            chunk = p.recv(1 << 20)
            i = phones.index(p)
            if chunk:
                got[i] += len(chunk)
            else:
                ended.add(i)
    return got, len(ended)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phones", type=int, default=3)
    ap.add_argument("--moves", type=int, default=3000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc = CompanionProcess(Path(tmp) / "home").start()
        try:
            proc.request("POST", "/api/commands", {"cmd": "new_game", "game": "zoo", "players": NAMES}, auth=True)
            phones = [quiet_phone(proc.port) for _ in range(args.phones)]
            time.sleep(0.5)  # connected before the moves
            for i in range(args.moves):
                cmd = {"cmd": "kill", "player": NAMES[0], "count": 1} if i % 2 == 0 else {"cmd": "undo"}
                proc.request("POST", "/api/commands", cmd, auth=True)
            pid = proc.proc.pid
            rss = int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0]) // 1024
            spilled = [os.readlink(f"/proc/{pid}/fd/{f}") for f in os.listdir(f"/proc/{pid}/fd")]
            spilled = [f for f in spilled if f.startswith("/tmp/") and f.endswith("(deleted)")]
            _, health = proc.request("GET", "/healthz")
            print(f"{args.phones} phones not reading, {args.moves} moves: server {rss} MB, "
                  f"{len(spilled)} temporary files spilled, {health['streams']} streams counted")
            got, ended = read_again(phones)
            print(f"reading again: {', '.join(f'{g / 1e6:.1f}' for g in got)} MB each; "
                  f"{ended} of {args.phones} streams ended (the page then reconnects)")
            for p in phones:
                p.close()
        finally:
            proc.stop()


if __name__ == "__main__":
    main()
