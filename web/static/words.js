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
        if (legalOf(s, "roll").length && c.reroll) return t("The rules don't let {name} pick up those dice together.", { name: s.active });
        return null;
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

  function zoo(c, s) {
    const p = c.player;
    const hero = ((s && s.players) || []).find((x) => x.name === p);
    if (p && hero && !living(s, p)) return t("{name} is out of the game.", { name: p });
    switch (c.cmd) {
      case "kill":
        if (!Number.isInteger(c.count) || c.count < 1)
          return t("Type how many zombies {name} killed: a whole number, 1 or more.", { name: p });
        return null;
      case "life":
        if (c.delta < 0 && hero && hero.bullets > 0 && -c.delta >= hero.life)
          return t("{name} must spend every bullet before losing the last life.", { name: p });
        if (c.delta < 0 && hero) return t("{name} has only {n} life.", { name: p, n: hero.life });
        return null;
      case "bullets":
        if (c.delta < 0 && hero) return t("{name} has only {n} bullets.", { name: p, n: hero.bullets });
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
  TC.refusalWords = function (error, command, state) {
    const c = command || {};
    const s = state || null;
    if (c.button) return TC.plainReason(error); // the panel's own refusal is already a sentence
    if (c.cmd === "undo" && s && !s.can_undo) return t("There is nothing to undo.");
    if (s && s.over && c.cmd !== "new_game" && c.cmd !== "undo") return t("The game is over: start a new one, or undo the last move.");
    let said = null;
    try {
      if (s && s.game === "zombee") said = zombee(c, s);
      if (s && s.game === "zoo") said = zoo(c, s);
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
