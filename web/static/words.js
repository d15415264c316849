/* Words for people: a refused command as a sentence about the game, the moments worth a banner.
   The API's error keeps the technical detail for scripts; the page decides from the command and the
   engine's answers in the state (`legal`, `over`, `can_undo`, the counts), never from the rules. */
"use strict";

(function (TC) {
  const t = (text, params) => (TC.t ? TC.t(text, params) : text);
  const legalOf = (s, cmd) => ((s && s.legal) || []).filter((m) => m.cmd === cmd);
  const living = (s, name) => {
    const p = ((s && s.players) || []).find((x) => x.name === name);
    return p && p.alive !== false && !p.eliminated;
  };
  const lockName = (key) => (TC.lockName ? TC.lockName(key) : key);

  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  /* Where a command came from, for the end of a sentence. */
  TC.sourceWords = function (source) {
    return { panel: t("from panel"), web: t("from a phone"), cli: t("from the command line"),
      camera: t("from the camera"), import: t("from an import") }[source] || (source ? t("from {source}", { source }) : "");
  };

  /* The engine's reason without JSON, parentheses of command names or examples: the fallback. */
  TC.plainReason = function (error) {
    let text = String(error || "");
    text = text.replace(/\s*\(e\.g\.[^)]*\)/g, "");
    text = text.replace(/\{[^{}]*\}/g, "").replace(/\([a-z_]+\)/g, "");
    text = text.replace(/^\s*[:;,.]\s*/, "").replace(/\s+([;:,.])/g, "$1").replace(/\s{2,}/g, " ").trim();
    text = text.replace(/^is not possible now;\s*/, "");
    if (!text) return t("The companion did not take that move.");
    return text.charAt(0).toUpperCase() + text.slice(1);
  };

  function zombee(c, s) {
    const who = c.player || s.pending || s.active;
    const totals = (TC.info && TC.info.flower_totals) || {};
    const flips = legalOf(s, "flip");
    switch (c.cmd) {
      case "flip": {
        if (!flips.length) {
          if (legalOf(s, "choose").length) return t("{name} must first choose who turns over the next flower.", { name: s.pending });
          return t("No flower is owed now: {name} is rolling the dice.", { name: s.active });
        }
        if (c.player && c.player !== s.pending) return t("It is {name}'s flower to turn over, not {other}'s.", { name: s.pending, other: c.player });
        if (c.result === "bee") return t("{name} can't turn over a bee now: all {n} bees are face up.", { name: who, n: totals.bee });
        if (c.result === "question") return t("{name} can't turn over a question mark now: all {n} are face up.", { name: who, n: totals.question });
        return null;
      }
      case "roll":
        if (flips.length) return t("{name} must turn over a flower before anyone rolls.", { name: s.pending });
        if (legalOf(s, "choose").length) return t("{name} must first choose who turns over the next flower.", { name: s.pending });
        return rollWords(c, s);
      case "stop":
        if (!legalOf(s, "stop").length && s.phase === "roll") return t("{name} has not rolled yet.", { name: s.active });
        if (!legalOf(s, "stop").length) return t("Nobody is rolling now, so there is nothing to stop.");
        return null;
      case "choose":
        if (!legalOf(s, "choose").length) return t("Nobody is choosing a player now.");
        return t("{name} can't name {other}.", { name: s.pending, other: c.player });
      default:
        return null;
    }
  }

  /* A roll with the wrong number of dice: how many are thrown now is what the engine lists (a first
     roll throws every die, `dice` in /api/info; a later one the dice picked up). */
  function rollWords(c, s) {
    const rolls = legalOf(s, "roll");
    if (!rolls.length) return null;
    const first = rolls.some((m) => !m.reroll);
    const faces = Array.isArray(c.faces) ? c.faces.length : 0;
    const dice = TC.info && TC.info.dice;
    if (first && c.reroll) {
      return t("{name} has not rolled yet: the first roll throws all {n} dice.", { name: s.active, n: dice });
    }
    if (first && faces !== dice) {
      return t("The first roll throws all {n} dice: enter what each of them shows.", { n: dice });
    }
    if (c.reroll && faces !== c.reroll.length) {
      return TC.tn("One die was picked up, so enter one face.", "{n} dice were picked up, so enter {n} faces.",
        c.reroll.length);
    }
    if (c.reroll) return t("The rules don't let {name} pick up those dice together.", { name: s.active });
    return null;
  }

  /* A new game refused: too few or too many players, a name twice or too long (the numbers: /api/info). */
  function newGame(c) {
    const info = TC.info || {};
    const names = Array.isArray(c.players) ? c.players.map((n) => String(n).trim()) : [];
    const seats = (info.players || {})[c.game];
    const game = c.game === "zoo" ? "Zombie Zoo" : "ZomBee";
    if (!names.length) return t("Type the players' names first, with a comma between them.");
    if (seats && (names.length < seats.min || names.length > seats.max)) {
      return TC.tn("{game} is for {min} to {max} players, and one name was typed.",
        "{game} is for {min} to {max} players, and {n} names were typed.", names.length,
        { game, min: seats.min, max: seats.max });
    }
    const long = names.find((n) => info.name_chars && n.length > info.name_chars);
    if (long) {
      const shown = long.slice(0, 16);
      return t("“{name}…” is too long: a name has at most {n} characters.", { name: shown, n: info.name_chars });
    }
    const folded = names.map((n) => n.toLocaleLowerCase());
    const again = folded.findIndex((f, i) => folded.indexOf(f) !== i);
    if (again >= 0) {
      const name = names[folded.indexOf(folded[again])];
      return t("Each player needs a name of their own: {name} is there twice.", { name });
    }
    return null;
  }

  function zoo(c, s) {
    const p = c.player;
    const hero = ((s && s.players) || []).find((x) => x.name === p);
    if (p && hero && !living(s, p)) return t("{name} is out of the game.", { name: p });
    switch (c.cmd) {
      case "kill": {
        if (!Number.isInteger(c.count) || c.count < 1)
          return t("Type how many zombies {name} killed: a whole number, 1 or more.", { name: p });
        const most = legalOf(s, "kill").filter((m) => m.player === p).map((m) => m.count && m.count.max)[0];
        if (most && c.count > most) return t("{name} can take at most {n} kills at once.", { name: p, n: most });
        return null;
      }
      case "life":
        if (c.delta < 0 && hero && hero.bullets > 0 && -c.delta >= hero.life)
          return t("{name} must spend every bullet before losing the last life.", { name: p });
        if (c.delta < 0 && hero) return t("{name} has only {n} life.", { name: p, n: hero.life });
        return null;
      case "bullets":
        if (c.delta < 0 && hero && !hero.bullets) return t("{name} has no bullets left.", { name: p }); // not "only 0"
        if (c.delta < 0 && hero) {
          return TC.tn("{name} has only 1 bullet.", "{name} has only {n} bullets.", hero.bullets, { name: p });
        }
        return null;
      case "collect_lock": {
        const where = s.locks && s.locks[c.lock];
        if (where && where !== "60:00" && where !== "30:00") return t("{lock} is not on the board any more.", { lock: lockName(c.lock) });
        return null;
      }
      case "animals_cleared":
        if (!legalOf(s, "animals_cleared").length) return t("The animals can only be cleared once no lock is left on the board.");
        return null;
      default:
        return null;
    }
  }

  /* A refusal as a sentence: {error, source, command} from /events or a 400 answer, with the state on screen. */
  TC.refusalWords = function (error, command, state, words) {
    const c = command || {};
    const s = state || null;
    // The panel's own refusal is a sentence already; its words (hw/mapping.py) say it in the page's language.
    if (c.button && words && words.template) return capital(t(words.template, words.args));
    if (c.button) return TC.plainReason(error);
    if (c.cmd === "undo" && s && !s.can_undo) return t("There is nothing to undo.");
    if (s && s.over && c.cmd !== "new_game" && c.cmd !== "undo") return t("The game is over: start a new one, or undo the last move.");
    let said = null;
    try {
      if (c.cmd === "new_game") said = newGame(c);
      else if (s && s.game === "zombee") said = zombee(c, s);
      else if (s && s.game === "zoo") said = zoo(c, s);
    } catch (err) {
      said = null;
    }
    return said || TC.plainReason(error);
  };

  /* The events that deserve a banner (a moment everyone at the table should notice). */
  const MOMENTS = ["zombee_revealed", "player_out", "game_won", "game_over", "tournament_over", "round",
    "locks_advanced", "lock_collected", "last_lock", "animals_cleared", "resumed"];
  const BIG = ["zombee_revealed", "player_out", "game_won", "game_over", "tournament_over"];
  TC.moments = function (events) {
    const picked = (events || []).filter((e) => MOMENTS.includes(e.kind));
    return { texts: picked.map((e) => TC.eventText(e)), big: picked.some((e) => BIG.includes(e.kind)),
      kinds: picked.map((e) => e.kind) };
  };
})(window.TC);
