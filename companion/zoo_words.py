"""The Zoo's words: the locks' and cages' names, counts and lists as its events say them (events.phrase,
so that a page can say them in German)."""

from __future__ import annotations

from .events import N_, phrase

LOCK_NAMES = {
    "tiger_trail": N_("Tiger Trail"),
    "lions_den": N_("Lions' Den"),
    "hyena_hideout": N_("Hyena Hideout"),
    "polar_bears": N_("Polar Bears"),
}
CAGE_ANIMALS = {
    "tiger_trail": N_("Zombie Tigers"),
    "lions_den": N_("Zombie Lions"),
    "hyena_hideout": N_("Zombie Hyenas"),
    "polar_bears": N_("Zombie Polar Bears"),
}


def counted(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def points_said(n: int) -> dict:
    return phrase(N_("1 point") if n == 1 else N_("{n} points"), n=n)


def bullets_said(n: int) -> dict:
    return phrase(N_("1 bullet") if n == 1 else N_("{n} bullets"), n=n)


def timer_steps(timers: list[tuple[str, str, str]], moving: int) -> list[dict]:
    """The locks' timers moving on, in words (they used to read "Tiger Trail 60:00 -> 30:00").

    Every lock on the board steps together, so the usual step is one phrase for all of them.
    """
    if len(timers) > 1 and len(timers) == moving and len({(b, a) for _, b, a in timers}) == 1:
        _, before, after = timers[0]
        return [phrase(N_("the timers of all {n} locks on the board move from {before} to {after}"), n=len(timers),
                       before=before, after=after)]
    return [phrase(N_("the timer of {lock} moves from {before} to {after}"), lock=phrase(LOCK_NAMES[lock]),
                   before=before, after=after) for lock, before, after in timers]


def listed(names: list[str]) -> str:
    return ", ".join(names) if names else "none"


def joined(names: list[str]) -> str | dict:
    """Names as a sentence lists them ("Ben, Cat and Eve"): a phrase, so a German page says "und"."""
    return names[0] if len(names) == 1 else phrase(N_("{names} and {last}"), names=", ".join(names[:-1]),
                                                   last=names[-1])
