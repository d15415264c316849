/* Zombies!!! 12: Zombie Zoo: the locks, the heroes, the leader. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const LOCK_STATES = {
    "60:00": ["◷", "60:00", TC.t("locked, long timer")],
    "30:00": ["◑", "30:00", TC.t("locked, short timer")],
    open: ["○", TC.t("Open"), TC.t("open: the animals are out")],
    removed: ["✖", TC.t("Removed"), TC.t("removed from play")],
    collected: ["✔", TC.t("Collected"), TC.t("collected")],
  };

  function leaders(s) {
    const alive = s.players.filter((p) => p.alive !== false);
    const pool = alive.length ? alive : s.players;
    const best = Math.max(...pool.map((p) => p.score));
    if (best <= 0) return []; // nobody has scored yet: nobody leads (it named every hero at the start)
    return pool.filter((p) => p.score === best).map((p) => p.name);
  }

  function headline(s) {
    if (s.over) {
      const w = s.winners || [];
      const won = w.length > 1 ? TC.t("{names} win!", { names: w.join(TC.t(" and ")) })
        : w.length ? TC.t("{name} wins!", { name: w[0] }) : TC.t("Game over");
      return [won, TC.t("Start a new game under Overrides.")];
    }
    const lead = leaders(s);
    const best = Math.max(...s.players.map((p) => p.score));
    const n = s.next_release_in;
    const release = n === null ? TC.t("no lock left on the board")
      : TC.tn("next release in 1 kill", "next release in {n} kills", n);
    if (!lead.length) return [TC.t("No points yet"), release];
    return [TC.t("Leader: {names}", { names: lead.join(", ") }),
      (best === 1 ? TC.t("1 point") : TC.t("{n} points", { n: best })) + " · " + release];
  }

  function renderLocks(s) {
    const box = clear($("zoo-locks"));
    for (const [key, raw] of Object.entries(s.locks)) {
      const name = TC.lockName(key);
      const [symbol, word, meaning] = LOCK_STATES[raw] || ["", raw, raw];
      const holders = s.players.filter((p) => (p.locks || []).includes(key)).map((p) => p.name);
      box.append(el("div", { class: "lock lock-" + String(raw).replace(":", ""), role: "group", "aria-label": name + ": " + meaning },
        el("div", { class: "lock-name", text: name }),
        el("div", { class: "lock-state" }, el("span", { class: "lock-symbol", "aria-hidden": "true", text: symbol }), word),
        holders.length ? el("div", { class: "lock-holder", text: TC.t("by {names}", { names: holders.join(", ") }) }) : null));
    }
    const r = $("zoo-release");
    clear(r);
    if (s.next_release_in === null) {
      let why = TC.t("No lock is left on the board: play on until one hero is left or the animals are cleared.");
      if (s.over) why = TC.t("The game is over.");
      else if (TC.legalOf(s, "collect_lock").length) why = TC.t("The release clock will not run again: every living hero has reached it.");
      r.append(why);
    } else {
      r.append(TC.t("Kills to the next release:") + " ", el("strong", { text: String(s.next_release_in) }),
        el("span", { class: "muted", text: " " + TC.t("(every {n})", { n: s.release_at }) }));
    }
  }

  function hearts(n) {
    return el("span", { class: "hearts", role: "img", "aria-label": TC.t("{n} life", { n }) },
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
            isLead ? el("span", { class: "star", "aria-label": TC.t("leader:") + " ", text: "★ " }) : null, p.name),
          p.alive === false || held ? el("span", { class: "hero-sub" },
            p.alive === false ? el("span", { class: "badge badge-out", text: TC.t("Dead") }) : null,
            held ? el("span", { class: "locks-cell", text: "✔ " + locks }) : null) : null),
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
    TC.renderFight(s);
  };
})(window.TC);
