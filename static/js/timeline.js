/**
 * The playback bar of a lab on the virtual clock, built from its actions in the group
 * "timeline" (play, pause, step, set_speed): one Play toggle, Step, a Speed select, the
 * virtual clock, and a line that says whether time is running, paused, or standing still
 * because nothing is scheduled. It redraws from `snapshot.playback` on every frame.
 * It is the "Time" row of the playback panel (simulated time); the "History" row beside
 * it (history-bar.js) moves through the moments instead. While the history's cursor is in
 * the past, time waits (the room clock does not tick there): `setPast(true)` says so.
 */

import { fmt, num, t } from "./i18n.js";

/** @import { Action, Choice, Declaration, Playback, Send, ServerError, Snapshot } from "./types.js" */

/**
 * The playback bar (createTimeline).
 * @typedef {object} TimelineBar
 * @property {(snapshot: Snapshot | null, frame?: {ref?: string | null} | null) => void} update
 *   redraw from `snapshot.playback`; `frame.ref` acknowledges one of our actions
 * @property {(inPast: boolean) => void} setPast the history's cursor is in the past
 * @property {(problem: ServerError) => boolean} showError false when the error is not ours
 * @property {(reason: string | null) => void} setLocked off with the reason, or on with null
 * @property {(on: boolean) => void} setEnabled
 * @property {() => void} toggle play when paused, pause when playing
 * @property {(element: HTMLElement) => () => void} bindSpace Space on `element` plays or
 *   pauses; returns what undoes it
 * @property {() => void} destroy
 */

/**
 * Build the bar in `container` from `declaration`, or return null (and hide the
 * container) when the lab has no timeline actions. `send(action, args)` returns a ref.
 * @param {HTMLElement} container
 * @param {Declaration} declaration
 * @param {Send} send
 * @returns {TimelineBar | null}
 */
