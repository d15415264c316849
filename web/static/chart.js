/* The chart of the game so far, as inline SVG: honey per player over turns (ZomBee)
   or score over time (Zoo). Lines differ by dash and marker, not only colour. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const COLORS = ["#f5c518", "#6ec6ff", "#ff8a65", "#b39ddb", "#81c784"];
  const DASHES = [null, "7 4", "2 4", "10 4 2 4", "4 2"];
  const MARKERS = ["circle", "square", "triangle", "diamond", "cross"];
  const W = 360, H = 190, L = 30, R = 64, T = 12, B = 30;
  let data = null; // {game_id, game, players, points}

  function value(game, p) {
    return game === "zoo" ? p.score || 0 : p.honey || 0;
  }

  function pointFrom(state, at) {
    return {
      seq: state.seq,
      time: at === undefined ? Date.now() / 1000 : at, // the companion's clock, as the points loaded
      active: state.active || null,
      values: data.players.map((n) => {
        const p = state.players.find((q) => q.name === n);
        return p ? value(state.game, p) : 0;
      }),
    };
  }

  /* [{x, values}] and the x axis caption. */
  function series() {
    const pts = data.points;
    if (data.game === "zoo") {
      const t0 = pts.length ? pts[0].time : 0;
      const span = pts.length ? pts[pts.length - 1].time - t0 : 0;
      if (span >= 120) return [pts.map((p) => ({ x: (p.time - t0) / 60, values: p.values })), "minutes"];
      return [pts.map((p, k) => ({ x: k, values: p.values })), "moves"]; // the first minutes: by move
    }
    const turns = [];
    let last = undefined;
    for (const p of pts) {
      if (!turns.length || (p.active !== last && p.active !== null)) turns.push({ x: turns.length, values: p.values });
      else turns[turns.length - 1] = { x: turns.length - 1, values: p.values };
      last = p.active;
    }
    return [turns, "turns"];
  }

  function marker(kind, x, y, color) {
    const common = { fill: color, stroke: "#111", "stroke-width": 1 };
    if (kind === "circle") return el("svg:circle", { cx: x, cy: y, r: 4, ...common });
    if (kind === "square") return el("svg:rect", { x: x - 4, y: y - 4, width: 8, height: 8, ...common });
    if (kind === "triangle") return el("svg:path", { d: `M${x} ${y - 5}L${x + 5} ${y + 4}L${x - 5} ${y + 4}Z`, ...common });
    if (kind === "diamond") return el("svg:path", { d: `M${x} ${y - 5}L${x + 5} ${y}L${x} ${y + 5}L${x - 5} ${y}Z`, ...common });
    return el("svg:path", { d: `M${x - 4} ${y - 4}L${x + 4} ${y + 4}M${x + 4} ${y - 4}L${x - 4} ${y + 4}`, stroke: color, "stroke-width": 2.5 });
  }

  function draw() {
    const box = clear($("chart"));
    $("chart-title").textContent = data && data.game === "zoo" ? TC.t("Score over time") : TC.t("Honey per player over turns");
    if (!data || !data.points.length) {
      box.append(el("p", { class: "muted", text: TC.t("Nothing to draw yet.") }));
      return;
    }
    const [pts, caption] = series();
    const maxX = Math.max(1, ...pts.map((p) => p.x));
    const maxY = Math.max(3, ...pts.flatMap((p) => p.values));
    const sx = (x) => L + (x / maxX) * (W - L - R);
    const sy = (y) => H - B - (y / maxY) * (H - T - B);
    const svg = el("svg:svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg", role: "img",
      "aria-label": (data.game === "zoo" ? TC.t("Score per player:") : TC.t("Honey per player:")) + " " +
        data.players.map((n, i) => `${n} ${pts[pts.length - 1].values[i]}`).join(", ") });
    const step = Math.max(1, Math.ceil(maxY / 4));
    for (let y = 0; y <= maxY; y += step) {
      svg.append(el("svg:line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), class: "grid" }),
        el("svg:text", { x: L - 6, y: sy(y) + 4, class: "tick", "text-anchor": "end" }, String(y)));
    }
    svg.append(el("svg:text", { x: (L + W - R) / 2, y: H - 8, class: "tick", "text-anchor": "middle" },
      caption === "minutes" ? TC.t("minutes ({n})", { n: Math.round(maxX) })
        : caption === "moves" ? TC.t("moves ({n})", { n: pts.length - 1 }) : TC.t("turns ({n})", { n: pts.length - 1 })));
    const labels = [];
    data.players.forEach((name, i) => {
      const color = COLORS[i % COLORS.length];
      const d = pts.map((p, k) => `${k ? "L" : "M"}${sx(p.x).toFixed(1)} ${sy(p.values[i]).toFixed(1)}`).join("");
      svg.append(el("svg:path", { d, fill: "none", stroke: color, "stroke-width": 2.5, "stroke-dasharray": DASHES[i % DASHES.length],
        "stroke-linejoin": "round" }));
      const lastP = pts[pts.length - 1];
      svg.append(marker(MARKERS[i % MARKERS.length], sx(lastP.x), sy(lastP.values[i]), color));
      labels.push({ y: sy(lastP.values[i]), name, color });
    });
    labels.sort((a, b) => a.y - b.y); // keep the end labels apart
    for (let k = 1; k < labels.length; k++) labels[k].y = Math.max(labels[k].y, labels[k - 1].y + 13);
    box.append(svg); // on the page first: a name's width is measured there
    for (const lab of labels) {
      // a name longer than the room right of the lines ends in "…" (it was cut mid-letter; the legend has it whole)
      const text = el("svg:text", { x: W - R + 8, y: lab.y + 4, class: "end-label", fill: lab.color }, lab.name);
      svg.append(text);
      for (let n = lab.name.length - 1; n > 0 && text.getComputedTextLength() > R - 8; n--) {
        text.textContent = lab.name.slice(0, n) + "…";
      }
    }
    const legend = el("ul", { class: "legend" });
    data.players.forEach((name, i) => {
      const color = COLORS[i % COLORS.length];
      const sample = el("svg:svg", { viewBox: "0 0 40 12", width: 40, height: 12, "aria-hidden": "true" },
        el("svg:line", { x1: 0, x2: 40, y1: 6, y2: 6, stroke: color, "stroke-width": 3, "stroke-dasharray": DASHES[i % DASHES.length] }),
        marker(MARKERS[i % MARKERS.length], 20, 6, color));
      legend.append(el("li", {}, sample, ` ${name}: ${pts[pts.length - 1].values[i]}`));
    });
    box.append(legend);
  }

  TC.chartLoad = async function () {
    try {
      const response = await fetch("/api/chart", { cache: "no-store" });
      if (response.ok) data = await response.json();
    } catch (err) {
      /* offline: the next state brings it back */
    }
    draw();
  };

  /* A new state arrived: append a point, or reload when it does not follow on. */
  TC.chartPush = function (state, at) {
    if (!state) {
      data = null;
      draw();
      return;
    }
    const last = data && data.points.length ? data.points[data.points.length - 1] : null;
    if (!data || data.game_id !== state.game_id || !last || state.seq !== last.seq + 1) {
      if (!(data && last && data.game_id === state.game_id && state.seq === last.seq)) TC.chartLoad();
      return;
    }
    data.points.push(pointFrom(state, at));
    draw();
  };
})(window.TC);
