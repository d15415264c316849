/* The override controls for the game on the table; they change with its state. */
"use strict";

(function (TC) {
  const { el, $, clear, icon } = TC;
  let draft = null; // the roll being entered: {seq, counts, picked, rerolls}
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
      draft.counts[face] = Math.max(0, draft.counts[face] + d);
      out.textContent = String(draft.counts[face]);
      updateRollHint();
    };
    const label = TC.LABELS[face];
    return el("div", { class: "counter" },
      el("span", { class: "counter-face" }, icon(face, 28), el("span", { text: label })),
      el("button", { type: "button", class: "btn small less", "data-face": face,
        "aria-label": TC.t("one {face} less", { face: label }), onclick: change(-1) }, "−"),
      out,
      el("button", { type: "button", class: "btn small more", "aria-label": TC.t("one {face} more", { face: label }),
        onclick: change(+1) }, "+"));
  }

  /* No more faces than dice thrown now (what the engine lists: a first roll throws every die, a later
     one the dice picked up), none below 0: it once let 6 dice and more be entered for a throw of 5. */
  function limitCounters(total, need) {
    for (const b of document.querySelectorAll("#zb-controls .counter .more")) b.disabled = total >= need;
    for (const b of document.querySelectorAll("#zb-controls .counter .less")) {
      b.disabled = !draft.counts[b.dataset.face];
    }
  }

  function wanted() {
    return draft.first ? TC.info.dice : draft.picked.filter(Boolean).length;
  }

  function pickedFaces() {
    return draft.pickable.filter((_, i) => draft.picked[i]).map((d) => d.face);
  }

  /* Whether the engine lists the picked dice as a reroll it would take. */
  function pickIsLegal() {
    const picked = pickedFaces().sort().join(",");
    return draft.rerolls.some((r) => r.slice().sort().join(",") === picked);
  }

  function updateRollHint() {
    const total = TC.info.faces.reduce((n, f) => n + draft.counts[f], 0);
    const need = wanted();
    const allowed = draft.first || need === 0 || pickIsLegal();
    limitCounters(total, need);
    const hint = $("roll-hint");
    let says = allowed ? TC.tn("{n} of 1 die entered", "{n} of {need} dice entered", need, { n: total, need })
      : TC.t("The rules do not let these dice be picked up together.");
    if (!draft.first && need === 0) says = TC.t("First tap the dice picked up again.");
    if (hint) hint.textContent = says;
    const go = $("roll-go");
    if (go) go.disabled = total !== need || need === 0 || !allowed;
  }

  function rollForm(s) {
    if (!draft || draft.seq !== s.seq || draft.game_id !== s.game_id) {
      // The dice that may be picked up: the largest reroll the engine lists holds every other one.
      const rerolls = TC.legalOf(s, "roll").filter((m) => m.reroll).map((m) => m.reroll);
      const widest = rerolls.reduce((a, b) => (b.length > a.length ? b : a), []);
      const inRoll = {};
      for (const f of s.last_roll) inRoll[f] = (inRoll[f] || 0) + 1;
      const pickable = widest.map((f) => {
        const here = inRoll[f] > 0; // a die of the latest roll, else one set aside earlier
        if (here) inRoll[f] -= 1;
        return { face: f, from: here ? "roll" : "kept" };
      });
      const counts = Object.fromEntries(TC.info.faces.map((f) => [f, 0]));
      draft = { seq: s.seq, game_id: s.game_id, first: !rerolls.length, pickable, picked: pickable.map(() => false),
        counts, rerolls };
    }
    const box = el("div", { class: "stack" });
    if (!draft.first) {
      const row = el("div", { class: "dice pick", role: "group", "aria-label": TC.t("dice picked up") }); // read out in the page's language
      draft.pickable.forEach((d, i) => {
        const b = el("button", { type: "button", class: "die die-btn" + (d.from === "kept" ? " kept" : ""),
          "aria-pressed": String(draft.picked[i]), onclick: () => {
            draft.picked[i] = !draft.picked[i];
            b.setAttribute("aria-pressed", String(draft.picked[i]));
            updateRollHint();
          } }, icon(d.face, 32), el("span", { class: "die-label", text: TC.LABELS[d.face] }));
        row.append(b);
      });
      box.append(el("h3", { text: TC.t("1. Tap the dice picked up again") }), row);
    }
    box.append(el("h3", { text: draft.first ? TC.t("What the five dice show") : TC.t("2. What they show now") }));
    box.append(el("div", { class: "counters" }, ...TC.info.faces.map(counter)));
    box.append(el("p", { class: "muted", id: "roll-hint" }));
    const actions = el("div", { class: "row" },
      el("button", { type: "button", class: "btn primary", id: "roll-go", onclick: sendRoll }, TC.t("Enter roll")));
    if (TC.legalOf(s, "stop").length) actions.append(button(TC.t("Stop rolling"), () => TC.send({ cmd: "stop" })));
    box.append(actions);
    setTimeout(updateRollHint, 0);
    return box;
  }

  function sendRoll() {
    const faces = [];
    for (const f of TC.info.faces) for (let i = 0; i < draft.counts[f]; i++) faces.push(f);
    if (draft.first) return TC.send({ cmd: "roll", faces });
    return TC.send({ cmd: "roll", reroll: pickedFaces(), faces });
  }

  function zombeeControls(s) {
    const box = clear($("zb-controls"));
    // Only what the engine lists as legal now is offered (Undo aside, which it explains when refused).
    const flips = TC.legalOf(s, "flip");
    const chooses = TC.legalOf(s, "choose");
    if (TC.legalOf(s, "roll").length) {
      box.append(el("h3", { class: "for", text: TC.t("Enter for {name}", { name: s.active }) }), rollForm(s));
    } else if (flips.length) {
      box.append(el("h3", { class: "for", text: TC.t("Flower turned over by {name}", { name: s.pending }) }),
        el("div", { class: "row" }, ...flips.map((m) => iconButton(m.result, TC.LABELS[m.result], () => TC.send(m)))));
    } else if (chooses.length) {
      box.append(el("h3", { class: "for", text: TC.t("{name} chooses who turns over a flower", { name: s.pending }) }),
        el("div", { class: "row" }, ...chooses.map((m) => button(m.player, () => TC.send(m)))));
    }
    box.append(undoRow(s));
  }

  /* Undo asks first (TC.askUndo); it is offered only when the engine would take it (can_undo). */
  function undoRow(s) {
    const b = button(TC.t("Undo last move"), () => TC.askUndo(b), "warn");
    b.disabled = !s.can_undo;
    return el("div", { class: "row" }, b);
  }

  /* The Zoo's controls offer what the engine lists in `legal` for the hero picked, nothing else: only
     living heroes can be picked, a move not listed is greyed out with the reason beside it, and once
     the game is over only Undo is left (they all stayed, and every tap was refused). */
  function zooControls(s) {
    const box = clear($("zoo-controls"));
    const legal = (cmd) => TC.legalOf(s, cmd).filter((m) => m.player === zooPlayer);
    const names = [...new Set(TC.legalOf(s, "kill").map((m) => m.player))]; // the heroes still alive
    if (!names.length) {
      box.append(undoRow(s));
      return;
    }
    if (!names.includes(zooPlayer)) zooPlayer = names[0];
    const select = el("select", { id: "zoo-player", onchange: (e) => { zooPlayer = e.target.value; refresh(); } },
      ...names.map((n) => el("option", { value: n, selected: n === zooPlayer }, n)));
    const who = () => zooPlayer;
    const count = el("input", { id: "zoo-count", type: "number", min: 1, value: 1, inputmode: "numeric" });
    const cleared = button(TC.t("Animals cleared"), () => TC.ask(cleared.closest(".row"),
      TC.t("Every Zombie Gorilla and Monkey is off the board? This ends the game."), TC.t("Yes, animals cleared"),
      () => TC.send({ cmd: "animals_cleared" })), "animals-cleared");
    const lock = el("select", { id: "zoo-lock" });
    const steps = [["life", -1, TC.t("−1 life")], ["life", 1, TC.t("+1 life")],
      ["bullets", -1, TC.t("−1 bullet")], ["bullets", 1, TC.t("+1 bullet")]].map(([cmd, delta, text]) => {
      const b = button(text, () => TC.send({ cmd, player: who(), delta }));
      return { cmd, delta, b };
    });
    const collect = button(TC.t("Collect"), () => TC.send({ cmd: "collect_lock", player: who(), lock: lock.value }));
    const hint = el("p", { class: "muted", id: "zoo-hint", hidden: true });

    function refresh() {
      const why = [];
      for (const step of steps) {
        const ok = legal(step.cmd).some((m) => m.delta.min <= step.delta && step.delta <= m.delta.max);
        step.b.disabled = !ok;
        // The reason is the refusal the tap would have met, in the page's words (words.js).
        if (!ok) why.push(TC.refusalWords("", { cmd: step.cmd, player: zooPlayer, delta: step.delta }, s));
      }
      const locks = legal("collect_lock").map((m) => m.lock); // still on the board
      clear(lock).append(...locks.map((k) => el("option", { value: k }, TC.lockName(k))));
      lock.disabled = collect.disabled = !locks.length;
      // an empty list said nothing; while the game runs, any living hero may take any lock still there
      if (!locks.length && !s.over) why.push(TC.t("No lock is left on the board to collect."));
      clear(hint).append([...new Set(why)].join(" "));
      hint.hidden = !why.length;
    }
    refresh();

    box.append(
      el("div", { class: "row" }, el("label", { for: "zoo-player", text: TC.t("Hero") }), select),
      el("div", { class: "row" }, el("label", { for: "zoo-count", text: TC.t("Kills") }), count,
        // the count as typed: the engine refuses 0, a blank or 1.5, and the page says why (it once became one kill)
        button(TC.t("Add kills"), () => TC.send({ cmd: "kill", player: who(),
          count: count.value === "" ? null : Number(count.value) }), "primary")),
      el("div", { class: "row" }, el("span", { class: "row-label", text: TC.t("Life") }), steps[0].b, steps[1].b),
      el("div", { class: "row" }, el("span", { class: "row-label", text: TC.t("Bullets") }), steps[2].b, steps[3].b),
      hint,
      el("div", { class: "row" }, el("label", { for: "zoo-lock", text: TC.t("Lock") }), lock, collect),
      el("div", { class: "row" }, ...(TC.legalOf(s, "animals_cleared").length ? [cleared] : [])),
      undoRow(s));
  }

  TC.renderControls = function (s) {
    TC.show("zb-controls", !!s && s.game === "zombee");
    TC.show("zoo-controls", !!s && s.game === "zoo");
    if (s && s.game === "zombee") zombeeControls(s);
    if (s && s.game === "zoo") zooControls(s);
  };
})(window.TC);
