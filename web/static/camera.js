/* The camera section: what the camera sees (refreshed twice a second, only while the section is
   open and the page is visible), teaching the dice step by step, and corrections that teach. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  /* Words in the phone's language when the page has a catalogue (TC.t, TC.tn); English otherwise. */
  const fill = (text, params) => text.replace(/\{(\w+)\}/g, (all, k) => (params && k in params ? String(params[k]) : all));
  TC.t = TC.t || ((text, params) => fill(text, params));
  TC.tn = TC.tn || ((one, many, n, params) => fill(n === 1 ? one : many, Object.assign({ n }, params || {})));
  const FRAME_MS = 500; // the picture: about twice a second
  const LOOK_MS = 1000; // the words for what is wrong
  const STATUS_MS = 2000; // the model, the wizard, the corrections waiting (other phones may change them)
  const NAMES = { bee: TC.t("Bee"), honey: TC.t("Honey"), zzz: TC.t("Zzz"), zombee: TC.t("ZomBee"), empty: TC.t("Empty tray") };
  let status = null; // GET /api/calibration
  let chosen = null; // the step this phone picked, else the first one not done
  let timers = {};
  let refusedPin = null; // a PIN the server refused: no more requests with it until a PIN is saved (each would count as a wrong guess)

  function headers() {
    const pin = TC.pin();
    return pin ? { Authorization: "Bearer " + pin } : {};
  }

  function isOpen() {
    return $("cam-details").open && !document.hidden && !!TC.pin() && TC.pin() !== refusedPin;
  }

  function say(text, kind) {
    TC.say("cam-msg", "ov-msg", text, kind);
  }

  async function get(url) {
    if (TC.pin() === refusedPin) return null;
    try {
      const r = await fetch(url, { headers: headers(), cache: "no-store" });
      if (r.status === 401 || r.status === 429) refusedPin = TC.pin(); // until another PIN is saved
      return r;
    } catch (err) {
      return null;
    }
  }

  function every(name, ms, fn) {
    clearTimeout(timers[name]);
    timers[name] = setTimeout(async () => {
      if (isOpen()) await fn();
      if (isOpen()) every(name, ms, fn);
    }, ms);
  }

  /* The picture: fetched with the PIN, shown as a data: URL (the page's CSP allows no blob:). */
  async function frame() {
    const overlay = $("cam-overlay").checked ? "?overlay=1" : "";
    const r = await get("/api/camera.jpg" + overlay);
    if (r && r.ok) {
      const blob = await r.blob();
      const url = await new Promise((resolve) => {
        const reader = new FileReader();
        reader.onload = () => resolve(reader.result);
        reader.readAsDataURL(blob);
      });
      $("cam-img").src = url;
      $("cam-img").hidden = false;
      $("cam-offline").hidden = true;
      return;
    }
    let reason = TC.t("The companion cannot be reached.");
    if (r) {
      try {
        reason = (await r.json()).error;
      } catch (err) {
        reason = r.statusText;
      }
      if (r.status === 401) reason = TC.t("The PIN was not accepted.");
      if (r.status === 429) reason = TC.t("Too many wrong PINs from this phone. Try again later.");
    }
    $("cam-img").hidden = true;
    $("cam-offline").hidden = false;
    if (r && (r.status === 401 || r.status === 429)) lockedView(true);
    $("cam-offline").textContent = reason.charAt(0).toUpperCase() + reason.slice(1);
  }

  async function look() {
    const r = await get("/api/camera");
    if (!r || !r.ok) return;
    const data = await r.json();
    const list = clear($("cam-problems"));
    for (const p of data.problems || []) list.append(el("li", { class: "problem", "data-code": p.code }, problemText(p)));
    if (!(data.problems || []).length) {
      const n = (data.dice || []).length;
      list.append(el("li", { class: "fine" }, TC.tn("The picture looks fine: one die seen.",
        "The picture looks fine: {n} dice seen.", n)));
    }
  }

  /* What is wrong with the picture, by its code (the server's English text otherwise). */
  function problemText(p) {
    const a = p.args || {};
    switch (p.code) {
      case "dark": return TC.t("Too dark: put more light on the tray (it is at {level} of 255).", a);
      case "tray": return TC.t("Tray not found: aim the camera so the light tray fills the middle of the picture.");
      case "glare": return TC.t("Glare: {share} of the picture is burnt white; move the lamp to one side or tilt it away from the camera.",
        { share: TC.percent(a.share / 100, 1) });
      case "small": return TC.t("Dice too small: {px} px across; move the camera closer ({best} px or more reads best).", a);
      case "moved": return a.read && a.times < 1
        ? TC.t("The dice look smaller than when they were taught: if the camera was raised, teach the dice again for the surest reading.")
        : a.times < 1
        ? TC.t("Most dice look smaller than the ones taught ({times} times their size) and are not read: if the camera was raised, put it back or teach the dice again.",
          { times: TC.number(a.times, 2) })
        : TC.t("The dice look larger than the ones taught ({times} times their size): if the camera was lowered, put it back or teach the dice again.",
          { times: TC.number(a.times, 2) });
      case "hand": return TC.t("A hand is over the tray.");
      case "offline": return TC.t("Camera offline: no picture.");
      case "space": return TC.t("The memory card is nearly full ({free} free): teaching the dice and keeping corrected rolls need room; delete old game exports or photos.",
        { free: TC.number(a.free / 1048576, 1) + " MB" });
      default: return p.text;
    }
  }

  /* Why a capture was not kept, by its code. */
  function refusalText(last) {
    const a = last.args || {};
    switch (last.code) {
      case "hand": return TC.t("a hand is over the tray: take it away and capture again");
      case "not_empty": return TC.tn("one die is in the tray: the empty-tray step needs the tray empty",
        "{n} dice are in the tray: the empty-tray step needs the tray empty", a.n);
      case "no_die": return TC.t("no die found: put the dice in the tray, {face} up", { face: NAMES[a.face] || a.face });
      case "mixed": return TC.t("mixed faces: {seen} among them; every die must show {face} up", {
        face: NAMES[a.face] || a.face, seen: (a.others || []).map((o) => `${o.n} ${NAMES[o.face] || o.face}`).join(", ") });
      default: return last.reason;
    }
  }

  function stepText(step) {
    return step === "empty"
      ? TC.t("Take every die out of the tray and tap Capture.")
      : TC.t("Put all five dice in the tray, {face} up, and tap Capture. Move them around between captures.",
        { face: NAMES[step] || step });
  }

  function modelText(m) {
    if (m.name === "default") return TC.t("the shipped model (not taught on this table)");
    return m.accuracy === null || m.accuracy === undefined
      ? TC.t("taught on this table ({when})", { when: m.when })
      : TC.t("taught on this table ({when}), {share} of its photos read right",
        { when: m.when, share: TC.percent(m.accuracy) });
  }

  async function refresh() {
    const r = await get("/api/calibration");
    if (!r) return;
    if (r.status === 401 || r.status === 429) {
      lockedView(true);
      return;
    }
    if (!r.ok) {
      try {
        say((await r.json()).error, "error");
      } catch (err) {
        say(r.statusText, "error");
      }
      return;
    }
    status = await r.json();
    render();
  }

  function lockedView(locked) {
    $("cam-locked").hidden = !locked;
    $("cam-locked").textContent = TC.pin() && TC.pin() === refusedPin
      ? TC.t("The PIN was not accepted. Save the right one under Overrides to see the camera.")
      : TC.t("Enter the override PIN (under Overrides) to see the camera and teach the dice.");
    $("cam-body").hidden = locked;
  }

  function currentStep(w) {
    const steps = w.steps;
    if (chosen && steps.some((s) => s.step === chosen)) return chosen;
    const open = steps.find((s) => s.captures < s.suggested);
    return (open || steps[steps.length - 1]).step;
  }

  /* What the last learning from corrected rolls did (vision/teach/relearn.py), in the phone's language. */
  function learnedText(l) {
    if (!l) return "";
    if (l.learning) return TC.t("Learning from {n} corrected rolls…", { n: l.rolls });
    if (l.error) return TC.t("Could not learn from the corrected rolls: {why}", { why: l.error });
    const pct = (v) => TC.percent(v, 1);
    return l.adopted
      ? TC.t("Learned from {n} corrected rolls: {before} → {after}.", { n: l.rolls, before: pct(l.before), after: pct(l.after) })
      : TC.t("Kept the model in use: it reads the {n} corrected rolls {before} right, the model learned from them {after}.",
        { n: l.rolls, before: pct(l.before), after: pct(l.after) });
  }

  function render() {
    lockedView(false);
    const s = status;
    $("cam-model").textContent = TC.t("In use: {model}.", { model: modelText(s.model) });
    $("cam-revert").hidden = !s.previous;
    $("cam-revert").title = s.previous ? TC.t("Back to {model}", { model: modelText(s.previous) }) : "";
    // a damaged models.json, a model that does not load, a corrected roll not kept: said as the server words it
    const problems = clear($("cam-store-problems"));
    for (const text of s.problems || []) problems.append(el("li", { class: "problem" }, text));
    $("cam-restore").hidden = !s.restore;
    $("cam-restore").title = s.restore ? modelText(s.restore) : "";
    const n = s.corrections;
    $("cam-corrections").hidden = !n;
    $("cam-corrections").textContent = n
      ? TC.tn("One corrected die waits to be learned (from rolls a phone corrected).",
        "{n} corrected dice wait to be learned (from rolls a phone corrected).", n)
      : "";
    $("cam-learned").hidden = !learnedText(s.learned);
    $("cam-learned").textContent = learnedText(s.learned);
    $("cam-learn").hidden = !n || !!s.wizard;
    $("cam-forget").hidden = !n || !!s.wizard;
    $("cam-badge").hidden = !n && !s.wizard;
    $("cam-badge").textContent = s.wizard ? TC.t("teaching under way") : n ? TC.t("{n} corrected", { n }) : "";
    const w = s.wizard;
    $("cam-start").hidden = !!w;
    $("cam-wizard").hidden = !w;
    if (!w) return;
    const step = currentStep(w);
    const built = !!w.report;
    const list = clear($("cam-steps"));
    for (const st of w.steps) {
      const li = el("li", { class: [st.step === step ? "current" : "", st.captures >= st.suggested ? "done" : ""].join(" "),
        "data-step": st.step });
      li.append(el("button", { type: "button", onclick: () => { chosen = st.step; render(); } },
        TC.t("{step}: {captures} of {suggested}", { step: NAMES[st.step], captures: st.captures, suggested: st.suggested })));
      list.append(li);
    }
    const info = w.steps.find((st) => st.step === step);
    $("cam-step-text").textContent = w.kind === "corrections" ? TC.t("Learning from the corrected dice.")
      : built ? TC.t("The model is built: use it, or discard it and keep the one in use.") : stepText(info.step);
    $("cam-capture").dataset.step = step;
    $("cam-capture").hidden = built || w.building || w.kind === "corrections";
    $("cam-capture").textContent = TC.t("Capture ({step})", { step: NAMES[step] });
    // demo mode has no dice to lay by hand: the simulated tray lays them as the step asks
    $("cam-demo-lay").hidden = $("cam-capture").hidden || !(TC.info && TC.info.demo);
    $("cam-demo-lay").dataset.step = step;
    // learning from corrections builds at once; Finish is shown only to build again after a failed build
    $("cam-finish").hidden = built || w.building || (w.kind === "corrections" && !w.error);
    $("cam-finish").disabled = w.steps.some((st) => !st.captures);
    $("cam-cancel").textContent = built ? TC.t("Discard it") : TC.t("Cancel");
    $("cam-building").hidden = !w.building;
    const last = w.last;
    const lastBox = $("cam-last");
    if (last && !built) {
      lastBox.textContent = last.accepted
        ? TC.tn("Captured {step} {captures}: one die found.", "Captured {step} {captures}: {n} dice found.", last.dice,
          { step: NAMES[last.step], captures: last.captures })
        : TC.t("Not kept: {reason}.", { reason: refusalText(last) });
      lastBox.className = "cam-last " + (last.accepted ? "good" : "bad");
    } else {
      lastBox.textContent = w.error ? w.error : "";
      lastBox.className = "cam-last" + (w.error ? " bad" : "");
    }
    $("cam-report").hidden = !built;
    $("cam-use").hidden = !built;
    if (built) renderReport(w.report);
  }

  /* The calibration's advice in the page's language, from its parts (a report from before they were
     sent has the English sentence only). */
  function advice(rep) {
    if (!rep.more) return rep.advice;
    const face = NAMES[rep.weakest] || rep.weakest;
    let text = TC.tn("take one more photo of {face}", "take {n} more photos of {face}", rep.more, { face })
      + (rep.short ? TC.t(" (only {n})", { n: (rep.photos || {})[rep.weakest] || 0 })
        : TC.t(" ({percent} of its dice read right when left out)", { percent: TC.percent(rep.faces[rep.weakest]) }));
    if ((rep.also || []).length) {
      text += TC.t("; also {faces}", { faces: rep.also.map((f) => NAMES[f] || f).join(", ") });
    }
    return text;
  }

  function renderReport(rep) {
    const rows = clear($("cam-report-rows"));
    for (const [face, acc] of Object.entries(rep.faces)) {
      rows.append(el("tr", { class: face === rep.weakest && !rep.ok ? "weak" : "" },
        el("td", {}, NAMES[face] || face), el("td", {}, TC.percent(acc)),
        el("td", {}, String((rep.photos || {})[face] || 0))));
    }
    $("cam-advice").textContent = rep.ok ? TC.t("Good: every face was read right when left out.")
      : TC.t("Weakest face: {face}. Advice: {advice}.", { face: NAMES[rep.weakest] || rep.weakest, advice: advice(rep) });
    // the photos the advice asks for, taken at once: back to capturing that face, then Finish again
    const more = $("cam-more");
    more.hidden = rep.ok || !rep.more || !NAMES[rep.weakest];
    more.dataset.step = rep.weakest;
    more.textContent = TC.tn("Take one more photo of {face}", "Take {n} more photos of {face}", rep.more || 0,
      { face: NAMES[rep.weakest] || rep.weakest });
    if (rep.pips) {  // plain pip dice, one count a face: the pip reader reads their pips too (name/pipfaces.py)
      const counts = Object.entries(rep.pips).map(([f, n]) => (NAMES[f] || f) + " " + n).join(", ");
      $("cam-advice").textContent += " " + TC.t("Your dice are pip dice ({counts}): their pips are read too.", { counts });
    }
    if (rep.enlarged) {  // the dice were found only in an enlarged picture: the camera is far from the tray
      $("cam-advice").textContent += " " + TC.t("The dice are small in the camera's picture: bring it closer to the tray.");
    }
  }

  async function act(action, body, pending) {
    say(pending || "", "pending");
    const data = await TC.post("/api/calibration/" + action, body, say);
    if (data) say("", "");
    await refresh();
    return data;
  }

  /* A roll corrected on some phone may leave dice to learn: after each new state, the badge on the
     closed section is brought up to date (at most every 5 s; the open section polls anyway). */
  let badgeAt = 0;
  function followStates() {
    const apply = TC.applyState;
    if (typeof apply !== "function") return;
    TC.applyState = function (state) {
      apply.apply(this, arguments);
      const now = Date.now();
      if (TC.pin() && TC.pin() !== refusedPin && !$("cam-details").open && now - badgeAt > 5000) {
        badgeAt = now;
        setTimeout(refresh, 1000); // the correction is kept just after the state that made it
      }
    };
  }

  function init() {
    followStates();
    const details = $("cam-details");
    details.addEventListener("toggle", start);
    $("pin-form").addEventListener("submit", () => { // a PIN saved (again): try it
      refusedPin = null;
      setTimeout(start, 0);
    });
    document.addEventListener("visibilitychange", start);
    $("cam-overlay").addEventListener("change", frame);
    $("cam-start").addEventListener("click", async () => {
      chosen = null;
      await act("start");
    });
    $("cam-capture").addEventListener("click", async (e) => {
      const step = e.currentTarget.dataset.step;
      const answer = await act("capture", { face: step }, TC.t("Capturing…"));
      if (answer && answer.accepted) chosen = null; // on to the next step once this one has enough
    });
    $("cam-demo-lay").addEventListener("click", async (e) => {
      const step = e.currentTarget.dataset.step;
      const faces = step === "empty" ? [] : Array(TC.info.dice).fill(step); // laid anew, elsewhere, each time
      if (await TC.post("/api/demo/tray", { faces }, say)) say(TC.t("Laid. Now tap Capture."), "ok");
    });
    $("cam-finish").addEventListener("click", async () => {
      const done = act("finish", undefined, TC.t("Building the model…"));
      setTimeout(refresh, 300); // show "building" while the answer is on its way
      await done;
    });
    $("cam-use").addEventListener("click", async () => {
      if (await act("use")) say(TC.t("The new model is in use. Roll the dice to try it."), "ok");
    });
    $("cam-more").addEventListener("click", async (e) => {
      const step = e.currentTarget.dataset.step;
      if (await act("more", { face: step })) chosen = step;
      render();
    });
    $("cam-cancel").addEventListener("click", () => act("cancel"));
    $("cam-revert").addEventListener("click", async () => {
      if (await act("revert")) say(TC.t("Back to the previous model."), "ok");
    });
    $("cam-restore").addEventListener("click", async () => {
      if (await act("restore")) say(TC.t("The newest taught model that loads is in use."), "ok");
    });
    $("cam-learn").addEventListener("click", async () => {
      const done = act("learn", undefined, TC.t("Learning from the corrected dice…"));
      setTimeout(refresh, 300);
      await done;
    });
    $("cam-forget").addEventListener("click", async () => {
      if (await act("forget")) say(TC.t("The corrected dice were forgotten."), "ok");
    });
    start();
  }

  /* Work only while someone looks: the timers stop themselves when the section closes. */
  function start() {
    if (!TC.pin()) {
      lockedView(true);
      return;
    }
    if (!isOpen()) {
      if (!status) refresh(); // once, for the badge (corrections waiting, a wizard under way)
      return;
    }
    refresh();
    frame();
    look();
    every("frame", FRAME_MS, frame);
    every("look", LOOK_MS, look);
    every("status", STATUS_MS, refresh);
  }

  document.addEventListener("DOMContentLoaded", init);
})(window.TC);
