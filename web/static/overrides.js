/* The PIN (kept in this phone's local storage), sending overrides and the new-game form
   (the virtual panel is panel.js). */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const KEY = "companion.pin";

  TC.pin = function () {
    try {
      return localStorage.getItem(KEY) || "";
    } catch (err) {
      return "";
    }
  };

  function setPin(value) {
    try {
      if (value) localStorage.setItem(KEY, value);
      else localStorage.removeItem(KEY);
    } catch (err) {
      /* private mode: the PIN lasts until the page is closed */
    }
    showPinState();
  }

  function showPinState() {
    const has = !!TC.pin();
    $("pin-state").textContent = has
      ? TC.t("PIN saved on this phone. Clear the field and save to forget it.")
      : TC.t("Enter the PIN shown on the companion to change the game from this phone.");
    $("overrides").classList.toggle("unlocked", has);
  }

  function lockedOut(response) {
    const wait = response.headers.get("Retry-After");
    return wait ? TC.t("Too many wrong PINs from this phone. Try again in {n} s.", { n: wait })
      : TC.t("Too many wrong PINs from this phone. Try again later.");
  }

  /* Save PIN asks the companion first (POST /api/pin, counted like any wrong PIN): a wrong PIN is
     said at once, not at the first move, and is not kept. An empty field forgets the PIN. */
  async function savePin(event) {
    event.preventDefault();
    const typed = $("pin-input").value.trim();
    if (!typed) {
      setPin("");
      message("", "");
      return;
    }
    message(TC.t("Checking the PIN…"), "pending");
    let response;
    try {
      response = await fetch("/api/pin", { method: "POST", headers: { Authorization: "Bearer " + typed },
        cache: "no-store" });
    } catch (err) {
      message(TC.t("Not saved: the companion cannot be reached to check the PIN."), "error unreachable");
      return;
    }
    if (response.ok) {
      setPin(typed);
      message(TC.t("PIN saved: this phone can change the game now."), "ok");
    } else if (response.status === 429) {
      message(lockedOut(response), "error");
    } else {
      message(TC.t("Wrong PIN: not saved. Type the PIN the companion shows."), "error");
    }
  }

  function message(text, kind) {
    TC.say("ov-msg", "ov-msg", text, kind);
  }
  TC.overrideMessage = message;

  /* seen: the state a confirmed question was asked about; the companion then applies the command only
     if the game is still there (If-Match), so two phones confirming Undo at once take back one move. */
  async function post(url, body, say = message, seen = undefined) {
    const headers = { "Content-Type": "application/json" };
    const pin = TC.pin();
    if (pin) headers.Authorization = "Bearer " + pin;
    if (seen !== undefined) headers["If-Match"] = seen ? `"g${seen.game_id}-${seen.seq}"` : '"none"';
    let response;
    try {
      response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), cache: "no-store" });
    } catch (err) {
      say(TC.t("Not sent: the companion cannot be reached."), "error unreachable"); // cleared on reconnecting
      return null;
    }
    let data = null;
    try {
      data = await response.json();
    } catch (err) {
      data = null;
    }
    const reason = (data && data.error) || response.statusText;
    if (response.ok) return data || {};
    if (response.status === 401) {
      say(pin ? TC.t("The PIN was not accepted. Check it and save it again.") : TC.t("Enter the override PIN first."), "error");
    } else if (response.status === 429) {
      say(lockedOut(response), "error");
    } else if (response.status === 412) {
      say(TC.t("Not done: the game changed meanwhile (another phone, the panel or the camera). Look again, and send it again if it is still wanted."), "error");
    } else if (response.status === 400 && url === "/api/commands") {
      say(TC.refusalWords(reason, body, TC.current && TC.current()), "error"); // a sentence, not the API's detail
    } else {
      say(TC.t("Refused: {reason}", { reason: TC.plainReason(reason) }), "error");
    }
    return null;
  }
  TC.post = post; // (url, body, say): the PIN-protected POSTs of other parts of the page

  TC.send = async function (cmd, seen = undefined) {
    message(TC.t("Sending…"), "pending");
    const state = await post("/api/commands", cmd, message, seen);
    if (state) {
      message(TC.t("Done."), "ok");
      if (!TC.streamLive()) TC.applyState(state); // else the stream shows it, in order with the others
    }
    return state;
  };

  function newGame(event) {
    event.preventDefault();
    const game = $("ng-game").value;
    const players = $("ng-players").value.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
    const cmd = { cmd: "new_game", game, players };
    if (game === "zombee") cmd.variant = $("ng-variant").value;
    // sent for the game on screen when it is confirmed: another phone's new game meanwhile refuses it
    // (two phones made two games), a move in the old game while the question stood does not
    TC.guardNewGame(() => TC.send(cmd, (TC.current && TC.current()) || null).then((state) => {
      if (state) $("setup").open = false;
      TC.loadUnfinished();
    }));
  }

  function variantVisibility() {
    const zb = $("ng-game").value === "zombee";
    $("ng-variant").hidden = !zb;
    $("ng-variant-label").hidden = !zb;
  }

  TC.initOverrides = function () {
    $("pin-input").value = TC.pin();
    $("pin-form").addEventListener("submit", savePin);
    $("new-game").addEventListener("submit", newGame);
    $("ng-game").addEventListener("change", variantVisibility);
    variantVisibility();
    showPinState();
  };
})(window.TC);
