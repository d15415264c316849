"""A short, human summary of a game state, for the terminal."""

from __future__ import annotations


def summarize(state: dict) -> str:
    if state["game"] == "zombee":
        return _zombee(state)
    return _zoo(state)


def _zombee(s: dict) -> str:
    lines = [f"ZomBee ({s['variant']})"]
    for p in s["players"]:
        mark = "  (out)" if p["eliminated"] else ""
        green = f", {p['green']} green" if s["variant"] == "tournament" else ""
        turn = " <- active" if p["name"] == s["active"] else ""
        lines.append(f"  {p['name']:<12} honey {p['honey']}{green}{mark}{turn}")
    f = s["flowers"]
    lines.append(f"  flowers: {f['face_down']} face down, {f['bee']} bee and {f['question']} question face up; "
                 f"ZomBee next: {s['odds']['zombee_next_flip']:.1%}")
    if s["over"]:
        what = "tournament" if s["variant"] == "tournament" else "game"
        lines.append(f"  the {what} is over: {s['winner']} wins")
    else:
        dice = ", ".join(s["kept"] + s["last_roll"]) or "none yet"
        lines.append(f"  dice (roll {s['rolls']}): {dice}")
        lines.append(f"  {s['pending']} must {_verb(s['phase'])}")
    return "\n".join(lines)


def _verb(phase: str) -> str:
    return {"roll": "roll or stop", "flip": "turn over a flower", "choose": "choose who flips"}.get(phase, phase)


def _zoo(s: dict) -> str:
    lines = ["Zombies!!! 12: Zombie Zoo"]
    for p in s["players"]:
        mark = "" if p["alive"] else "  (out)"
        locks = ", ".join(p["locks"]) or "no locks"
        lines.append(f"  {p['name']:<12} kills {p['kills']}, life {p['life']}, bullets {p['bullets']}, "
                     f"{locks}, score {p['score']}{mark}")
    lines.append("  locks: " + ", ".join(f"{k} {v}" for k, v in s["locks"].items()))
    if s["over"]:
        lines.append(f"  the game is over: {' and '.join(s['winners'])} {'win' if len(s['winners']) > 1 else 'wins'}")
    elif s.get("next_release_in") is not None:
        lines.append(f"  next lock step in {s['next_release_in']} kills")
    return "\n".join(lines)
