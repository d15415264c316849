/* The live page: one event stream, reconnecting by itself, and the rendering of each state. */
"use strict";

(function (TC) {
  const { $ } = TC;
  let current = null; // the state on screen
  let source = null; // the EventSource
  let retryMs = 1000;
  let retryTimer = null;
  let heartbeatS = 5;
  let lastMessage = Date.now();
  let started = null; // when the server we talk to started (/api/info): another value means it restarted
  let everOpen = false;
  TC.current = () => current;

  function key(s) {
    return s ? `${s.game_id}:${s.seq}` : "none";
  }

  /* Show a state: from the stream (which starts with the current state and then carries each new
     one once, in order), or the answer to our own command while the stream is down. at: when the
     companion stored the move (its clock, seconds), from the stream; the phone's own clock may be
     hours off a Pi's that no network has set, and the chart and the lines follow the companion's. */
  TC.applyState = function (state, at) {
    const changed = key(state) !== key(current);
    // Another game on the table (a new one, a resumed one): "What happened" starts afresh with it
    // (the last game's lines stayed on, mixed with the new game's).
    if (current && state && state.game_id !== current.game_id) TC.clear($("events"));
    current = state || null;
    TC.show("chart-card", !!current);
    TC.show("zombee", !!current && current.game === "zombee");
    TC.show("zombee-more", !!current && current.game === "zombee");
    TC.show("zoo", !!current && current.game === "zoo");
    if (!current) {
      $("now-main").textContent = TC.t("No game yet");
      $("now-sub").textContent = TC.t("Set one up under Overrides below, with the PIN shown on the companion.");
      $("setup").open = true;
    } else if (current.game === "zombee") {
      TC.renderZombee(current);
    } else if (current.game === "zoo") {
      TC.renderZoo(current);
    }
    TC.renderCoach(current);
    if (TC.panelGame) TC.panelGame(current && current.game);
    if (changed) {
      showAlert("alert-dice", "");
      // a question still open in the controls (Undo) names a move that is no longer the last: it goes
      // with the controls, and is said to have gone (it vanished without a word)
      const asked = document.querySelector("#zb-controls .ask, #zoo-controls .ask");
      TC.renderControls(current);
      if (asked && !asked.isConnected) {
        TC.overrideMessage(TC.t("The game changed while you were asked, so nothing was taken back. Ask again if you still want to."), "error");
      }
      TC.chartPush(current, at);
    }
    $("footer").textContent = current
      ? TC.t("Game {id} · move {seq} · updated {time}", { id: current.game_id, seq: current.seq, time: new Date(at === undefined ? Date.now() : at * 1000).toLocaleTimeString(TC.lang) })
      : "";
    document.body.dataset.seq = current ? String(current.seq) : "";
    document.body.dataset.game = current ? String(current.game_id) : "";
  };

  function onState(event) {
    lastMessage = Date.now();
    const msg = JSON.parse(event.data);
    const before = current;
    if (!msg.initial) TC.fightMoved(msg); // before it is drawn: a roll the camera read offers its correction
    TC.applyState(msg.state, msg.time);
    // the move taken back leaves the chart too (the state pushed just now drew it back down: a spike)
    if (!msg.initial && msg.command && msg.command.cmd === "undo") TC.chartLoad();
    const resumed = !msg.initial && before && msg.state && msg.state.game_id !== before.game_id
      && !(msg.command && msg.command.cmd === "new_game");
    if ((msg.initial && msg.state && !$("events").children.length) || resumed) loadHistory();
    // Each stream carries a state once, so its events are new even if our own
    // command's answer already put that state on screen.
    if (!msg.initial) for (const e of msg.events || []) TC.addEvent(TC.eventText(e), e.kind, false, msg.time);
    if (!msg.initial) showMoment(msg.events);
    if (!msg.initial) showAlert("alert-restart", ""); // a move since the restart: no longer news
    if (!msg.initial && TC.panelMoved) TC.panelMoved(msg);
    if (!msg.initial && (!msg.command || msg.command.cmd === "new_game")) TC.loadUnfinished();
  }

  /* A banner for the moments everyone should notice; screen readers hear it at once. */
  let momentTimer = null;
  function showMoment(events) {
    const m = TC.moments(events);
    if (!m.texts.length) return;
    const node = $("moment");
    node.textContent = m.texts.join(" ");
    node.className = "moment" + (m.big ? " moment-big" : "");
    node.dataset.kinds = m.kinds.join(" ");
    node.hidden = false;
    clearTimeout(momentTimer);
    momentTimer = setTimeout(() => { node.hidden = true; }, m.big ? 10000 : 6000);
    node.onclick = () => { node.hidden = true; }; // a tap puts it away
  }

  /* What happened in this game before this page (or the game, resumed) came on screen: the engine's
     sentences for its last accepted moves, as the live lines say them ("Mia rolled …"), below anything
     newer that arrived meanwhile. */
  const HISTORY_LINES = 8;
  async function loadHistory() {
    const shown = current;
    if (!shown) return;
    try {
      const timeline = await TC.gameTimeline(shown.game_id);
      if (!current || current.game_id !== shown.game_id) return;
      const before = timeline.filter((r) => r.seq <= shown.seq); // later ones came as events
      const lines = before.flatMap((r) => TC.moveWords(r).map((text) => [text, r.time]));
      for (const [text, at] of lines.slice(-HISTORY_LINES).reverse()) TC.addEvent(text, "history", true, at);
    } catch (err) {
      /* offline: new events still arrive */
    }
  }

  function onRefused(event) {
    lastMessage = Date.now();
    const msg = JSON.parse(event.data);
    const words = TC.refusalWords(msg.error, msg.command, current, msg.words);
    TC.addEvent(words + (msg.source ? ` (${TC.sourceWords(msg.source)})` : ""), "refused", false, msg.time);
    if (msg.source === "panel") TC.panelRefused(words);
  }

  /* Lasting conditions (a restart, a lost camera, dice to check) stay on top until they end. */
  function showAlert(id, text) {
    $(id).textContent = text || "";
    TC.show(id, !!text);
  }

  function onNotice(event) {
    lastMessage = Date.now();
    const msg = JSON.parse(event.data);
    // Notices without words (the dice settling) are for the panel's LEDs, not for people.
    if (msg.text || msg.message) TC.addEvent(TC.eventText(msg) || msg.message, "notice", false, msg.time);
    if (msg.kind === "restart") showAlert("alert-restart", TC.eventText(msg));
    if (msg.kind === "camera") showAlert("alert-camera", msg.status === "lost" ? TC.eventText(msg) : "");
    if (msg.kind === "dice") showAlert("alert-dice", msg.status === "check" ? TC.eventText(msg) : "");
    if (msg.kind === "coach" && TC.coachSwitched) TC.coachSwitched(msg);
    if (msg.kind === "panel" && TC.panelNotice) TC.panelNotice(msg);
  }

  function showStatus(status) {
    if (status.restarted) {
      const at = TC.clockTime(status.started);
      showAlert("alert-restart", TC.t("The companion restarted at {time}; game {game} continues where it stood (move {move}).",
        { time: at, game: status.game, move: status.move })); // `run` names them whenever it restarted
    }
    if (status.camera === "lost") showAlert("alert-camera", TC.t("Camera offline: enter rolls on the page or the panel."));
    if (status.log_damaged) { // said to every phone that opens, and kept on top: games may be missing
      showAlert("alert-log", TC.t("Moves the game log kept in its write-ahead file could not be read (the file was damaged): games since the companion last stopped cleanly may be missing. A copy is kept as {name}.",
        { name: status.log_damaged }));
    }
  }

  /* While the stream is live it brings every state, our own commands' included. */
  TC.streamLive = function () {
    return !!source && source.readyState === EventSource.OPEN;
  };

  function offline() {
    TC.setStatus("offline", TC.t("Offline · retrying"));
  }

  function connect() {
    clearTimeout(retryTimer);
    if (source) source.close();
    TC.setStatus("connecting", TC.t("Connecting…"));
    source = new EventSource("/events");
    source.addEventListener("open", () => {
      retryMs = 1000;
      lastMessage = Date.now();
      TC.setStatus("live", TC.t("Live"));
      // "cannot be reached" is no longer true: such a message would stay until the next tap
      for (const node of document.querySelectorAll(".unreachable")) TC.say(node.id, node.classList[0], "", "");
      if (everOpen) checkRestart();
      everOpen = true;
    });
    source.addEventListener("state", onState);
    source.addEventListener("refused", onRefused);
    source.addEventListener("notice", onNotice);
    source.addEventListener("error", () => {
      offline();
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (server answered 503, or the Pi restarted): try again ourselves.
        retryTimer = setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 15000);
      }
    });
  }

  /* A silent stream may be a dead Wi-Fi link: check the state now and then. */
  async function watchdog() {
    if (Date.now() - lastMessage < heartbeatS * 3000) return;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 4000);
    try {
      const response = await fetch("/api/state", { cache: "no-store", signal: abort.signal });
      const state = response.status === 404 ? null : await response.json();
      if (response.ok || response.status === 404) {
        lastMessage = Date.now();
        if (key(state) !== key(current) || (source && source.readyState !== EventSource.OPEN)) {
          TC.applyState(state);
          connect(); // the stream missed something: start it again
        }
      }
    } catch (err) {
      offline();
      connect();
    } finally {
      clearTimeout(timer);
    }
  }

  /* Back after a break: if the server started anew meanwhile, say so (a page open across a restart). */
  async function checkRestart() {
    try {
      const info = await (await fetch("/api/info", { cache: "no-store" })).json();
      if (started !== null && info.started !== started) {
        const at = TC.clockTime(info.started);
        showAlert("alert-restart", TC.t("The companion restarted at {time}; this page has caught up with the game.", { time: at }));
        TC.addEvent(TC.t("The companion restarted at {time}.", { time: at }), "notice", false, info.started);
        TC.info = info;
        TC.renderPanel(info);
      }
      started = info.started;
    } catch (err) {
      /* still away: the next reconnect asks again */
    }
  }

  /* The rules' constants come first: every state is drawn with them. */
  async function loadInfo() {
    for (;;) {
      try {
        const info = await (await fetch("/api/info", { cache: "no-store" })).json();
        TC.info = info;
        started = info.started === undefined ? null : info.started;
        heartbeatS = info.heartbeat_s || heartbeatS;
        TC.renderPanel(info);
        showStatus(info.status || {});
        return;
      } catch (err) {
        offline();
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
  }

  document.addEventListener("DOMContentLoaded", async () => {
    TC.initOverrides();
    await loadInfo();
    TC.loadUnfinished();
    connect();
    setInterval(watchdog, 5000);
    window.addEventListener("online", connect);
    window.addEventListener("offline", offline);
  });
})(window.TC);
