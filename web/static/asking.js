/* Nothing lost by a tap: a question before Undo, "Animals cleared" and a new game over an
   unfinished one, and the unfinished games listed with a way back to each. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const t = (text, params) => TC.t(text, params);

  /* Ask in place, under `after`: the question, a button that goes ahead and one that keeps things as they are. */
  TC.ask = function (after, question, yes, onYes) {
    const old = document.querySelector(".ask");
    if (old) old.remove();
    const box = el("div", { class: "ask", role: "alertdialog", "aria-label": question },
      el("p", { class: "ask-q", text: question }));
    // Focus goes to the safe answer and back where it was after either (two Enter presses took a move
    // back, and focus fell to the page's start); Escape keeps things as they are.
    const opener = document.activeElement;
    const close = () => {
      box.remove();
      if (opener && opener.isConnected && typeof opener.focus === "function") opener.focus();
    };
    const no = el("button", { type: "button", class: "btn", onclick: close }, t("Keep it"));
    const go = el("button", { type: "button", class: "btn primary", onclick: () => { close(); onYes(); } }, yes);
    box.addEventListener("keydown", (e) => {
      if (e.key === "Escape") close();
    });
    box.append(el("div", { class: "row" }, go, no));
    after.after(box);
    no.focus();
    return box;
  };

  /* The move an undo would take back, in the engine's words ("Mia rolled …"), for "Take back ...?":
     the last that still stands (the server says which: `stands`), never the new game itself. */
  TC.lastMove = async function () {
    const shown = TC.current && TC.current();
    if (!shown) return "";
    try {
      const standing = (await TC.gameTimeline(shown.game_id)).filter((r) => r.stands);
      return standing.length > 1 ? TC.moveWords(standing[standing.length - 1])[0] : "";
    } catch (err) {
      return "";
    }
  };

  TC.askUndo = async function (button) {
    const shown = TC.current && TC.current(); // the move named is this state's last: undo only that one
    const last = await TC.lastMove();
    const q = last ? t("Take back the last move? {move}", { move: last }) : t("Take back the last move?");
    TC.ask(button.closest(".row") || button, q, t("Yes, undo"), () => TC.send({ cmd: "undo" }, shown || null));
  };

  function unfinishedLine(g) {
    const when = new Date(g.created * 1000).toLocaleString(TC.lang, { dateStyle: "short", timeStyle: "short" });
    const name = g.game === "zoo" ? "Zombie Zoo" : "ZomBee";
    const moves = TC.tn("one move", "{n} moves", g.seq); // it said "1 moves"
    return [name, g.players.join(", "), when, moves].join(" · ");
  }

  /* The unfinished games other than the one on the table, each with Resume. */
  TC.loadUnfinished = async function () {
    const list = $("unfinished");
    if (!list) return;
    let data;
    try {
      data = await (await fetch("/api/games", { cache: "no-store" })).json();
    } catch (err) {
      return;
    }
    const open = (data.games || []).filter((g) => !g.over && g.id !== data.current);
    clear(list);
    TC.show("unfinished-card", open.length > 0);
    for (const g of open.slice(0, 8)) {
      list.append(el("li", { class: "game-line" },
        el("span", { class: "game-what", text: unfinishedLine(g) }),
        el("button", { type: "button", class: "btn", "data-game": g.id, onclick: () => resume(g) }, t("Resume"))));
    }
  };

  async function resume(g) {
    const state = await TC.post(`/api/games/${g.id}/resume`, {});
    if (state) {
      TC.overrideMessage(t("Game {id} continues.", { id: g.id }), "ok");
      if (!TC.streamLive()) TC.applyState(state);
      TC.loadUnfinished();
    }
  }

  /* Before a new game: a game still under way is not dropped without a word. */
  TC.guardNewGame = function (start) {
    const s = TC.current && TC.current();
    if (!s || s.over) return start();
    const players = s.players.map((p) => p.name).join(", ");
    TC.ask($("new-game"), t("Game {id} ({players}) is not finished. Start a new game anyway? The old one can be resumed later.",
      { id: s.game_id, players }), t("Yes, start a new game"), start);
  };
})(window.TC);
