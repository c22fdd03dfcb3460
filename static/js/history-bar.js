/**
 * The history bar of every lab: where the room's timeline cursor is among the actions of
 * its current branch (hello's and every frame's `timeline`: {cursor, length, moments,
 * forks}), and the means to move it. It steps and counts by moments (moments.js: what a
 * person did, with the clock's ticks after it), and scrubs through every position.
 * Moving the cursor is an action like any other, `seek {to}`:
 *
 * - a scrubber (a range input from 0 to the length, the moments drawn under it as
 *   marks): arrows move one position, PageUp and PageDown one moment, Home and End jump,
 *   a drag sends at most five seeks a second and one more where it is let go;
 * - Step back and Step forward: to the start of the moment (just before its action),
 *   and to the end of the next one;
 * - "Moment n of N", and in `aria-valuetext` the virtual time too (a clocked lab, in the
 *   past);
 * - for a lab without a clock, Replay: back to the start if at the end, then one moment
 *   forward every 0.7 s until the end or until the user does anything else;
 * - while the cursor is in the past, a note that acting starts a new branch; after a fork,
 *   a sentence saying so, and the earlier branches (`timeline.forks`) with a "Copy link"
 *   each (`get_link` with the fork's id, which stays the same as other forks come).
 */

import { button, el } from "./classroom/dom.js";
import { fmt, num, t, tn } from "./i18n.js";
import {
  describeSeek,
  marksBackground,
  momentsOf,
  momentText,
  stopAfter,
  stopBefore,
} from "./moments.js";
import { createCopyResult } from "./share.js";

/** @import { Moments } from "./moments.js" */
/** @import { Fork, LabEvent, Send, ServerError, Timeline } from "./types.js" */

/**
 * What the bar reads of the hello or frame a timeline came in.
 * @typedef {{t_ms?: number, ref?: string | null, events?: LabEvent[], action?: {name: string}}} Moment
 */

/**
 * The history bar (createHistoryBar).
 * @typedef {object} HistoryBar
 * @property {(next: Timeline | null | undefined, frame?: Moment | null) => void} update
 *   redraw from a hello's or a frame's `timeline`; `frame` is that hello or frame
 * @property {(problem: ServerError) => boolean} showError false when the error is not ours
 * @property {(reason: string | null) => void} setLocked off with the reason, or on with null
 * @property {(on: boolean) => void} setEnabled
 * @property {() => void} stopReplay the user did something else
 * @property {(events: LabEvent[]) => (string | null)[]} describe the narrator's sentences
 *   for a frame's timeline events
 * @property {() => void} destroy
 */

const DRAG_SEEK_MS = 200; // at most five seeks a second while dragging
const REPLAY_STEP_MS = 700;

/**
 * Build the bar in `container`. `send(action, args)` returns a ref; `getLink(fork)`
 * resolves to a `link` answer; `clocked` says the lab has its own Play (so no Replay).
 * @param {HTMLElement} container
 * @param {{send: Send, getLink: (fork: number | null) => Promise<{link: string}>,
 *   clocked?: boolean}} options
 * @returns {HistoryBar}
 */
