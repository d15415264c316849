/* Zombies!!! 12: Zombie Zoo: the locks, the heroes, the leader. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const LOCK_STATES = {
    "60:00": ["◷", "60:00", "locked, long timer"],
    "30:00": ["◑", "30:00", "locked, short timer"],
    open: ["○", "Open", "open: the animals are out"],
    removed: ["✖", "Removed", "removed from play"],
    collected: ["✔", "Collected", "collected"],
  };

  function leaders(s) {
    const alive = s.players.filter((p) => p.alive !== false);
    const pool = alive.length ? alive : s.players;
    const best = Math.max(...pool.map((p) => p.score));
    return pool.filter((p) => p.score === best).map((p) => p.name);
  }

  function headline(s) {
    if (s.over) {
      const w = s.winners || [];
      return [w.length ? `${w.join(" and ")} ${w.length > 1 ? "win" : "wins"}!` : "Game over", "Start a new game under Overrides."];
    }
    const lead = leaders(s);
    const best = Math.max(...s.players.map((p) => p.score));
    const n = s.next_release_in;
    const release = n === null ? "no lock left on the board" : `next release in ${n} kill${n === 1 ? "" : "s"}`;
    return [`Leader: ${lead.join(", ")}`, `${best} point${best === 1 ? "" : "s"} · ${release}`];
  }

  function renderLocks(s) {
    const box = clear($("zoo-locks"));
    for (const [key, raw] of Object.entries(s.locks)) {
      const name = TC.lockName(key);
      const [symbol, word, meaning] = LOCK_STATES[raw] || ["", raw, raw];
      const holders = s.players.filter((p) => (p.locks || []).includes(key)).map((p) => p.name);
      box.append(el("div", { class: "lock lock-" + String(raw).replace(":", "") , "aria-label": `${name}: ${meaning}` },
        el("div", { class: "lock-name", text: name }),
        el("div", { class: "lock-state" }, el("span", { class: "lock-symbol", "aria-hidden": "true", text: symbol }), word),
        holders.length ? el("div", { class: "lock-holder", text: "by " + holders.join(", ") }) : null));
    }
    const r = $("zoo-release");
    clear(r);
    if (s.next_release_in === null) {
      let why = "No lock is left on the board: play on until one hero is left or the animals are cleared.";
      if (s.over) why = "The game is over.";
      else if (TC.legalOf(s, "collect_lock").length) why = "The release clock will not run again: every living hero has reached it.";
      r.append(why);
    } else {
      r.append("Kills to the next release: ", el("strong", { text: String(s.next_release_in) }),
        el("span", { class: "muted", text: ` (every ${s.release_at})` }));
    }
  }

  function hearts(n) {
    return el("span", { class: "hearts", "aria-label": `${n} life` },
      el("span", { "aria-hidden": "true", class: "heart-icons", text: "♥" }), String(n));
  }

  function renderPlayers(s) {
    const body = clear($("zoo-players"));
    const lead = s.over ? s.winners || [] : leaders(s);
    for (const p of s.players) {
      const isLead = lead.includes(p.name);
      const locks = (p.locks || []).map(TC.lockName).join(", ") || "—";
      // The name on its own line (cut with … when long); badges and locks held wrap beneath it.
      const held = (p.locks || []).length;
      body.append(el("tr", { class: (isLead ? "leader " : "") + (p.alive === false ? "dead" : "") },
        el("th", { scope: "row" },
          el("span", { class: "hero-name", title: p.name },
            isLead ? el("span", { class: "star", "aria-label": "leader: ", text: "★ " }) : null, p.name),
          p.alive === false || held ? el("span", { class: "hero-sub" },
            p.alive === false ? el("span", { class: "badge badge-out", text: "Dead" }) : null,
            held ? el("span", { class: "locks-cell", text: "🔒 " + locks }) : null) : null),
        el("td", { text: String(p.kills) }),
        el("td", {}, hearts(p.life)),
        el("td", { text: String(p.bullets) }),
        el("td", { class: "score", text: String(p.score) })));
    }
  }

  TC.renderZoo = function (s) {
    const [main, sub] = headline(s);
    $("now-main").textContent = main;
    $("now-sub").textContent = sub;
    renderLocks(s);
    renderPlayers(s);
  };
})(window.TC);
