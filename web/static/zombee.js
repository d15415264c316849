/* ZomBee: players and their honey, the dice, the flowers, who must act now. */
"use strict";

(function (TC) {
  const { el, $, clear, icon, die, possessive } = TC;
  function headline(s) {
    if (s.over && s.variant === "tournament") return [TC.t("{name} wins the tournament!", { name: s.winner }), TC.t("Start a new game under Overrides.")];
    if (s.over) return [TC.t("{name} wins!", { name: s.winner }), TC.t("The last player with honey. Start a new game under Overrides.")];
    const main = TC.t("{whose} turn", { whose: possessive(s.active), name: s.active });
    const owed = s.owed || [];
    if (TC.legalOf(s, "flip").length && owed.length > 1)
      return [main, TC.t("Now: {name} turns over a flower ({n} flowers owed)", { name: s.pending, n: owed.length })];
    if (TC.legalOf(s, "flip").length) return [main, TC.t("Now: {name} turns over a flower", { name: s.pending })];
    if (TC.legalOf(s, "choose").length) return [main, TC.t("Now: {name} chooses who turns over the next flower", { name: s.pending })];
    if (s.rolls === 0) return [main, TC.t("Now: {name} rolls all {n} dice", { name: s.active, n: TC.info.dice })];
    return [main, TC.t("Now: {name} rolls again or stops (roll {roll} of {rolls} done)", { name: s.active, roll: s.rolls, rolls: TC.info.max_rolls })];
  }

  function drops(kind, count, label) {
    const box = el("span", { class: "drops", role: "img", "aria-label": `${count} ${label}` }); // read as one
    for (let i = 0; i < count; i++) box.append(icon(kind, 26));
    // None held still shows its drop, faded: a bare "0" beside the honey said nothing (a 0 of what?).
    if (!count) box.append(Object.assign(icon(kind, 26), { className: `icon icon-${kind} none` }));
    // On a narrow phone the word gives way to the name; the drops and the number stay.
    box.append(el("span", { class: "drop-count", "aria-hidden": "true" }, `${count}`,
      el("span", { class: "drop-word", text: ` ${label}` })));
    return box;
  }

  function renderPlayers(s) {
    const list = clear($("zb-players"));
    for (const p of s.players) {
      const badges = [];
      // The active player acting now wears one badge: "▶" and the headline already say whose turn it is,
      // and two badges beside the drops cut "Tom" to "T…" on a 320 px phone.
      const acts = p.name === s.pending && s.phase !== "roll";
      if (p.name === s.active && !p.eliminated && s.winner === null && !acts) badges.push(["turn", TC.t("Turn")]);
      if (acts) badges.push(["acts", TC.t("Acts now")]);
      if (p.eliminated) badges.push(["out", TC.t("Out")]);
      if (p.name === s.winner) badges.push(["winner", TC.t("Winner")]);
      const classes = ["player"];
      if (p.name === s.active) classes.push("active");
      if (p.eliminated) classes.push("eliminated");
      // One line per player: the name (cut with … when long), the badges, the honey.
      list.append(el("li", { class: classes.join(" ") },
        el("span", { class: "player-name", title: p.name, text: (p.name === s.active ? "▶ " : "") + p.name }),
        el("span", { class: "badges" }, ...badges.map(([k, t]) => el("span", { class: "badge badge-" + k, text: t }))),
        el("span", { class: "player-drops" },
          drops("honey", p.honey, TC.t("honey")),
          p.green || s.variant === "tournament" ? drops("green", p.green, TC.t("green")) : null)));
    }
    let supply = TC.t("Honey left in the box: {n}", { n: s.supply.yellow });
    if (s.variant === "tournament") {
      supply += " · " + TC.t("green drops: {n}", { n: s.supply.green });
      if (s.game_winners.length) supply += " · " + TC.t("games won: {names}", { names: s.game_winners.join(", ") });
    }
    $("zb-supply").textContent = supply;
  }

  function renderDice(s) {
    const kept = clear($("zb-kept"));
    const roll = clear($("zb-roll"));
    // Set-aside dice and the last roll share one row (never more than five dice); nothing set aside, no group.
    kept.parentNode.hidden = !s.kept.length;
    for (const f of s.kept) kept.append(die(f, "kept"));
    if (!s.last_roll.length) roll.append(el("span", { class: "muted", text: s.rolls || s.over ? "—" : TC.t("not rolled yet") }));
    for (const f of s.last_roll) roll.append(die(f));
  }

  function renderFlowers(s) {
    const box = clear($("zb-flowers"));
    const f = s.flowers;
    const up = [].concat(Array(f.bee).fill("bee"), Array(f.question).fill("question"));
    for (const kind of up) {
      box.append(el("span", { class: "flower up", title: TC.LABELS[kind] }, icon(kind, 30)));
    }
    for (let i = 0; i < f.face_down; i++) {
      box.append(el("span", { class: "flower down", title: TC.t("Face down") }, icon("flower", 30)));
    }
    box.setAttribute("aria-label", TC.t("{down} flowers face down, {bee} bees and {question} question marks face up", { down: f.face_down, bee: f.bee, question: f.question }));
    $("zb-flower-text").textContent =
      TC.t("{down} face down · face up: {bee} of {bees} bees, {question} of {questions} question marks", {
        down: f.face_down, bee: f.bee, bees: TC.info.flower_totals.bee, question: f.question,
        questions: TC.info.flower_totals.question });
    const odds = s.odds && s.odds.zombee_next_flip;
    const line = $("zb-odds");
    clear(line);
    if (typeof odds === "number" && !s.over) {
      line.append(TC.t("Chance the next flower is the ZomBee:") + " ",
        el("strong", { text: TC.percent(odds) }),
        el("span", { class: "muted", text: " " + TC.t("(1 in {n})", { n: f.face_down }) }));
    }
  }

  /* Who turns the flowers still owed, in order (the first is turning now). */
  function renderOwed(s) {
    const owed = s.owed || [];
    const node = $("zb-owed");
    node.hidden = owed.length === 0;
    node.textContent = owed.length ? TC.t("Flowers owed: {names}", { names: owed.join(", ") }) : "";
  }

  TC.renderZombee = function (s) {
    const [main, sub] = headline(s);
    $("now-main").textContent = main;
    $("now-sub").textContent = sub;
    renderPlayers(s);
    renderDice(s);
    renderFlowers(s);
    renderOwed(s);
  };
})(window.TC);
