/* The camera's question, on every phone: a die it reads between two faces ("Die 3: Honey or Zzz?") with
   the die as the camera saw it, answered by one tap that enters the roll (vision/doubt.py, web/camera.py).
   Answered on one phone, it goes from all: the roll's new state (app.js calls TC.doubtMoved) and the
   camera's notices (TC.doubtNotice) bring it and take it away. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  let shown = null; // the question on screen: {id, game_id, seq, questions: [{die, faces, answer}]}
  let refusedAt = null; // the state ("game:seq") a refusal was said in: it goes with the next move

  function faceName(face) {
    return (TC.LABELS && TC.LABELS[face]) || TC.t(face);
  }

  function say(text, kind) {
    TC.say("doubt-msg", "doubt-msg", text, kind);
  }

  function open(q) {
    return !!q && (q.questions || []).some((item) => item.answer === null);
  }

  /* The card: one row per die asked about, its crop and a button for each of its two faces. */
  function render(q) {
    shown = open(q) ? q : null;
    const box = clear($("doubt"));
    TC.show("doubt", !!shown);
    if (!shown) return;
    box.append(el("h2", { text: TC.t("The camera is unsure") }));
    for (const item of shown.questions) {
      const [first, second] = item.faces;
      const asked = item.answer === null
        ? TC.t("Die {die}: {first} or {second}?", { die: item.die, first: faceName(first), second: faceName(second) })
        : TC.t("Die {die}: {face}", { die: item.die, face: faceName(item.answer) });
      box.append(el("div", { class: "doubt-q" + (item.answer === null ? "" : " answered"), "data-die": item.die },
        el("img", { class: "doubt-crop", src: `/api/camera/doubt/${item.die}.jpg?q=${shown.id}`,
          alt: TC.t("Die {die} as the camera saw it", { die: item.die }), width: 96, height: 96 }),
        el("p", { class: "doubt-ask", text: asked }),
        item.answer === null ? el("div", { class: "doubt-faces" }, ...[first, second].map((face) =>
          el("button", { type: "button", class: "btn icon-btn doubt-face", "data-face": face,
            onclick: () => answer(item.die, face) }, TC.icon(face, 28), el("span", { text: faceName(face) })))) : null));
    }
    box.append(el("button", { type: "button", class: "doubt-else", onclick: somethingElse }, TC.t("Something else…")),
      el("p", { id: "doubt-msg", class: "doubt-msg", role: "status", hidden: true }));
  }

  /* Neither face: the roll is entered by hand under Overrides (a correction too, which teaches). */
  function somethingElse() {
    const form = $("zb-controls");
    if (form) form.scrollIntoView({ behavior: "smooth", block: "start" });
    TC.overrideMessage(TC.t("Enter the roll as it lies in the tray: it teaches the camera too."), "ok");
  }

  async function answer(die, face) {
    if (!shown) return;
    say(TC.t("Sending…"), "pending");
    const headers = { "Content-Type": "application/json" };
    const pin = TC.pin();
    if (pin) headers.Authorization = "Bearer " + pin;
    let response;
    let data = {};
    try {
      response = await fetch("/api/camera/doubt", { method: "POST", headers, cache: "no-store",
        body: JSON.stringify({ die, face, question: shown.id }) });
      data = await response.json();
    } catch (err) {
      if (!response) {
        say(TC.t("Not sent: the companion cannot be reached."), "error");
        return;
      }
    }
    if (response.ok) {
      if (data.state && !TC.streamLive()) TC.applyState(data.state);
      render(data.question);
      return;
    }
    if (response.status === 409 && data.answered) {
      refused(TC.t("Not taken: die {die} was already answered as {face}.", { die: data.die, face: faceName(data.answered) }));
    } else if (response.status === 409) {
      refused(TC.t("Not taken: the roll was entered another way meanwhile."));
    } else if (response.status === 401) {
      say(pin ? TC.t("The PIN was not accepted. Check it and save it again.") : TC.t("Enter the override PIN first."), "error");
    } else {
      say(TC.t("Refused: {reason}", { reason: TC.plainReason(data.error || response.statusText) }), "error");
    }
  }

  /* A refusal stays on screen after the question went (another phone answered first) until the next move. */
  function refused(text) {
    const now = TC.current && TC.current();
    refusedAt = now ? `${now.game_id}:${now.seq}` : "";
    shown = null;
    const box = clear($("doubt"));
    box.append(el("p", { class: "doubt-msg error", role: "alert", text }));
    TC.show("doubt", true);
  }

  /* app.js: a dice notice (the camera asked) and each new state (the question belongs to one state). */
  TC.doubtNotice = function (msg) {
    if (msg.status === "asked" && msg.question) render(msg.question);
  };
  TC.doubtMoved = function (state) {
    const at = state ? `${state.game_id}:${state.seq}` : "";
    if (shown ? at !== `${shown.game_id}:${shown.seq}` : refusedAt !== null && at !== refusedAt) {
      refusedAt = null;
      render(null);
    }
  };

  async function load() {
    try {
      const data = await (await fetch("/api/camera/doubt", { cache: "no-store" })).json();
      const now = TC.current && TC.current();
      if (data.question && (!now || (now.game_id === data.question.game_id && now.seq === data.question.seq))) {
        render(data.question);
      }
    } catch (err) {
      /* offline: the next notice brings it */
    }
  }

  document.addEventListener("DOMContentLoaded", load);
})(window.TC);
