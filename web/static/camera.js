/* The camera section: what the camera sees (refreshed twice a second, only while the section is
   open and the page is visible), teaching the dice step by step, and corrections that teach. */
"use strict";

(function (TC) {
  const { el, $, clear } = TC;
  const FRAME_MS = 500; // the picture: about twice a second
  const LOOK_MS = 1000; // the words for what is wrong
  const STATUS_MS = 2000; // the model, the wizard, the corrections waiting (other phones may change them)
  const NAMES = { bee: "Bee", honey: "Honey", zzz: "Zzz", zombee: "ZomBee", empty: "Empty tray" };
  let status = null; // GET /api/calibration
  let chosen = null; // the step this phone picked, else the first one not done
  let timers = {};

  function headers() {
    const pin = TC.pin();
    return pin ? { Authorization: "Bearer " + pin } : {};
  }

  function isOpen() {
    return $("cam-details").open && !document.hidden && !!TC.pin();
  }

  function say(text, kind) {
    const box = $("cam-msg");
    box.textContent = text;
    box.className = "ov-msg " + (kind || "");
    box.hidden = !text;
  }

  async function get(url) {
    try {
      const r = await fetch(url, { headers: headers(), cache: "no-store" });
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
    let reason = "The companion cannot be reached.";
    if (r) {
      try {
        reason = (await r.json()).error;
      } catch (err) {
        reason = r.statusText;
      }
      if (r.status === 401) reason = "The PIN was not accepted.";
    }
    $("cam-img").hidden = true;
    $("cam-offline").hidden = false;
    $("cam-offline").textContent = reason.charAt(0).toUpperCase() + reason.slice(1);
  }

  async function look() {
    const r = await get("/api/camera");
    if (!r || !r.ok) return;
    const data = await r.json();
    const list = clear($("cam-problems"));
    for (const p of data.problems || []) list.append(el("li", { class: "problem", "data-code": p.code }, p.text));
    if (!(data.problems || []).length) {
      const n = (data.dice || []).length;
      list.append(el("li", { class: "fine" }, `The picture looks fine: ${n} ${n === 1 ? "die" : "dice"} seen.`));
    }
  }

  async function refresh() {
    const r = await get("/api/calibration");
    if (!r) return;
    if (r.status === 401) {
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
    $("cam-body").hidden = locked;
  }

  function currentStep(w) {
    const steps = w.steps;
    if (chosen && steps.some((s) => s.step === chosen)) return chosen;
    const open = steps.find((s) => s.captures < s.suggested);
    return (open || steps[steps.length - 1]).step;
  }

  function render() {
    lockedView(false);
    const s = status;
    $("cam-model").textContent = "In use: " + s.model.text + ".";
    $("cam-revert").hidden = !s.previous;
    $("cam-revert").title = s.previous ? "Back to " + s.previous.text : "";
    const n = s.corrections;
    $("cam-corrections").hidden = !n;
    $("cam-corrections").textContent = n
      ? `${n} corrected ${n === 1 ? "die waits" : "dice wait"} to be learned (from rolls a phone corrected).`
      : "";
    $("cam-learn").hidden = !n || !!s.wizard;
    $("cam-forget").hidden = !n || !!s.wizard;
    $("cam-badge").hidden = !n && !s.wizard;
    $("cam-badge").textContent = s.wizard ? "teaching under way" : n ? `${n} corrected` : "";
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
        `${NAMES[st.step]}: ${st.captures} of ${st.suggested}`));
      list.append(li);
    }
    const info = w.steps.find((st) => st.step === step);
    $("cam-step-text").textContent = w.kind === "corrections" ? "Learning from the corrected dice."
      : built ? "The model is built: use it, or discard it and keep the one in use." : info.text;
    $("cam-capture").dataset.step = step;
    $("cam-capture").hidden = built || w.building || w.kind === "corrections";
    $("cam-capture").textContent = `Capture (${NAMES[step]})`;
    $("cam-finish").hidden = built || w.building || w.kind === "corrections";
    $("cam-finish").disabled = w.steps.some((st) => !st.captures);
    $("cam-cancel").textContent = built ? "Discard it" : "Cancel";
    $("cam-building").hidden = !w.building;
    const last = w.last;
    const lastBox = $("cam-last");
    if (last && !built) {
      lastBox.textContent = last.accepted
        ? `Captured ${NAMES[last.step]} ${last.captures}: ${last.dice} ${last.dice === 1 ? "die" : "dice"} found.`
        : `Not kept: ${last.reason}.`;
      lastBox.className = "cam-last " + (last.accepted ? "good" : "bad");
    } else {
      lastBox.textContent = w.error ? w.error : "";
      lastBox.className = "cam-last" + (w.error ? " bad" : "");
    }
    $("cam-report").hidden = !built;
    $("cam-use").hidden = !built;
    if (built) renderReport(w.report);
  }

  function renderReport(rep) {
    const rows = clear($("cam-report-rows"));
    for (const [face, acc] of Object.entries(rep.faces)) {
      rows.append(el("tr", { class: face === rep.weakest && !rep.ok ? "weak" : "" },
        el("td", {}, NAMES[face] || face), el("td", {}, `${Math.round(acc * 100)}%`),
        el("td", {}, String((rep.photos || {})[face] || 0))));
    }
    const verdict = rep.ok ? "Good: every face was read right when left out." : `Weakest face: ${NAMES[rep.weakest] || rep.weakest}.`;
    $("cam-advice").textContent = `${verdict} ${rep.ok ? "" : "Advice: " + rep.advice + "."}`.trim();
  }

  async function act(action, body, pending) {
    say(pending || "", "pending");
    const data = await TC.post("/api/calibration/" + action, body, say);
    if (data) say("", "");
    await refresh();
    return data;
  }

  function init() {
    const details = $("cam-details");
    details.addEventListener("toggle", start);
    document.addEventListener("visibilitychange", start);
    $("cam-overlay").addEventListener("change", frame);
    $("cam-start").addEventListener("click", async () => {
      chosen = null;
      await act("start");
    });
    $("cam-capture").addEventListener("click", async (e) => {
      const step = e.currentTarget.dataset.step;
      const answer = await act("capture", { face: step }, "Capturing…");
      if (answer && answer.accepted) chosen = null; // on to the next step once this one has enough
    });
    $("cam-finish").addEventListener("click", async () => {
      const done = act("finish", undefined, "Building the model…");
      setTimeout(refresh, 300); // show "building" while the answer is on its way
      await done;
    });
    $("cam-use").addEventListener("click", async () => {
      if (await act("use")) say("The new model is in use. Roll the dice to try it.", "ok");
    });
    $("cam-cancel").addEventListener("click", () => act("cancel"));
    $("cam-revert").addEventListener("click", async () => {
      if (await act("revert")) say("Back to the previous model.", "ok");
    });
    $("cam-learn").addEventListener("click", async () => {
      const done = act("learn", undefined, "Learning from the corrected dice…");
      setTimeout(refresh, 300);
      await done;
    });
    $("cam-forget").addEventListener("click", async () => {
      if (await act("forget")) say("The corrected dice were forgotten.", "ok");
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