export function createHistoryBar(container, { send, getLink, clocked = false }) {
  /** @type {Moments & {forks: Fork[]}} */
  let timeline = { cursor: 0, length: 0, moments: [], skipped: 0, total: 0, forks: [] };
  /** @type {number | null} the virtual time at the cursor (a clocked lab), from its frame */
  let timeMs = null;
  let marksKey = "";
  /** @type {string | null} */
  let locked = null;
  let enabled = true;
  let dragging = false;
  /** @type {number | null} the target of our last seek still on its way */
  let lastSent = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let throttle = null;
  /** @type {ReturnType<typeof setInterval> | null} the replay's timer */
  let replaying = null;
  /** @type {Set<string | null | undefined>} refs of our seeks not yet answered */
  const seeks = new Set();
  let branchesOpen = false;

  const title = el("h2", {
    className: "bar-title",
    text: t("History"),
    attrs: {
      id: "history-title",
      title: t("Every action so far: go back to any moment, or watch it all again."),
    },
  });
  // the words in a span of their own: where the playback row is narrow they are hidden
  // from sight (the arrow stays, the words stay the button's name and its tooltip)
  const back = button("", "button button-quiet history-back");
  back.append(arrow("back"), words(t("Step back")));
  back.title = t("Step back");
  const forward = button("", "button button-quiet history-forward");
  forward.append(words(t("Step forward")), arrow("forward"));
  forward.title = t("Step forward");
  const scrubber = el("input", {
    className: "history-scrubber",
    attrs: {
      id: "history-scrubber",
      type: "range",
      min: 0,
      max: 0,
      step: 1,
      value: 0,
      "aria-label": t("Moment in the history"),
      "aria-keyshortcuts": "PageUp PageDown",
    },
  });
  const readout = el("p", { className: "history-readout", attrs: { id: "history-readout" } });
  const replay = clocked ? null : button(t("Replay"), "button button-quiet history-replay");
  if (replay) {
    replay.title = t("Watch what happened again, one action at a time.");
    replay.setAttribute("aria-pressed", "false");
  }
  const track = el("div", { className: "history-track" }, back, scrubber, forward);
  const main = el("div", { className: "history-main" }, title, track, readout, replay);
  const past = el("p", {
    className: "history-past",
    text: t(
      "You are looking at the past: acting now starts a new branch; the current one stays reachable by its link.",
    ),
  });
  past.hidden = true;
  const forked = el("p", { className: "history-forked", attrs: { role: "status" } });
  forked.hidden = true;
  const branchList = el("ul", { className: "history-branch-list" });
  const branchSummary = el("summary", {});
  const branches = el("details", { className: "history-branches" }, branchSummary, branchList);
  branches.hidden = true;
  branches.addEventListener("toggle", () => {
    branchesOpen = branches.open;
  });
  const error = el("p", { className: "timeline-error", attrs: { role: "alert" } });
  error.hidden = true;
  const lockNote = el("p", { className: "locked-note", attrs: { id: "history-locked-note" } });
  lockNote.hidden = true;
  container.replaceChildren(main, past, forked, branches, error, lockNote);
  container.hidden = false;
  container.setAttribute("aria-labelledby", title.id);

  // -- sending --------------------------------------------------------------------------

  /**
   * Send `seek` to `to` (kept within the branch); returns its ref, or null when not sent.
   * @param {number} to
   * @param {{fromReplay?: boolean}} [options]
   */
  function seek(to, { fromReplay = false } = {}) {
    if (!enabled || locked) return null;
    if (!fromReplay) stopReplay();
    const target = Math.max(0, Math.min(timeline.length, to));
    if (target === where()) return null;
    error.hidden = true;
    const ref = send("seek", { to: target });
    if (ref) {
      seeks.add(ref);
      lastSent = target;
    }
    return ref;
  }

  /** Where the cursor is, or is about to be (our last seek on its way). */
  function where() {
    return seeks.size && lastSent !== null ? lastSent : timeline.cursor;
  }

  back.addEventListener("click", () => {
    if (back.getAttribute("aria-disabled") === "true") return;
    seek(stopBefore(timeline, where()));
  });
  forward.addEventListener("click", () => {
    if (forward.getAttribute("aria-disabled") === "true") return;
    seek(stopAfter(timeline, where()));
  });
  // PageUp and PageDown move by a moment (a range input's own would move a tenth)
  scrubber.addEventListener("keydown", (event) => {
    if (event.key !== "PageUp" && event.key !== "PageDown") return;
    event.preventDefault();
    const from = where();
    seek(event.key === "PageUp" ? stopAfter(timeline, from) : stopBefore(timeline, from));
  });

  // The scrubber: a drag sends now and then; letting go (or a key) sends where it is.
  scrubber.addEventListener("pointerdown", () => {
    dragging = true;
    stopReplay();
  });
  const release = () => {
    if (!dragging) return;
    dragging = false;
    sendScrubber();
  };
  scrubber.addEventListener("pointerup", release);
  scrubber.addEventListener("pointercancel", release);
  scrubber.addEventListener("input", () => {
    if (locked || !enabled) {
      scrubber.value = String(where());
      return;
    }
    showReadout(Number(scrubber.value));
    if (!dragging) return; // a key: "change" follows at once
    if (throttle === null) {
      sendScrubber();
      throttle = setTimeout(() => {
        throttle = null;
        if (dragging) sendScrubber();
      }, DRAG_SEEK_MS);
    }
  });
  scrubber.addEventListener("change", () => {
    if (locked || !enabled) {
      scrubber.value = String(where());
      return;
    }
    dragging = false;
    sendScrubber();
  });

  function sendScrubber() {
    seek(Number(scrubber.value));
  }

  // -- replay -----------------------------------------------------------------------------

  replay?.addEventListener("click", () => {
    if (replay.getAttribute("aria-disabled") === "true") return;
    if (replaying !== null) {
      stopReplay();
      return;
    }
    if (!enabled || locked || timeline.length === 0) return;
    replaying = setInterval(replayStep, REPLAY_STEP_MS);
    replay.setAttribute("aria-pressed", "true");
    replay.textContent = t("Stop replay");
    if (timeline.cursor >= timeline.length) seek(0, { fromReplay: true });
    else replayStep();
  });

  function replayStep() {
    if (replaying === null) return;
    if (seeks.size) return; // wait for the last step to be drawn
    if (timeline.cursor >= timeline.length) {
      stopReplay();
      return;
    }
    seek(stopAfter(timeline, timeline.cursor), { fromReplay: true });
  }

  function stopReplay() {
    if (replaying === null) return;
    clearInterval(replaying);
    replaying = null;
    if (replay) {
      replay.setAttribute("aria-pressed", "false");
      replay.textContent = t("Replay");
    }
  }

  // -- drawing ----------------------------------------------------------------------------

  /** @param {number} position */
  function showReadout(position) {
    const text = momentText(timeline, position);
    if (readout.textContent !== text) readout.textContent = text;
    // The time is known where the cursor is (its frame said), not where a drag is. At
    // the end it runs (the Time row's timer says it): a focused slider whose text
    // changed ten times a second would talk over everything else.
    const { cursor, length } = timeline;
    const ms = timeMs;
    const timed = clocked && ms !== null && position === cursor && cursor < length;
    const valueText = timed
      ? fmt(t("%(moment)s, at %(ms)s ms"), { moment: text, ms: num(ms) })
      : text;
    if (scrubber.getAttribute("aria-valuetext") !== valueText) {
      scrubber.setAttribute("aria-valuetext", valueText);
    }
  }

  function drawMarks() {
    const key = `${timeline.length}:${timeline.moments.join(",")}`;
    if (key === marksKey) return;
    marksKey = key;
    const marks = marksBackground(timeline);
    scrubber.style.backgroundImage = marks?.image ?? "";
    scrubber.style.backgroundSize = marks?.size ?? "";
    scrubber.style.backgroundPosition = marks?.position ?? "";
    scrubber.style.backgroundRepeat = marks ? "no-repeat" : "";
  }

  function draw() {
    const { cursor, length } = timeline;
    if (scrubber.max !== String(length)) scrubber.max = String(length);
    if (!dragging && !seeks.size && scrubber.value !== String(cursor)) {
      scrubber.value = String(cursor);
    }
    const shown = dragging || seeks.size ? Number(scrubber.value) : cursor;
    showReadout(shown);
    drawMarks();
    scrubber.style.setProperty("--fill", length ? `${(shown / length) * 100}%` : "0%");
    const off = Boolean(locked) || !enabled;
    setOff(back, off || where() <= 0, locked);
    setOff(forward, off || where() >= length, locked);
    if (replay) setOff(replay, off || length === 0, locked);
    scrubber.setAttribute("aria-disabled", String(off));
    if (locked) scrubber.setAttribute("aria-describedby", lockNote.id);
    else scrubber.removeAttribute("aria-describedby");
    scrubber.disabled = !enabled;
    past.hidden = cursor >= length;
    container.dataset.past = String(cursor < length);
    drawBranches();
  }

  function drawBranches() {
    const forks = timeline.forks ?? [];
    branches.hidden = forks.length === 0;
    const key = JSON.stringify(forks);
    if (branches.dataset.key === key) return;
    branches.dataset.key = key;
    branchSummary.textContent = fmt(
      tn("Earlier branch (%(n)s)", "Earlier branches (%(n)s)", forks.length),
      { n: num(forks.length) },
    );
    // the newest first: the one just left behind is the one people look for
    const items = forks
      .map((fork, index) => ({ fork, index }))
      .reverse()
      .map(({ fork, index }) => {
        const words = el("span", {
          className: "history-branch-words",
          text: fmt(
            tn(
              "Left at moment %(at)s: %(n)s moment in all",
              "Left at moment %(at)s: %(n)s moments in all",
              fork.moments ?? fork.length,
            ),
            { at: num(fork.at_moment ?? fork.at), n: num(fork.moments ?? fork.length) },
          ),
        });
        const copy = button(t("Copy this branch's link"), "button button-quiet history-branch-copy");
        copy.setAttribute("aria-describedby", `history-branch-${index}`);
        words.id = `history-branch-${index}`;
        const item = el("li", { className: "history-branch" }, words, copy);
        const result = createCopyResult(item);
        copy.addEventListener("click", () => result.copy(() => getLink(fork.id)));
        return item;
      });
    branchList.replaceChildren(...items);
    branches.open = branchesOpen;
  }

  draw();

  /** @type {HistoryBar} */
  const bar = {
    /**
     * Redraw from a hello's or a frame's `timeline`; `frame` is that hello or frame (its
     * `t_ms` is the time at the cursor; a frame's `ref` answers our seek).
     * @param {Timeline | null | undefined} next
     * @param {Moment | null} [frame]
     */
    update(next, frame = null) {
      if (next) {
        timeline = {
          cursor: next.cursor,
          length: next.length,
          ...momentsOf(next),
          forks: next.forks ?? [],
        };
      }
      if (typeof frame?.t_ms === "number") timeMs = frame.t_ms;
      if (frame?.ref && seeks.delete(frame.ref) && !seeks.size) lastSent = null;
      const fork = (frame?.events ?? []).find((e) => e.type === "forked");
      if (fork) {
        stopReplay();
        forked.textContent = describeFork(fork);
        forked.hidden = false;
        branchesOpen = true;
      } else if (frame?.action?.name === "seek") {
        forked.hidden = true;
      }
      draw();
    },
    /** Show a refused seek; false when the error is not ours. */
    showError(problem) {
      if (!seeks.delete(problem.ref)) return false;
      if (!seeks.size) lastSent = null;
      stopReplay();
      error.textContent = fmt(t("Not applied: %(message)s"), {
        message: problem.message || problem.code,
      });
      error.hidden = false;
      draw();
      return true;
    },
    /** Off with the reason (a class someone else drives), or on with null. */
    setLocked(reason) {
      locked = reason || null;
      if (locked) stopReplay();
      lockNote.textContent = locked ?? "";
      lockNote.hidden = !locked;
      draw();
    },
    /** Disable or enable the bar (e.g. while disconnected). */
    setEnabled(on) {
      enabled = on;
      if (!on) {
        stopReplay();
        seeks.clear();
        lastSent = null;
      }
      draw();
    },
    /** The user did something else: a replay stops. */
    stopReplay,
    /** Sentences for the narrator about a frame's timeline events. */
    describe(events) {
      return events.map((e) => {
        if (e.type === "seeked") return describeSeek(e, timeline);
        if (e.type === "forked") {
          return t("A new branch started here; the one it left is kept as an earlier branch.");
        }
        return null;
      });
    },
    destroy() {
      stopReplay();
      if (throttle !== null) clearTimeout(throttle);
      container.replaceChildren();
    },
  };
  return bar;
}