export function createTimeline(container, declaration, send) {
  const actions = new Map(
    declaration.actions.filter((a) => a.group === "timeline").map((a) => [a.name, a]),
  );
  container.hidden = actions.size === 0;
  if (actions.size === 0) {
    container.replaceChildren();
    return null;
  }
  /** @type {Map<string, string>} ref → what it was for ("speed", "play", ...) */
  const refs = new Map();
  /** @type {Playback | null} */
  let playback = null;
  let enabled = true;
  /** @type {string | null} */
  let locked = null; // why the bar is off (a class someone else drives), or null
  let past = false; // the history's cursor is in the past: time waits

  // One button whose words say what it will do ("Play" or "Pause"): on a projector
  // the label must match the icon, so it changes with the state (no aria-pressed).
  const playLabel = actions.get("play")?.label ?? t("Play");
  const pauseLabel = actions.get("pause")?.label ?? t("Pause");
  const playButton = actions.has("play") ? button(playLabel, "timeline-play") : null;
  const playText = playButton?.firstChild ?? null;
  if (playButton) {
    playButton.dataset.playing = "false";
    playButton.prepend(icon());
    playButton.addEventListener("click", () => toggle());
  }
  const stepAction = actions.get("step");
  const stepButton = stepAction ? button(stepAction.label, "timeline-step") : null;
  stepButton?.addEventListener("click", () => {
    if (stepButton.getAttribute("aria-disabled") === "true") return;
    act("step", {});
  });
  const speedAction = actions.get("set_speed");
  const speed = speedAction ? speedField(speedAction) : null;
  speed?.select.addEventListener("change", () => {
    const choice = speed.choices[speed.select.selectedIndex];
    if (choice) act("set_speed", { [speed.param]: choice.value }, "speed");
  });
  const title = document.createElement("h2");
  title.className = "bar-title";
  title.id = "timeline-title";
  title.textContent = t("Time");
  title.title = t("Simulated time: play, pause, or step to the next event.");
  container.setAttribute("aria-labelledby", title.id);
  const clock = document.createElement("p");
  clock.className = "timeline-clock";
  clock.setAttribute("role", "timer");
  const state = document.createElement("p");
  state.className = "timeline-state";
  const error = document.createElement("p");
  error.className = "timeline-error";
  error.setAttribute("role", "alert");
  error.hidden = true;
  const lockNote = document.createElement("p");
  lockNote.className = "locked-note";
  lockNote.id = "timeline-locked-note";
  lockNote.hidden = true;
  const buttons = document.createElement("div");
  buttons.className = "timeline-buttons";
  buttons.append(...[playButton, stepButton].filter((b) => b !== null));
  container.replaceChildren(
    ...[title, buttons, speed?.element, clock, state, error, lockNote].filter((e) => e !== undefined),
  );

  /**
   * @param {string} action
   * @param {Record<string, unknown>} args
   * @param {string} [purpose] what the ref is remembered for
   */
  function act(action, args, purpose = action) {
    if (!enabled || locked) return null;
    error.hidden = true;
    const ref = send(action, args);
    if (ref) refs.set(ref, purpose);
    return ref;
  }

  /** Play when paused, pause when playing (the server has the last word). */
  function toggle() {
    if (!playButton) return;
    const playing = playButton.dataset.playing === "true";
    act(playing ? "pause" : "play", {});
  }

  function speedPending() {
    return [...refs.values()].includes("speed");
  }

  /** @type {TimelineBar} */
  const bar = {
    /**
     * Redraw from `snapshot.playback`; `frame.ref` acknowledges one of our actions.
     * @param {Snapshot | null} snapshot
     * @param {{ref?: string | null} | null} [frame]
     */
    update(snapshot, frame = null) {
      if (frame?.ref) refs.delete(frame.ref);
      playback = snapshot?.playback ?? null;
      if (!playback) return;
      if (playButton) {
        const playing = Boolean(playback.playing);
        if (playButton.dataset.playing !== String(playing)) {
          playButton.dataset.playing = String(playing);
          if (playText) playText.textContent = playing ? pauseLabel : playLabel;
        }
      }
      if (stepButton && stepAction && !locked) {
        const idle = playback.next_due_ms === null || playback.next_due_ms === undefined;
        stepButton.setAttribute("aria-disabled", String(idle));
        stepButton.title = idle
          ? t("Nothing is scheduled: do something first.")
          : (stepAction.help ?? "");
      }
      if (speed && !speedPending()) {
        const current = playback.speed;
        const index = speed.choices.findIndex((c) => c.value === current);
        if (index >= 0 && speed.select.selectedIndex !== index) speed.select.selectedIndex = index;
      }
      const text = fmt(t("t = %(ms)s ms"), { ms: num(playback.now_ms ?? 0) });
      if (clock.textContent !== text) clock.textContent = text;
      const [key, words] = describeState(playback, past);
      if (state.dataset.state !== key) {
        state.dataset.state = key;
        state.textContent = words;
        // whole where the row is narrow: the state ends in an ellipsis, or is hidden
        state.title = words;
        clock.title = words;
      }
    },
    /** Whether the history's cursor is in the past (the room's clock then waits). */
    setPast(inPast) {
      past = Boolean(inPast);
      if (playback) bar.update({ playback });
    },
    /** Show a refused timeline action; false when the error is not ours. */
    showError(problem) {
      if (!problem.ref || !refs.has(problem.ref)) return false;
      refs.delete(problem.ref);
      error.textContent = fmt(t("Not applied: %(message)s"), {
        message: problem.message || problem.code,
      });
      error.hidden = false;
      if (playback) bar.update({ playback });
      return true;
    },
    /** Show the bar as off with the reason (a class someone else drives), or on with null. */
    setLocked(reason) {
      locked = reason || null;
      lockNote.textContent = locked ?? "";
      lockNote.hidden = !locked;
      for (const el of [playButton, stepButton]) {
        if (!el) continue;
        if (locked) {
          el.setAttribute("aria-disabled", "true");
          el.setAttribute("aria-describedby", lockNote.id);
        } else {
          el.removeAttribute("aria-describedby");
          if (el === playButton) el.removeAttribute("aria-disabled");
        }
      }
      if (speed) speed.select.disabled = Boolean(locked) || !enabled;
      if (!locked && playback) bar.update({ playback });
    },
    /** Disable or enable the bar (e.g. while disconnected). */
    setEnabled(on) {
      enabled = on;
      for (const el of [playButton, stepButton, speed?.select]) if (el) el.disabled = !on;
      if (!on) refs.clear();
    },
    toggle,
    /** Space on `element` itself (not on a control inside it) plays or pauses. */
    bindSpace(element) {
      if (!playButton) return () => {};
      element.tabIndex = 0;
      element.setAttribute("aria-keyshortcuts", "Space");
      /** @param {KeyboardEvent} event */
      const onKey = (event) => {
        if (event.key !== " " || event.target !== element) return;
        event.preventDefault();
        toggle();
      };
      element.addEventListener("keydown", onKey);
      return () => {
        element.removeEventListener("keydown", onKey);
        element.removeAttribute("tabindex");
        element.removeAttribute("aria-keyshortcuts");
      };
    },
    destroy() {
      container.replaceChildren();
      container.hidden = true;
    },
  };
  return bar;
}

/**
 * The state line's key and words.
 * @param {Playback} playback
 * @param {boolean} [past]
 * @returns {[string, string]}
 */
function describeState(playback, past = false) {
  if (past) return ["past", t("Time waits while you look at the past.")];
  const idle = playback.next_due_ms === null || playback.next_due_ms === undefined;
  if (!playback.playing) return ["paused", t("Paused.")];
  if (idle) return ["idle", t("Nothing is scheduled, so time stands still until you act.")];
  return ["playing", t("Playing.")];
}

/**
 * @param {string} text
 * @param {string} className
 */
function button(text, className) {
  const el = document.createElement("button");
  el.type = "button";
  el.className = `button ${className}`;
  el.append(document.createTextNode(text));
  return el;
}

function icon() {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.classList.add("play-icon");
  svg.innerHTML =
    '<path class="when-paused" d="M4 2.5v11l9-5.5z"/>' +
    '<path class="when-playing" d="M3.5 2.5h3v11h-3zM9.5 2.5h3v11h-3z"/>';
  return svg;
}

/**
 * The Speed select of `set_speed` (its one `choice` parameter).
 * @param {Action} action
 * @returns {{element: HTMLElement, select: HTMLSelectElement, choices: Choice[], param: string}}
 */
function speedField(action) {
  const param = action.params[0];
  const element = document.createElement("div");
  element.className = "field timeline-speed";
  const select = document.createElement("select");
  select.id = "timeline-speed";
  const label = document.createElement("label");
  label.htmlFor = select.id;
  label.textContent = param.label;
  const choices = param.kind === "choice" ? param.choices : [];
  for (const choice of choices) select.append(new Option(choice.label, String(choice.value)));
  if (param.help) select.title = param.help;
  element.append(label, select);
  return { element, select, choices, param: param.name };
}
