/* The ZomBee coach (a one-line tip or the table of every option), its setting,
   and what the table's dice really do. The figures come with the state (`coach`);
   the mode and the dice statistics from /api/coach and /api/dice-stats. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const NAMES = { bee: TC.t("Bee"), honey: TC.t("Honey"), zzz: "Zzz", zombee: "ZomBee" };
  const PLURALS = { bee: TC.t("Bees"), honey: TC.t("Honeys"), zzz: TC.t("Zzzs"), zombee: TC.t("ZomBees") };
  const FACES = ["bee", "honey", "zzz", "zombee"];
  let settings = null; // {mode, modes, faces, source}
  let shown = null; // the state whose coach is on screen

  const pct = (x) => TC.percent(x);
  // Decimals as the page's language writes them ("0,58" in German, TC.number).
  const num = (x) => (Math.abs(x - Math.round(x)) < 0.05 ? String(Math.round(x)) : TC.number(x, 1));
  const signed = (x) => (x > -0.005 ? "+" : "−") + TC.number(Math.abs(x), 2); // never "−0.00"
  const p3 = (p) => TC.number(p, { maximumSignificantDigits: 3 });

  /* "the Zzz and the ZomBee", "the 2 Bees and the Zzz" */
  function dice(reroll) {
    const parts = FACES.filter((f) => reroll.includes(f)).map((f) => {
      const n = reroll.filter((g) => g === f).length;
      return n > 1 ? TC.t("the {n} {faces}", { n, faces: PLURALS[f] }) : TC.t("the {face}", { face: NAMES[f] });
    });
    return parts.length > 1 ? parts.slice(0, -1).join(", ") + TC.t(" and ") + parts[parts.length - 1] : parts[0];
  }

  /* The one thing choosing `a` instead of `b` changes most, in words: the honey chance,
     else the player's own flowers, else the others' (the table has the rest). */
  function effects(a, b) {
    if (Math.abs(a.p_three_honey - b.p_three_honey) >= 0.05) {
      return TC.t("honey chance {before} → {after}", { before: pct(b.p_three_honey), after: pct(a.p_three_honey) });
    }
    for (const [d, own] of [[a.own_flips - b.own_flips, true], [a.others_flips - b.others_flips, false]]) {
      if (Math.abs(d) < 0.05) continue;
      const n = num(Math.abs(d));
      const one = n === "1";
      if (own && d < 0) return one ? TC.t("1 fewer flower for you on average") : TC.t("{n} fewer flowers for you on average", { n });
      if (own) return one ? TC.t("1 more flower for you on average") : TC.t("{n} more flowers for you on average", { n });
      if (d < 0) return one ? TC.t("1 fewer flower for the others on average") : TC.t("{n} fewer flowers for the others on average", { n });
      return one ? TC.t("1 more flower for the others on average") : TC.t("{n} more flowers for the others on average", { n });
    }
    return "";
  }

  function tip(c) {
    const best = c.options[c.best];
    const stop = c.options[0];
    if (c.best !== 0) {
      const why = effects(best, stop);
      return why ? TC.t("Best: roll {dice} again: {why}", { dice: dice(best.reroll), why })
        : TC.t("Best: roll {dice} again", { dice: dice(best.reroll) });
    }
    let next = null;
    c.options.forEach((o, i) => { if (i && (!next || o.value > next.value)) next = o; });
    const why = next ? effects(next, stop) : "";
    return why ? TC.t("Best: stop now (rolling {dice} again: {why})", { dice: dice(next.reroll), why }) : TC.t("Best: stop now");
  }

  function table(c) {
    const body = el("tbody");
    c.options.forEach((o, i) => {
      body.append(el("tr", { class: i === c.best ? "best" : null },
        el("th", { scope: "row", text: (i === c.best ? "★ " : "") + (o.reroll.length ? o.reroll.map((f) => NAMES[f]).join(", ") : TC.t("Stop")) }),
        el("td", { text: pct(o.p_three_honey) }), el("td", { text: TC.number(o.own_flips, 2) }),
        el("td", { text: TC.number(o.others_flips, 2) }), el("td", { text: signed(o.value) })));
    });
    return el("div", { class: "table-wrap" }, el("table", { class: "coach-table" },
      el("thead", {}, el("tr", {}, ...[TC.t("Roll again"), TC.t("3+ honey"), TC.t("Your flips"), TC.t("Others'"), TC.t("Value")].map(
        (t) => el("th", { scope: "col", text: t })))), body));
  }

  function draw() {
    const c = shown && shown.coach;
    const mode = settings ? settings.mode : "tip";
    TC.show("coach", !!c && mode !== "off");
    if (!c || mode === "off") return;
    $("coach-tip").textContent = tip(c);
    const box = clear($("coach-table"));
    if (mode === "full") box.append(table(c));
  }

  /* Called with every state shown; a state without `coach` (a command's answer) keeps what is on screen. */
  TC.renderCoach = function (state) {
    if (state && !("coach" in state) && shown && state.game_id === shown.game_id && state.seq === shown.seq) return;
    const firstRoll = state && state.rolls === 1 && (!shown || shown.seq !== state.seq);
    shown = state && state.game === "zombee" ? state : null;
    TC.show("insight", !state || state.game === "zombee"); // the coach and these dice are ZomBee's
    draw();
    if (firstRoll) loadDiceStats();
  };

  function say(text, kind) {
    const box = $("insight-msg");
    box.textContent = text;
    box.className = "ov-msg " + (kind || "");
    box.hidden = !text;
  }

  function showSettings() {
    if (!settings) return;
    for (const b of $("coach-modes").querySelectorAll("button")) {
      b.setAttribute("aria-pressed", String(b.dataset.mode === settings.mode));
    }
    const f = settings.faces;
    $("coach-faces").textContent = (settings.source === "observed" ? TC.t("The coach assumes (as the dice have shown):")
      : TC.t("The coach assumes (from the settings):")) + " " +
      FACES.map((k) => `${NAMES[k]} ${pct(f[k])}`).join(", ");
  }

  async function change(body) {
    say(TC.t("Sending…"), "pending");
    const answer = await TC.post("/api/coach", body, say);
    if (!answer) return;
    settings = answer;
    say(TC.t("Done."), "ok");
    showSettings();
    await reloadState(); // the figures shown were made with the old setting (or not at all while off)
    if ("faces" in body) loadDiceStats();
  }

  /* Another phone switched the coach (a notice on the stream): follow it. */
  TC.coachSwitched = async function () {
    try {
      settings = await (await fetch("/api/coach", { cache: "no-store" })).json();
    } catch (err) {
      return;
    }
    showSettings();
    await reloadState();
  };

  async function reloadState() {
    try {
      const response = await fetch("/api/state", { cache: "no-store" });
      if (response.ok) TC.renderCoach(await response.json());
    } catch (err) {
      /* offline: the next state brings the new figures */
    }
  }

  function diceTable(d) {
    const body = el("tbody");
    for (const f of FACES) {
      const s = d.faces[f];
      body.append(el("tr", {}, el("th", { scope: "row", text: NAMES[f] }), el("td", { text: String(s.count) }),
        el("td", { text: s.estimate === null ? "–" : pct(s.estimate) }),
        el("td", { text: `${pct(s.low)}–${pct(s.high)}` }), el("td", { text: pct(s.assumed) })));
    }
    return el("div", { class: "table-wrap" }, el("table", { class: "coach-table" },
      el("thead", {}, el("tr", {}, ...[TC.t("Face"), TC.t("Count"), TC.t("Seen"), TC.t("Interval (95%)"), TC.t("Assumed")].map(
        (t) => el("th", { scope: "col", text: t })))), body));
  }

  /* companion.dice_stats.verdict's sentence, in the page's language. */
  function verdict(d) {
    const t = d.test;
    if (!d.dice) return TC.t("No first rolls in the log yet.");
    if (!t.enough_data) return TC.t("Too few rolls to test yet ({n} dice): each face should be expected at least 5 times.", { n: d.dice });
    const p = p3(t.p_value);
    if (t.differ) {
      return TC.t("The dice differ from what the coach assumes (p = {p} < {alpha}): the coach can use the observed chances.",
        { p, alpha: TC.number(t.alpha) });
    }
    return TC.t("No evidence that the dice differ from what the coach assumes (p = {p}).", { p });
  }

  async function loadDiceStats() {
    let d;
    try {
      d = await (await fetch("/api/dice-stats", { cache: "no-store" })).json();
    } catch (err) {
      return;
    }
    settings = d.coach;
    showSettings();
    draw();
    const box = clear($("dice-stats"));
    const rolls = TC.tn("1 roll", "{n} rolls", d.rolls);
    const dice = TC.tn("1 die", "{n} dice", d.dice);
    const from = TC.t("From the first roll of each turn: {rolls}, {dice}.", { rolls, dice });
    box.append(el("p", { class: "muted", text: from }));
    if (d.dice) box.append(diceTable(d));
    const t = d.test;
    if (t.p_value !== null) {
      const x = TC.number(t.statistic, 2);
      box.append(el("p", { class: "muted", text: TC.t("Chi-square {x} ({df} degrees of freedom), p = {p}", { x, df: t.df, p: p3(t.p_value) }) }));
    }
    box.append(el("p", { class: "verdict", text: verdict(d) }));
    if (settings.source === "observed") {
      box.append(el("button", { type: "button", onclick: () => change({ faces: "settings" }) }, TC.t("Coach: use the settings' dice again")));
    } else if (t.differ) {
      box.append(el("button", { type: "button", class: "primary", onclick: () => change({ faces: "observed" }) },
        TC.t("Let the coach use the observed chances")));
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const b of $("coach-modes").querySelectorAll("button")) {
      b.addEventListener("click", () => change({ mode: b.dataset.mode }));
    }
    loadDiceStats();
  });
})(window.TC);
