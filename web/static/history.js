/* Past games: the list (players, winner, date, length), one game as a timeline, its JSONL export. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const t = (text, params) => TC.t(text, params);

  const gameName = (g) => (g.game === "zoo" ? "Zombie Zoo" : "ZomBee");
  const date = (secs) => new Date(secs * 1000).toLocaleString(TC.lang, { dateStyle: "medium", timeStyle: "short" });

  function length(g) {
    const minutes = g.last && g.created ? Math.max(0, Math.round((g.last - g.created) / 60)) : null;
    const moves = TC.tn("one move", "{n} moves", g.seq); // (a guarded call was missed by the extractor: English)
    return minutes === null ? moves : t("{moves}, {minutes} min", { moves, minutes });
  }

  function outcome(g) {
    if (!g.over) return t("unfinished");
    if (g.winners && g.winners.length) return t("won by {names}", { names: g.winners.join(", ") });
    return t("finished");
  }

  async function showGame(id) {
    const data = await (await fetch(`/api/games/${id}`, { cache: "no-store" })).json();
    const g = data.game;
    $("hi-title").textContent = t("Game {id}: {game}", { id: g.id, game: gameName(g) });
    $("hi-meta").textContent = `${g.players.join(", ")} · ${date(g.created)} · ${length(g)} · ${outcome(g)}`;
    $("hi-export").href = `/api/games/${g.id}.jsonl`;
    const list = clear($("hi-timeline"));
    for (const r of data.timeline) {
      const at = TC.clockTime(r.time);
      const said = TC.moveWords(r).join(" ");
      list.append(el("li", {}, el("span", { class: "when", text: at + " " }), said));
    }
    TC.show("hi-game", true);
    $("hi-game").scrollIntoView();
  }

  async function load() {
    const data = await (await fetch("/api/games", { cache: "no-store" })).json();
    const list = clear($("hi-games"));
    $("hi-summary").textContent = data.games.length
      ? TC.tn("One game.", "{n} games, newest first.", data.games.length) : t("No games yet.");
    for (const g of data.games) {
      list.append(el("li", { class: "game-line" },
        el("span", { class: "game-what" },
          el("strong", { text: `${gameName(g)} · ${outcome(g)}` }), el("br"),
          `${g.players.join(", ")} · ${date(g.created)} · ${length(g)}`),
        el("button", { type: "button", class: "btn", "data-game": g.id, onclick: () => showGame(g.id) }, t("Timeline"))));
    }
  }

  document.addEventListener("DOMContentLoaded", load);
})(window.TC);
