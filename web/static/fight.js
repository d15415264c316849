/* The Zoo's fight, on every phone: who fights, what the die showed, and the choices the engine lists
   (state.fight and legal: docs/zoo.md "Combat"). A die the camera misread is put right with one tap. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const PIPS = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
  let camera = null; // the last fight roll the camera entered: {game_id, seq, player, roll}

  /* app.js hands over each move as it arrives, so a roll the camera read can be corrected. */
  TC.fightMoved = function (msg) {
    const c = msg.command || {};
    const s = msg.state || {};
    camera = msg.source === "camera" && c.cmd === "fight" && c.roll
      ? { game_id: s.game_id, seq: s.seq, player: c.player, roll: c.roll } : null;
  };

  function say(text, kind) {
    TC.say("fight-msg", "fight-msg", text, kind);
  }

  async function send(cmd, seen) {
    say(TC.t("Sending…"), "pending");
    const state = await TC.post("/api/commands", cmd, say, seen);
    if (state) {
      say("", "");
      if (!TC.streamLive()) TC.applyState(state);
    }
    return state;
  }

  function button(text, onclick, extra) {
    return el("button", { type: "button", class: "btn " + (extra || ""), onclick }, text);
  }

  function dieButton(n, onclick) {
    return el("button", { type: "button", class: "btn die-value", "aria-label": TC.t("the die shows {n}", { n }),
      onclick }, el("span", { "aria-hidden": "true", class: "pips", text: PIPS[n - 1] }), String(n));
  }

  function bullets(n) {
    return n === 1 ? TC.t("1 bullet") : TC.t("{n} bullets", { n }); // the engine's words (zoo_words.bullets_said)
  }

  /* The sentence the engine said when the roll came (the same templates, so one translation). */
  function choiceWords(s, f) {
    const hero = s.players.find((p) => p.name === f.player) || { life: 0, bullets: 0 };
    const args = { name: f.player, roll: f.roll, bullets: bullets(f.needs) };
    if (hero.bullets >= f.needs) {
      return hero.life > 1 ? TC.t("{name} rolled {roll}: spend {bullets} or lose a life and roll again.", args)
        : TC.t("{name} rolled {roll}: spend {bullets}, as bullets go before the last life.", args);
    }
    return hero.life > 1 ? TC.t("{name} rolled {roll}, and bullets cannot bring it to 4: lose a life and roll again.", args)
      : TC.t("{name} rolled {roll}, and bullets cannot bring it to 4: the last life is lost.", args);
  }

  /* One tap: the camera's roll taken back (only if it is still the last move) and the right one entered. */
  function correction(s) {
    if (!camera || camera.game_id !== s.game_id || camera.seq !== s.seq) return null;
    const { player, roll } = camera;
    const fix = async (n) => {
      if (await send({ cmd: "undo" }, s)) await send({ cmd: "fight", player, roll: n });
    };
    return el("div", { class: "fight-fix" },
      el("p", { class: "muted", text: TC.t("The camera read {roll}. Wrong? Tap what the die shows:", { roll }) }),
      el("div", { class: "row die-row" }, ...[1, 2, 3, 4, 5, 6].filter((n) => n !== roll)
        .map((n) => dieButton(n, () => fix(n)))));
  }

  /* Below the heroes: who may start a fight (the glance above stays on the first screen). On top, while
     a fight is open or the camera's last roll may be corrected: the fight itself. */
  TC.renderFight = function (s) {
    const box = clear($("zoo-fight"));
    const f = s.fight;
    const open = TC.legalOf(s, "fight").filter((m) => !("roll" in m));
    const fighters = clear($("zoo-fighters"));
    TC.show("zoo-fighters", !s.over && open.length > 0);
    if (open.length) {
      fighters.append(el("h3", { text: TC.t("Who fights a zombie?") }),
        el("div", { class: "row" }, ...open.map((m) => button(m.player, () => send(m), "fight-hero"))));
    }
    const fix = s.over ? null : correction(s);
    TC.show("zoo-fight", !s.over && (!!f || !!fix));
    if (s.over) return;
    if (!f) {
      // only the correction of the camera's roll that ended the fight
    } else if (f.roll === null) {
      box.append(el("p", { class: "fight-now", text: TC.t("{name} fights a zombie: roll the die.", { name: f.player }) }),
        el("p", { class: "muted", text: TC.t("The camera reads the die; without it, tap what it shows:") }),
        el("div", { class: "row die-row" }, ...[1, 2, 3, 4, 5, 6].map((n) =>
          dieButton(n, () => send({ cmd: "fight", player: f.player, roll: n })))));
    } else {
      const row = el("div", { class: "row" });
      const spend = TC.legalOf(s, "spend_bullets")[0];
      if (spend) {
        row.append(button(TC.t("Spend {bullets}", { bullets: bullets(spend.count.min) }),
          () => send({ cmd: "spend_bullets", player: f.player, count: spend.count.min }), "primary"));
      }
      if (TC.legalOf(s, "lose_life").length) {
        const last = (s.players.find((p) => p.name === f.player) || {}).life === 1;
        row.append(button(last ? TC.t("Lose the last life") : TC.t("Lose a life, roll again"),
          () => send({ cmd: "lose_life", player: f.player }), "warn"));
      }
      box.append(el("p", { class: "fight-now", text: choiceWords(s, f) }), row);
    }
    if (fix) box.append(fix);
    const msg = el("p", { id: "fight-msg", class: "fight-msg", role: "status", hidden: true });
    (f || fix ? box : fighters).append(msg);
  };
})(window.TC);
