/* The ZomBee coach (a one-line tip or the table of every option), its setting,
   and what the table's dice really do. The figures come with the state (`coach`);
   the mode and the dice statistics from /api/coach and /api/dice-stats. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const NAMES = { bee: "Bee", honey: "Honey", zzz: "Zzz", zombee: "ZomBee" };
  const FACES = ["bee", "honey", "zzz", "zombee"];
  let settings = null; // {mode, modes, faces, source}
  let shown = null; // the state whose coach is on screen

  const pct = (x) => `${Math.round(x * 100)}%`;
  const num = (x) => (Math.abs(x - Math.round(x)) < 0.05 ? String(Math.round(x)) : x.toFixed(1));
  const signed = (x) => (x > -0.005 ? "+" : "−") + Math.abs(x).toFixed(2); // never "−0.00"

  /* "the Zzz and the ZomBee", "the 2 Bees and the Zzz" */
  function dice(reroll) {
    const parts = FACES.filter((f) => reroll.includes(f)).map((f) => {
      const n = reroll.filter((g) => g === f).length;
      return n > 1 ? `the ${n} ${NAMES[f]}s` : `the ${NAMES[f]}`;
    });
    return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}` : parts[0];
  }

  /* The one thing choosing `a` instead of `b` changes most, in words: the honey chance,
     else the player's own flowers, else the others' (the table has the rest). */
  function effects(a, b) {
    if (Math.abs(a.p_three_honey - b.p_three_honey) >= 0.05) {
      return `honey chance ${pct(b.p_three_honey)} → ${pct(a.p_three_honey)}`;
    }
    for (const [d, whom] of [[a.own_flips - b.own_flips, "you"], [a.others_flips - b.others_flips, "the others"]]) {
      if (Math.abs(d) < 0.05) continue;
      const n = num(Math.abs(d));
      return `${n} ${d < 0 ? "fewer" : "more"} flower${n === "1" ? "" : "s"} for ${whom} on average`;
    }
    return "";
  }

  function tip(c) {
    const best = c.options[c.best];
    const stop = c.options[0];
    if (c.best !== 0) {
      const why = effects(best, stop);
      return `Best: roll ${dice(best.reroll)} again${why ? ": " + why : ""}`;
    }
    let next = null;
    c.options.forEach((o, i) => { if (i && (!next || o.value > next.value)) next = o; });
    const why = next ? effects(next, stop) : "";
    return `Best: stop now${why ? ` (rolling ${dice(next.reroll)} again: ${why})` : ""}`;
  }

  function table(c) {
    const body = el("tbody");
    c.options.forEach((o, i) => {
      body.append(el("tr", { class: i === c.best ? "best" : null },
        el("th", { scope: "row", text: (i === c.best ? "★ " : "") + (o.reroll.length ? o.reroll.map((f) => NAMES[f]).join(", ") : "Stop") }),
        el("td", { text: pct(o.p_three_honey) }), el("td", { text: o.own_flips.toFixed(2) }),
        el("td", { text: o.others_flips.toFixed(2) }), el("td", { text: signed(o.value) })));
    });
    return el("div", { class: "table-wrap" }, el("table", { class: "coach-table" },
      el("thead", {}, el("tr", {}, ...["Roll again", "3+ honey", "Your flips", "Others'", "Value"].map(
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
    $("coach-faces").textContent = `The coach assumes (${settings.source === "observed" ? "as the dice have shown" : "from the settings"}): ` +
      FACES.map((k) => `${NAMES[k]} ${pct(f[k])}`).join(", ");
  }

  async function change(body) {
    say("Sending…", "pending");
    const answer = await TC.post("/api/coach", body, say);
    if (!answer) return;
    settings = answer;
    say("Done.", "ok");
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
      el("thead", {}, el("tr", {}, ...["Face", "Count", "Seen", "95% interval", "Assumed"].map(
        (t) => el("th", { scope: "col", text: t })))), body));
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
    box.append(el("p", { class: "muted", text: `From the first roll of each turn: ${d.rolls} rolls, ${d.dice} dice.` }));
    if (d.dice) box.append(diceTable(d));
    const t = d.test;
    if (t.p_value !== null) {
      box.append(el("p", { class: "muted", text: `Chi-square ${t.statistic.toFixed(2)} (${t.df} degrees of freedom), p = ${t.p_value.toPrecision(3)}` }));
    }
    box.append(el("p", { class: "verdict", text: d.verdict }));
    if (settings.source === "observed") {
      box.append(el("button", { type: "button", onclick: () => change({ faces: "settings" }) }, "Coach: use the settings' dice again"));
    } else if (t.differ) {
      box.append(el("button", { type: "button", class: "primary", onclick: () => change({ faces: "observed" }) },
        "Let the coach use the observed chances"));
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const b of $("coach-modes").querySelectorAll("button")) {
      b.addEventListener("click", () => change({ mode: b.dataset.mode }));
    }
    loadDiceStats();
  });
})(window.TC);
