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
