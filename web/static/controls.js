/* The override controls for the game on the table; they change with its state. */
"use strict";

(function (TC) {
  const { el, $, clear, icon } = TC;
  const FACES = ["bee", "honey", "zzz", "zombee"];
  let draft = null; // the roll being entered: {seq, counts, picked}
  let zooPlayer = null;

  function button(text, onclick, extra) {
    return el("button", { type: "button", class: "btn " + (extra || ""), onclick }, text);
  }

  function iconButton(kind, text, onclick) {
    return el("button", { type: "button", class: "btn icon-btn", onclick }, TC.icon(kind, 28), el("span", { text }));
  }

  function counter(face) {
    const out = el("output", { class: "count", id: "count-" + face, "aria-live": "polite" }, String(draft.counts[face]));
    const change = (d) => () => {
      draft.counts[face] = Math.max(0, Math.min(5, draft.counts[face] + d));
      out.textContent = String(draft.counts[face]);
      updateRollHint();
    };
    return el("div", { class: "counter" },
      el("span", { class: "counter-face" }, icon(face, 28), el("span", { text: TC.LABELS[face] })),
      el("button", { type: "button", class: "btn small", "aria-label": `one ${TC.LABELS[face]} less`, onclick: change(-1) }, "−"),
      out,
      el("button", { type: "button", class: "btn small", "aria-label": `one ${TC.LABELS[face]} more`, onclick: change(+1) }, "+"));
  }

  function wanted() {
    return draft.first ? 5 : draft.picked.filter(Boolean).length;
  }

  function updateRollHint() {
    const total = FACES.reduce((n, f) => n + draft.counts[f], 0);
    const need = wanted();
    const hint = $("roll-hint");
    if (hint) hint.textContent = `${total} of ${need} dice entered`;
    const go = $("roll-go");
    if (go) go.disabled = total !== need || need === 0;
  }

  function rollForm(s) {
    if (!draft || draft.seq !== s.seq || draft.game_id !== s.game_id) {
      const pickable = s.last_roll.map((f) => ({ face: f, from: "roll" }))
        .concat(s.kept.filter((f) => f === "zombee").map((f) => ({ face: f, from: "kept" })));
      draft = { seq: s.seq, game_id: s.game_id, first: s.rolls === 0, pickable, picked: pickable.map(() => false),
        counts: { bee: 0, honey: 0, zzz: 0, zombee: 0 } };
    }
    const box = el("div", { class: "stack" });
    if (!draft.first) {
      const row = el("div", { class: "dice pick", role: "group", "aria-label": "dice picked up" });
      draft.pickable.forEach((d, i) => {
        const b = el("button", { type: "button", class: "die die-btn" + (d.from === "kept" ? " kept" : ""),
          "aria-pressed": String(draft.picked[i]), onclick: () => {
            draft.picked[i] = !draft.picked[i];
            b.setAttribute("aria-pressed", String(draft.picked[i]));
            updateRollHint();
          } }, icon(d.face, 32), el("span", { class: "die-label", text: TC.LABELS[d.face] }));
        row.append(b);
      });
      box.append(el("h3", { text: "1. Tap the dice picked up again" }), row);
    }
    box.append(el("h3", { text: draft.first ? "What the five dice show" : "2. What they show now" }));
    box.append(el("div", { class: "counters" }, ...FACES.map(counter)));
    box.append(el("p", { class: "muted", id: "roll-hint" }));
    const actions = el("div", { class: "row" },
      el("button", { type: "button", class: "btn primary", id: "roll-go", onclick: sendRoll }, "Enter roll"));
    if (!draft.first) actions.append(button("Stop rolling", () => TC.send({ cmd: "stop" })));
    box.append(actions);
    setTimeout(updateRollHint, 0);
    return box;
  }

  function sendRoll() {
    const faces = [];
    for (const f of FACES) for (let i = 0; i < draft.counts[f]; i++) faces.push(f);
    if (draft.first) return TC.send({ cmd: "roll", faces });
    const reroll = draft.pickable.filter((_, i) => draft.picked[i]).map((d) => d.face);
    return TC.send({ cmd: "roll", reroll, faces });
  }

  function zombeeControls(s) {
    const box = clear($("zb-controls"));
    if (s.phase === "roll") {
      box.append(el("h3", { class: "for", text: `Enter for ${s.active}` }), rollForm(s));
    } else if (s.phase === "flip") {
      box.append(el("h3", { class: "for", text: `Flower turned over by ${s.pending}` }),
        el("div", { class: "row" },
          iconButton("bee", "Bee", () => TC.send({ cmd: "flip", result: "bee" })),
          iconButton("question", "Question mark", () => TC.send({ cmd: "flip", result: "question" })),
          iconButton("zombee", "ZomBee", () => TC.send({ cmd: "flip", result: "zombee" }))));
    } else if (s.phase === "choose") {
      const names = s.players.filter((p) => !p.eliminated && (p.name !== s.pending || s.pending === s.active));
      box.append(el("h3", { class: "for", text: `${s.pending} chooses who turns over a flower` }),
        el("div", { class: "row" }, ...names.map((p) => button(p.name, () => TC.send({ cmd: "choose", player: p.name })))));
    }
    box.append(el("div", { class: "row" }, button("Undo last move", () => TC.send({ cmd: "undo" }), "warn")));
  }

  function zooControls(s) {
    const box = clear($("zoo-controls"));
    const names = s.players.map((p) => p.name);
    if (!names.includes(zooPlayer)) zooPlayer = names[0];
    const select = el("select", { id: "zoo-player", onchange: (e) => { zooPlayer = e.target.value; } },
      ...names.map((n) => el("option", { value: n, selected: n === zooPlayer }, n)));
    const who = () => zooPlayer;
    const count = el("input", { id: "zoo-count", type: "number", min: 1, max: 50, value: 1, inputmode: "numeric" });
    const lock = el("select", { id: "zoo-lock" },
      ...Object.entries(TC.LOCK_NAMES).map(([k, n]) => el("option", { value: k }, n)));
    box.append(
      el("div", { class: "row" }, el("label", { for: "zoo-player", text: "Hero" }), select),
      el("div", { class: "row" }, el("label", { for: "zoo-count", text: "Kills" }), count,
        button("Add kills", () => TC.send({ cmd: "kill", player: who(), count: parseInt(count.value, 10) || 1 }), "primary")),
      el("div", { class: "row" }, el("span", { class: "row-label", text: "Life" }),
        button("−1 life", () => TC.send({ cmd: "life", player: who(), delta: -1 })),
        button("+1 life", () => TC.send({ cmd: "life", player: who(), delta: 1 }))),
      el("div", { class: "row" }, el("span", { class: "row-label", text: "Bullets" }),
        button("−1 bullet", () => TC.send({ cmd: "bullets", player: who(), delta: -1 })),
        button("+1 bullet", () => TC.send({ cmd: "bullets", player: who(), delta: 1 }))),
      el("div", { class: "row" }, el("label", { for: "zoo-lock", text: "Lock" }), lock,
        button("Collect", () => TC.send({ cmd: "collect_lock", player: who(), lock: lock.value }))),
      el("div", { class: "row" },
        button("Animals cleared", () => TC.send({ cmd: "animals_cleared" })),
        button("Undo last move", () => TC.send({ cmd: "undo" }), "warn")));
  }

  TC.renderControls = function (s) {
    TC.show("zb-controls", !!s && s.game === "zombee");
    TC.show("zoo-controls", !!s && s.game === "zoo");
    if (s && s.game === "zombee") zombeeControls(s);
    if (s && s.game === "zoo") zooControls(s);
  };
})(window.TC);
