/* The statistics page: tables and charts drawn here as inline SVG (no library, no CDN). */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const COLORS = ["#f5c518", "#6ec6ff", "#ff8a65", "#b39ddb", "#81c784", "#f48fb1", "#4dd0e1", "#dce775"];
  const DASHES = [null, "7 4", "2 4", "10 4 2 4", "4 2"];
  const MAX_LINES = 8; // more lines than this are unreadable on a phone: the players with most games
  const W = 360;

  const pct = (x) => TC.percent(x);

  function rows(id, players, cells) {
    const body = clear($(id));
    for (const p of players) {
      body.append(el("tr", {}, el("th", { scope: "row", text: p.player }), ...cells(p).map((c) => el("td", { text: String(c) }))));
    }
  }

  /* One horizontal bar per player: name, bar, figure. */
  function bars(id, players, value, label, kind) {
    const box = clear($(id));
    if (!players.length) {
      box.append(el("p", { class: "muted", text: TC.t("No games yet.") }));
      return;
    }
    const rowH = 24, nameW = 96, figW = 84;
    const max = Math.max(...players.map(value), 1e-9);
    const svg = el("svg:svg", { viewBox: `0 0 ${W} ${players.length * rowH + 4}`, class: "chart-svg stats-bars", role: "img",
      "aria-label": players.map((p) => `${p.player} ${label(p)}`).join(", ") });
    players.forEach((p, i) => {
      const y = i * rowH + 2;
      const w = ((W - nameW - figW) * value(p)) / max;
      svg.append(el("svg:text", { x: 0, y: y + 16 }, p.player.length > 12 ? p.player.slice(0, 11) + "…" : p.player),
        el("svg:rect", { x: nameW, y: y + 3, width: Math.max(w, 1), height: rowH - 8, rx: 3, class: "bar " + (kind || "") }),
        el("svg:text", { x: nameW + w + 6, y: y + 16 }, label(p)));
    });
    box.append(svg);
  }

  /* Honey taken, added up game by game, one line per player; x is the ZomBee game's number, oldest first. */
  function honeyLines(players) {
    const box = clear($("st-honey"));
    const shown = players.filter((p) => p.honey.length).sort((a, b) => b.zombee_games - a.zombee_games).slice(0, MAX_LINES);
    if (!shown.length) {
      box.append(el("p", { class: "muted", text: TC.t("No finished ZomBee games yet.") }));
      return;
    }
    const H = 190, L = 30, R = 12, T = 10, B = 26;
    const games = shown.flatMap((p) => p.honey.map((h) => h.game));
    const t0 = Math.min(...games) - 1, t1 = Math.max(...games, t0 + 1);
    const maxY = Math.max(3, ...shown.flatMap((p) => p.honey.map((h) => h.total)));
    const sx = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - R);
    const sy = (y) => H - B - (y / maxY) * (H - T - B);
    const svg = el("svg:svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg stats-lines", role: "img",
      "aria-label": TC.t("Honey taken so far:") + " " + shown.map((p) => `${p.player} ${p.honey_taken}`).join(", ") });
    const step = Math.max(1, Math.ceil(maxY / 4));
    for (let y = 0; y <= maxY; y += step) {
      svg.append(el("svg:line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), class: "grid" }),
        el("svg:text", { x: L - 6, y: sy(y) + 4, class: "tick", "text-anchor": "end" }, String(y)));
    }
    svg.append(el("svg:text", { x: (L + W - R) / 2, y: H - 6, class: "tick", "text-anchor": "middle" },
      TC.t("ZomBee games, oldest to newest ({n})", { n: t1 })));
    const legend = el("ul", { class: "legend" });
    shown.forEach((p, i) => {
      const color = COLORS[i % COLORS.length];
      let d = `M${sx(p.honey[0].game - 1).toFixed(1)} ${sy(0).toFixed(1)}`;
      for (const h of p.honey) d += `L${sx(h.game).toFixed(1)} ${sy(h.total).toFixed(1)}`;
      svg.append(el("svg:path", { d, fill: "none", stroke: color, "stroke-width": 2.5,
        "stroke-dasharray": DASHES[i % DASHES.length], "stroke-linejoin": "round" }));
      const item = el("li", {}, `${p.player}: ${p.honey_taken}`);
      item.style.color = color; // set through the DOM: the page's CSP allows no inline style attribute
      legend.append(item);
    });
    box.append(svg, legend);
  }

  function render(s) {
    // One and many in each language (it said "1 finished games").
    const games = { zombee: s.zombee_games, zoo: s.zoo_games };
    $("st-summary").textContent = TC.tn("1 finished game: {zombee} ZomBee, {zoo} Zombie Zoo",
      "{n} finished games: {zombee} ZomBee, {zoo} Zombie Zoo", s.games, games) +
      (s.unfinished ? " " + TC.t("({n} not finished, not counted)", { n: s.unfinished }) : "") + ". " +
      TC.tn("1 player.", "{n} players.", s.players.length);
    rows("st-players", s.players, (p) => [p.games, p.wins, pct(p.win_rate)]);
    bars("st-winrate", s.players, (p) => p.win_rate, (p) => TC.t("{rate} of {n}", { rate: pct(p.win_rate), n: p.games }));
    const zb = s.players.filter((p) => p.zombee_games);
    TC.show("st-zombee-card", zb.length > 0);
    rows("st-zombee", zb, (p) => [p.zombee_games, p.honey_taken, p.flowers_turned, p.zombees_revealed, p.rounds_won]);
    honeyLines(zb);
    const zoo = s.players.filter((p) => p.zoo_games);
    TC.show("st-zoo-card", zoo.length > 0);
    rows("st-zoo", zoo, (p) => [p.zoo_games, p.kills, p.locks, p.deaths, TC.number(p.average_score, 1)]);
    bars("st-score", zoo, (p) => p.average_score, (p) => TC.number(p.average_score, 1), "zoo");
  }

  document.addEventListener("DOMContentLoaded", async () => {
    try {
      const response = await fetch("/api/stats", { cache: "no-store" });
      render(await response.json());
    } catch (err) {
      $("st-summary").textContent = TC.t("The statistics cannot be loaded: the companion cannot be reached.");
    }
  });
})(window.TC);
