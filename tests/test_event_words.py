"""Every sentence the engine tells the page can be said in German: each event carries its
template and values (companion/events.py), and the German catalogue has every template."""

from __future__ import annotations

import re
import string

import pytest
from babel.messages.mofile import read_mo

from companion.engine import Engine
from companion.events import Event, render
from companion.simulate import random_zombee_game
from web.catalogs import TRANSLATIONS


@pytest.fixture(scope="module")
def german():
    with open(TRANSLATIONS / "de" / "LC_MESSAGES" / "messages.mo", "rb") as f:
        return {(m.id if isinstance(m.id, str) else tuple(m.id)): m.string for m in read_mo(f) if m.id}


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def check(event: Event, german: dict) -> None:
    assert event.template, f"{event.kind} event without a template: {event.text!r}"
    assert render(event.template, event.args) == event.text
    for template, args in phrases(event.template, event.args):
        assert template in german, f"no German for {template!r}"
        assert placeholders(german[template]) == placeholders(template) <= set(args), template
        for value in args.values():
            for word in value if isinstance(value, list) else []:
                if isinstance(word, str):
                    assert word in german, f"no German for the word {word!r}"


def phrases(template, args):
    yield template, args
    for value in args.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                yield from phrases(item["template"], item["args"])


def play(first, *commands):
    engine = Engine(first)
    events = []
    for cmd in commands:
        events += engine.apply(cmd)
    return engine, events


@pytest.mark.parametrize("seed, players, variant", [(1, 2, "standard"), (2, 5, "standard"), (3, 3, "tournament")])
def test_every_zombee_event_of_whole_games_has_german_words(german, seed, players, variant):
    log = random_zombee_game(seed, players=players, variant=variant, undo_chance=0.05)
    _, events = play(log[0], *log[1:])
    assert {"roll", "turn", "zombee_revealed", "undo"} <= {e.kind for e in events}
    for event in events:
        check(event, german)


def kill(p, n=1):
    return {"cmd": "kill", "player": p, "count": n}


def test_every_zoo_event_of_a_whole_game_has_german_words(german):
    _, events = play(
        {"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben", "Cat", "Dan"]},
        kill("Ann", 2), {"cmd": "collect_lock", "player": "Ben", "lock": "tiger_trail"}, kill("Cat", 4),
        {"cmd": "life", "player": "Dan", "delta": -2}, kill("Ann", 4), {"cmd": "bullets", "player": "Dan", "delta": -3},
        {"cmd": "collect_lock", "player": "Cat", "lock": "hyena_hideout"}, kill("Dan", 5), kill("Cat", 2),
        {"cmd": "bullets", "player": "Dan", "delta": -2}, {"cmd": "life", "player": "Dan", "delta": -3},
        {"cmd": "bullets", "player": "Ben", "delta": 1}, kill("Ben"), {"cmd": "life", "player": "Ann", "delta": -2},
        {"cmd": "life", "player": "Ann", "delta": 3}, {"cmd": "animals_cleared"},
    )
    kinds = {e.kind for e in events}
    assert {"locks_advanced", "lock_collected", "last_lock", "player_out", "game_over", "life", "bullets"} <= kinds
    for event in events:
        check(event, german)


def test_an_event_travels_with_its_words_and_keeps_its_english_text():
    _, events = play({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, kill("Ann", 3))
    raw = events[0].to_dict()
    assert raw["text"] == "Ann killed 3 Zombies (3 in all)."
    assert raw["template"] == "{name} killed {count} Zombies ({kills} in all)."
    assert raw["args"] == {"name": "Ann", "count": 3, "kills": 3}
    assert Event.from_dict(raw) == events[0]


def test_the_german_templates_read_as_german(german):
    assert german["{name} rolled {faces} (roll {roll} of {rolls})."].startswith("{name} würfelt")
    assert german["honey"] == "Honigtropfen" and german["Locks"] == "Schlösser" and german["Bullets"] == "Kugeln"
    assert not [k for k, v in german.items() if isinstance(v, str) and re.search(r"\{\w+\}", k) and v == k]


def german_text(template, args, german):
    """An event's sentence as the German page fills it in (web/static/i18n.js)."""
    def word(value):
        if isinstance(value, list):
            return ("; " if value and isinstance(value[0], dict) else ", ").join(word(v) for v in value)
        if isinstance(value, dict):
            return german_text(value["template"], value["args"], german)
        return german.get(value, str(value)) if isinstance(value, str) else str(value)
    return german[template].format(**{k: word(v) for k, v in args.items()})


def test_the_lock_steps_and_the_last_lock_are_said_in_words_without_codes(german):
    locks = [{"cmd": "collect_lock", "player": "Ben", "lock": lock} for lock in ("tiger_trail", "lions_den")]
    last = {"cmd": "collect_lock", "player": "Cat", "lock": "polar_bears"}
    _, events = play({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben", "Cat"]}, kill("Ann", 6), *locks, last,
                     kill("Cat", 6))
    said = [e.text for e in events if e.kind in ("locks_advanced", "last_lock")]
    # It read "Tiger Trail 60:00 -> 30:00; Lions' Den 60:00 -> 30:00; ..." and "... off the board (animals_cleared)."
    assert said == ["Ann reached 6 kills, so the release clock runs: the timers of all 4 locks on the board move "
                    "from 60:00 to 30:00.",
                    "Cat reached 6 kills, so the release clock runs: Hyena Hideout opens (fill its cage with Zombie "
                    "Hyenas).",
                    "No lock is left on the board: play on until one player is left or every Zombie Gorilla and "
                    "Monkey is off the board."]
    first = next(e for e in events if e.kind == "locks_advanced")
    assert german_text(first.template, first.args, german) == (
        "Ann hat 6 Zombies erlegt, die Freilassungs-Uhr läuft: die Uhren aller 4 Schlösser auf dem Spielplan "
        "springen von 60:00 auf 30:00.")
    # One lock left on the board: its own name.
    _, events = play({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben"]}, *locks,
                     {"cmd": "collect_lock", "player": "Ann", "lock": "polar_bears"}, kill("Ann", 6))
    assert events[-1].text.endswith("runs: the timer of Hyena Hideout moves from 60:00 to 30:00.")
    for event in events:
        check(event, german)


def in_german(template, args, german):
    """The sentence as a German page says it: each phrase translated on its own, as web/static/i18n.js does."""
    def word(value):
        if isinstance(value, dict):
            return in_german(value["template"], value["args"], german)
        if isinstance(value, list):
            return ("; " if value and isinstance(value[0], dict) else ", ").join(word(v) for v in value)
        return str(value)
    return german.get(template, template).format(**{k: word(v) for k, v in args.items()})


def test_a_shared_zoo_win_names_the_winners_in_german(german):
    # "Spielende: Ben and Cat teilen sich den Sieg": the names were joined with an English "and".
    locks = ["tiger_trail", "lions_den", "hyena_hideout", "polar_bears"]
    _, events = play({"cmd": "new_game", "game": "zoo", "players": ["Ann", "Ben", "Cat"]},
                     *[{"cmd": "collect_lock", "player": p, "lock": lock} for p, lock in zip(["Ben", "Cat"] * 2, locks)],
                     {"cmd": "animals_cleared"})
    over = next(e for e in events if e.kind == "game_over")
    assert "Ben and Cat share the win" in over.text
    said = in_german(over.template, over.args, german)
    assert "Ben und Cat" in said and " and " not in said, said