/**
 * The words for a fork.
 * @param {LabEvent} event a `forked` event
 */
export function describeFork(event) {
  return fmt(
    tn(
      "You acted in the past, so a new branch started after moment %(at)s. The %(n)s moment that came after it is kept as an earlier branch: copy its link below.",
      "You acted in the past, so a new branch started after moment %(at)s. The %(n)s moments that came after it are kept as an earlier branch: copy its link below.",
      event.moments_left_behind ?? event.left_behind,
    ),
    {
      at: num(event.at_moment ?? event.at),
      n: num(event.moments_left_behind ?? event.left_behind),
    },
  );
}

/**
 * Show `element` as off (`aria-disabled`), described by the lock's reason when there is one.
 * @param {Element} element
 * @param {boolean} off
 * @param {string | null} reason
 */
function setOff(element, off, reason) {
  element.setAttribute("aria-disabled", String(off));
  if (off && reason) element.setAttribute("aria-describedby", "history-locked-note");
  else element.removeAttribute("aria-describedby");
}

/**
 * A button's words, in a span the playback row can hide from sight when it is narrow.
 * @param {string} text
 */
function words(text) {
  return el("span", { className: "button-words", text });
}

/** @param {"back" | "forward"} direction */
function arrow(direction) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.classList.add("history-icon");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", direction === "back" ? "M3 2.5h2v11H3zM14 2.5v11L6 8z" : "M13 2.5h-2v11h2zM2 2.5v11L10 8z");
  svg.append(path);
  return svg;
}
