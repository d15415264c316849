/* Shared helpers: the TC namespace, DOM building, the dice and flower symbols. */
"use strict";
window.TC = window.TC || {};

(function (TC) {
  const SVG_NS = "http://www.w3.org/2000/svg";

  /* el("li", {class: "x", text: "hi"}, child, ...) */
  TC.el = function (tag, attrs, ...children) {
    const node = tag.startsWith("svg:") ? document.createElementNS(SVG_NS, tag.slice(4)) : document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "html") node.innerHTML = value; // only ever our own constant markup
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  };

  TC.$ = (id) => document.getElementById(id);

  TC.show = function (id, visible) {
    TC.$(id).hidden = !visible;
  };

  /* A message box (panel, overrides, camera): its text, styled by kind ("ok", "err", …), hidden when empty. */
  TC.say = function (id, base, text, kind) {
    const box = TC.$(id);
    box.textContent = text;
    box.className = base + " " + (kind || "");
    box.hidden = !text;
  };

  /* The rules' constants (faces, dice, flower totals, lock names) from /api/info; app.js loads them first. */
  TC.info = {};

  /* The legal moves of one kind that the engine published with the state (see docs/state.md). */
  TC.legalOf = (s, cmd) => ((s && s.legal) || []).filter((m) => m.cmd === cmd);

  TC.lockName = (key) => (TC.info.lock_names && TC.info.lock_names[key] ? TC.t(TC.info.lock_names[key]) : key);

  TC.possessive = (name) => (name.endsWith("s") ? name + "’" : name + "’s");

  /* Symbols: a shape and a word for each, never colour alone. */
  const ICONS = {
    bee:
      '<ellipse cx="20" cy="22" rx="11" ry="8" fill="#f5c518" stroke="#111" stroke-width="2"/>' +
      '<path d="M16 14.5v15M21 14v16M26 15v13" stroke="#111" stroke-width="3"/>' +
      '<ellipse cx="15" cy="11" rx="5" ry="7" fill="#dff1ff" stroke="#111" stroke-width="1.5"/>' +
      '<ellipse cx="24" cy="11" rx="5" ry="7" fill="#dff1ff" stroke="#111" stroke-width="1.5"/>' +
      '<circle cx="30" cy="21" r="1.6" fill="#111"/>',
    honey:
      '<path d="M20 5C14 15 10 20 10 26a10 10 0 0 0 20 0c0-6-4-11-10-21z" fill="#f2a20c" stroke="#5a3500" stroke-width="2"/>' +
      '<path d="M15 25a5 5 0 0 0 4 6" stroke="#fff6d0" stroke-width="2.5" fill="none" stroke-linecap="round"/>',
    zzz:
      '<text x="6" y="30" font-family="sans-serif" font-weight="bold" font-size="20" fill="#9fb8ff">Z</text>' +
      '<text x="19" y="22" font-family="sans-serif" font-weight="bold" font-size="14" fill="#9fb8ff">z</text>' +
      '<text x="28" y="15" font-family="sans-serif" font-weight="bold" font-size="10" fill="#9fb8ff">z</text>',
    zombee:
      '<ellipse cx="20" cy="22" rx="11" ry="8" fill="#5fbf3a" stroke="#111" stroke-width="2"/>' +
      '<path d="M16 14.5v15M21 14v16M26 15v13" stroke="#1d3a10" stroke-width="3"/>' +
      '<path d="M10 5l8 9M18 5l-8 9" stroke="#b8ff8a" stroke-width="2.5"/>' +
      '<path d="M22 5l8 9M30 5l-8 9" stroke="#b8ff8a" stroke-width="2.5"/>' +
      '<path d="M28 18l4 4M32 18l-4 4" stroke="#111" stroke-width="1.8"/>',
    question:
      '<circle cx="20" cy="20" r="14" fill="#7a4fd6" stroke="#fff" stroke-width="2"/>' +
      '<text x="20" y="27" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="20" fill="#fff">?</text>',
    flower:
      '<g fill="#3c6e3a" stroke="#b4d8a8" stroke-width="1.5">' +
      '<circle cx="20" cy="10" r="6"/><circle cx="29" cy="17" r="6"/><circle cx="26" cy="28" r="6"/>' +
      '<circle cx="14" cy="28" r="6"/><circle cx="11" cy="17" r="6"/></g>' +
      '<circle cx="20" cy="20" r="5" fill="#d9b44a"/>',
    green:
      '<path d="M20 5C14 15 10 20 10 26a10 10 0 0 0 20 0c0-6-4-11-10-21z" fill="#4caf50" stroke="#123d12" stroke-width="2"/>' +
      '<text x="20" y="31" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="11" fill="#fff">G</text>',
  };

  TC.LABELS = { bee: TC.t("Bee"), honey: TC.t("Honey"), zzz: "Zzz", zombee: "ZomBee", question: TC.t("Question mark"), flower: TC.t("Face down") };

  TC.icon = function (kind, size) {
    const px = size || 40;
    return TC.el("span", {
      class: "icon icon-" + kind,
      html: `<svg viewBox="0 0 40 40" width="${px}" height="${px}" aria-hidden="true" focusable="false">${ICONS[kind]}</svg>`,
    });
  };

  /* A die: the symbol above its word. */
  TC.die = function (face, extraClass) {
    return TC.el("span", { class: "die " + (extraClass || ""), title: TC.LABELS[face] },
      TC.icon(face, 36), TC.el("span", { class: "die-label", text: TC.LABELS[face] }));
  };

  TC.clear = function (node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  };

  /* The last events, newest first, in words (`below`: an older one, under those shown). */
  const MAX_EVENTS = 12;
  /* at: when it happened, in seconds (a line loaded from the log); now by default. Every line says when. */
  TC.addEvent = function (text, kind, below, at) {
    const list = TC.$("events");
    const item = TC.el("li", { class: "event " + (kind || "") });
    item.append(TC.el("span", { class: "when", text: TC.clockTime(at === undefined ? Date.now() / 1000 : at) + " " }));
    if (kind === "refused") item.append(TC.el("strong", { text: TC.t("Refused:") + " " }));
    item.append(text);
    if (below) list.append(item);
    else list.prepend(item);
    while (list.children.length > MAX_EVENTS) list.lastChild.remove();
  };

  /* A logged command in words when the engine said nothing of it: the new game (every later move has
     the engine's own sentences, TC.moveWords; the short words once written for each are not needed). */
  TC.describe = function (c) {
    if (c.cmd === "new_game") {
      return TC.t("New {game} game: {names}", { game: c.game === "zoo" ? "Zombie Zoo" : "ZomBee", names: c.players.join(", ") });
    }
    return c.cmd;
  };

  /* A game's accepted moves, each with the engine's sentences for it (GET /api/games/<id>). */
  TC.gameTimeline = async function (gameId) {
    const data = await (await fetch(`/api/games/${gameId}`, { cache: "no-store" })).json();
    return data.timeline || [];
  };

  /* A move in words, as the live list says it: the engine's sentences ("Mia rolled …"), or the
     command in short words when it said none (a new game). */
  TC.moveWords = (r) => (r.events && r.events.length ? r.events.map((e) => TC.eventText(e)) : [TC.describe(r.command)]);

  TC.setStatus = function (kind, text) {
    const node = TC.$("status");
    node.className = "status " + kind;
    node.textContent = text;
    document.body.classList.toggle("offline", kind === "offline");
  };
})(window.TC);
