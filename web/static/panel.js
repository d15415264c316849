/* The virtual panel (demo mode) and a mirror of the box: what Select/Lock picked, the seat lights,
   the status LED, what the last beep meant, and each press's answer right next to the buttons.
   Everything shown comes from the panel's own `panel` notices (hw/panel.py) and the table's messages. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const t = (text, params) => TC.t(text, params);
  // The buttons each game uses (hw/mapping.py); the rest are hidden so nobody presses a Zoo button in ZomBee.
  const FOR_GAME = {
    zombee: ["Bee", "Question", "ZomBee", "Select", "OK", "Stop", "Undo", "Roll"],
    zoo: ["Select", "OK", "Undo", "Roll", "Kill", "Life -", "Bullet -", "Lock"],
  };
  const LIGHTS = { on: ["●", t("lit")], blink: ["◐", t("blinking")], fast: ["◐", t("blinking fast")],
    off: ["○", t("off")] };
  // The buttons' words in the page's language, the same the hints use ("Hold Undo…" is "Halte Zurück…").
  const LABELS = { Bee: t("Bee"), Question: t("Question"), ZomBee: "ZomBee", Select: t("Select"), OK: t("OK"),
    Stop: t("Stop"), Undo: t("Undo"), Roll: t("Roll"), Kill: t("Kill"), "Life -": t("Life -"),
    "Bullet -": t("Bullet -"), Lock: t("Lock") };
  const label = (name) => LABELS[name] || name;
  const SOUNDS = { // (each in t(): a word only reaches the catalogue written out where it is looked up)
    short: t("One short beep: the press was taken."),
    long: t("A long beep: a ZomBee, a player out or a win."),
    longZoo: t("A long beep: a hero out or a win."), // the Zoo has no ZomBee
    refused: t("Three short beeps: the press was refused."),
  };
  let box = null; // the last snapshot of the box: {highlight, seats, status_led, hold_s}
  let game = null;

  function holdS() {
    return (box && box.hold_s) || 1;
  }

  /* The answer to the last press, next to the panel: ok, refused or a hint. */
  function say(text, kind) {
    TC.say("panel-msg", "panel-msg", text, kind);
  }
  TC.panelSay = say;

  /* Press a button of the box; `saying` is shown meanwhile (default: "Bee pressed…"). */
  let rollPressed = false; // the camera's roll, not a panel move, answers a press of Roll
  async function press(name, holdSeconds, saying) {
    say(saying || t("{button} pressed…", { button: label(name) }), "pending");
    rollPressed = name === "Roll";
    // "unreachable" stays with the words, so that reconnecting clears them (app.js)
    const done = await TC.post("/api/demo/press", { button: name, hold_s: holdSeconds },
      (text, kind) => say(text, "refused " + (kind || "")));
    // Accepted by the box; the table's answer (taken or refused) replaces this when it comes.
    if (done && !saying && $("panel-msg").classList.contains("pending")) {
      say(t("{button} pressed.", { button: label(name) }), "pending");
    }
  }

  function renderMirror() {
    const mirror = $("panel-mirror");
    if (!mirror) return;
    clear(mirror);
    if (!box) return;
    const h = box.highlight || {};
    const picked = [];
    if (h.player) picked.push(el("span", { class: "pick" }, t("Picked: {name}", { name: h.player })));
    if (h.lock) picked.push(el("span", { class: "pick" }, t("Lock: {lock}", { lock: TC.lockName(h.lock) })));
    mirror.append(el("p", { class: "picked", id: "panel-picked" },
      ...(picked.length ? picked : [el("span", { class: "muted", text: t("Nothing picked with Select or Lock.") })])));
    const seats = el("ul", { class: "seats", "aria-label": t("Seat lights") });
    for (const seat of box.seats || []) {
      const [symbol, word] = LIGHTS[seat.light] || LIGHTS.off;
      seats.append(el("li", { class: "seat seat-" + seat.light, "data-player": seat.player },
        el("span", { class: "seat-light", "aria-hidden": "true", text: symbol }),
        el("span", { class: "seat-name", text: seat.player }),
        el("span", { class: "sr-only", text: " " + word })));
    }
    mirror.append(seats);
  }

  /* A `panel` notice, or the status of /api/info when the page opens. */
  TC.panelNotice = function (msg) {
    box = msg;
    renderMirror();
    const sound = msg.sound === "long" && game === "zoo" ? "longZoo" : msg.sound;
    if (sound && SOUNDS[sound]) $("panel-sound").textContent = SOUNDS[sound];
  };

  /* The table's answer to a press on the panel (the box's or ours). */
  TC.panelRefused = function (words) {
    say(t("Refused: {reason}", { reason: words }), "refused");
  };
  function taken(events) {
    const text = (events || []).map((e) => TC.eventText(e)).join(" ");
    say(text || t("Taken."), "ok");
  }
  /* A move the table took (msg: a state from the stream). A panel move answers the last press, and so
     does the camera's roll after Roll was pressed here; any other move leaves an earlier answer out of
     date ("Mia's turn to roll." while Mia is on her second roll), so it goes. */
  TC.panelMoved = function (msg) {
    if (msg.source === "panel" || (rollPressed && msg.source === "camera")) {
      rollPressed = false;
      taken(msg.events);
    } else if (!$("panel-msg").classList.contains("pending")) {
      say("");
    }
  };

  function showButtons() {
    const wanted = FOR_GAME[game];
    for (const b of document.querySelectorAll("#panel-buttons .panel-btn")) {
      b.hidden = !!wanted && !wanted.includes(b.dataset.button);
    }
  }
  TC.panelGame = function (name) {
    game = name || null;
    showButtons();
  };

  /* Undo acts after a hold, as on the box: the button fills while held; once full, the press
     (a hold of the box's own length) is sent at once, without waiting for the finger to lift.
     Let go before it is full, and nothing is sent: the page says to hold for a second. */
  function undoButton(b, name) {
    let downAt = 0;
    let sent = false;
    let timer = null;
    const release = () => {
      if (!downAt) return;
      downAt = 0;
      clearTimeout(timer);
      b.classList.remove("holding");
      b.style.removeProperty("--hold");
      if (!sent) say(t("Hold Undo for a second to take back the last move."), "hint");
    };
    b.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      try {
        b.setPointerCapture(e.pointerId); // the finger may slide or the page move: the hold goes on
      } catch (err) {
        /* a synthetic event has no pointer to capture */
      }
      downAt = performance.now();
      sent = false;
      b.style.setProperty("--hold", holdS() + "s");
      b.classList.add("holding");
      say(t("Keep holding…"), "pending");
      timer = setTimeout(() => {
        sent = true;
        press(name, Math.min(holdS() + 0.05, 2), t("Taking back the last move…"));
      }, holdS() * 1000);
    });
    b.addEventListener("pointerup", release);
    b.addEventListener("pointerleave", release);
    b.addEventListener("pointercancel", release);
    b.addEventListener("keydown", (e) => { // a keyboard user holds the key the same way
      if ((e.key === " " || e.key === "Enter") && !downAt && !e.repeat) {
        e.preventDefault();
        b.dispatchEvent(new PointerEvent("pointerdown"));
      }
    });
    b.addEventListener("keyup", (e) => {
      if (e.key === " " || e.key === "Enter") release();
    });
  }

  TC.renderPanel = function (info) {
    // A real box (companion run on the Pi) is mirrored too; only demo mode has buttons to press here.
    const mirrored = !!(info && info.status && info.status.panel);
    TC.show("panel", !!(info && info.demo) || mirrored);
    if (!info) return;
    const buttons = clear($("panel-buttons"));
    for (const name of info.demo ? info.buttons : []) {
      const b = el("button", { type: "button", class: "btn panel-btn", "data-button": name },
        el("span", { class: "panel-label", text: label(name) }));
      if (name === "Undo") {
        b.append(el("span", { class: "hold-fill", "aria-hidden": "true" }));
        b.setAttribute("aria-label", t("Undo (hold for a second)"));
        undoButton(b, name);
      } else {
        b.addEventListener("click", () => press(name, 0));
      }
      b.addEventListener("contextmenu", (e) => e.preventDefault()); // a long press must not open a menu
      buttons.append(b);
    }
    if (info.status && info.status.panel) TC.panelNotice(info.status.panel);
    showButtons();
  };
})(window.TC);
