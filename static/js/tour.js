/**
 * The guided tour of a lab page: a few steps over the stage, declared by the lab
 * (`hello.declaration.tour`, docs/protocol.md). Each step says what to do, rings the
 * control or the spot in the drawing (tour/spotlight.js), waits until a frame shows it
 * done (whoever did it: the visitor's own click counts), or does it on "Show me" by
 * sending exactly what the click would; then it says what to notice.
 *
 * - A new visitor sees the first step at once; the card never blocks the page (it is
 *   not modal) and can be skipped, then resumed from the header button. Where a visitor
 *   got to is kept in localStorage, per lab.
 * - `?tour=<step id>` opens the lab at that step; on a fresh lab the earlier steps are
 *   done first by their "Show me", so the step finds the lab as the tour left it.
 * - In a class, the host may run the tour for everyone (`tour` messages): the students'
 *   cards show the host's step, and their "Show me" works only when they may act.
 */

import { fmt, t } from "./i18n.js";
import { createTourCard } from "./tour/card.js";
import { isDone, loadProgress, saveProgress } from "./tour/progress.js";
import { createSpotlight } from "./tour/spotlight.js";

/** @import { Frame, Hello, Send, ServerError, TourStep } from "./types.js" */

/**
 * @typedef {object} Tour
 * @property {(hello: Hello & {class?: {tour?: string | null}}) => void} hello
 * @property {(frame: Frame) => void} frame
 * @property {(message: {type: string, step?: string | null}) => void} classMessage
 *   a class's `tour` message
 * @property {(role: string) => void} setRole
 * @property {(reason: string | null) => void} setLocked
 * @property {(on: boolean) => void} setEnabled
 * @property {(error: ServerError) => boolean} showError
 */

const LOOK_DELAY_MS = 350;

/**
 * `card`: the tour's section; `opener`: the header button that takes or resumes it;
 * `send(action, args)` → ref (the page's own, as a click sends); `sendClass(step)`: the
 * host's `tour` message (a step id, or null).
 * @param {{card: HTMLElement, opener: HTMLButtonElement, slug: string, send: Send,
 *   sendClass: (step: string | null) => string | null}} parts
 * @returns {Tour}
 */
export function createTour({ card, opener, slug, send, sendClass }) {
  /** @type {TourStep[]} */
  let steps = [];
  let index = -1; // the step shown; -1 when the card is closed
  let phase = "todo"; // "todo", "started" (its action seen, its event not yet), "done"
  let mode = "own"; // "own", "leading" (the host runs it for everyone), "following"
  let kind = "private";
  let role = "owner";
  /** @type {string | null} */
  let locked = null; // why this viewer may not act now, or null
  let connected = false;
  /** @type {number | null} */
  let catchUpTo = null; // opening at a step: the earlier ones are being done first
  /** @type {string | null} */
  let classStep = null; // the class's step (following), even while hidden here
  let greeted = false;
  let echoes = 0; // our own `tour` messages still to come back from the server
  const ours = new Set(); // refs of actions "Show me" sent
  const classRefs = new Set(); // refs of the host's `tour` messages
  const view = createTourCard(card, {
    onShowMe: showMe,
    onNext: next,
    onSkip: skip,
    onLead: toggleLead,
  });
  const spotlight = createSpotlight({ card, avoid: () => view.box() });
  // the layout gives the card its height (tour.css: the stage yields it on a phone)
  new ResizeObserver(() => {
    const height = card.hidden ? 0 : card.getBoundingClientRect().height;
    document.documentElement.style.setProperty("--tour-height", `${Math.ceil(height)}px`);
  }).observe(card);

  opener.addEventListener("click", () => {
    if (mode === "following" && classStep) open(indexOf(classStep), { focus: true });
    else if (saved().state === "skipped") open(indexOf(saved().step), { focus: true });
    else open(0, { focus: true });
  });

  const saved = () => loadProgress(slug);
  /** @param {string} state "running", "skipped" or "done" */
  function save(state) {
    // the class's tour is not this visitor's own
    if (mode !== "following") saveProgress(slug, state, steps[index]?.id);
  }
  const indexOf = (/** @type {string | null} */ id) => Math.max(0, steps.findIndex((s) => s.id === id));
  const step = () => steps[index] ?? null;
  const isHost = () => kind === "class" && role === "host";

  // -- showing a step -------------------------------------------------------------------

  /**
   * Show step `at`; a host running the tour for everyone takes the class there too.
   * @param {number} at
   * @param {{focus?: boolean, scroll?: boolean, announce?: boolean}} [options]
   */
  function open(at, { focus = false, scroll = true, announce = true } = {}) {
    index = Math.min(Math.max(at, 0), steps.length - 1);
    phase = "todo";
    view.clearError();
    if (mode !== "following") save("running");
    if (mode === "leading" && announce) announceStep(step().id);
    render();
    if (scroll) spotlight.bringIntoView();
    if (focus) view.focus();
  }

  /**
   * The host's step for everyone (null: the tour ends for everyone).
   * @param {string | null} stepId
   */
  function announceStep(stepId) {
    echoes += 1;
    const ref = sendClass(stepId);
    if (ref) classRefs.add(ref);
  }

  /** @param {string | null} state what to remember ("skipped", "done"), or nothing */
  function close(state) {
    if (mode === "leading") {
      announceStep(null);
      mode = "own";
    }
    if (state) save(state);
    index = -1;
    catchUpTo = null;
    render();
  }

  function render() {
    const current = step();
    card.hidden = !current;
    document.body.classList.toggle("has-tour", Boolean(current));
    renderOpener();
    if (!current) {
      spotlight.show(null);
      return;
    }
    const showMeOff = !connected ? t("Waiting for the connection…") : locked;
    view.render({
      number: index + 1,
      total: steps.length,
      say: current.say,
      status: statusText(),
      notice: phase === "done" ? current.notice : "",
      done: phase === "done",
      last: index === steps.length - 1,
      showMeOff: catchUpTo !== null ? t("Getting the lab ready…") : showMeOff,
      mode,
      host: isHost(),
    });
    const ringed = phase === "done" && current.look ? current.look : current.target;
    spotlight.show(ringed, phase === "done" && current.look ? "look" : "target");
  }

  function statusText() {
    if (catchUpTo !== null) {
      return fmt(t("Getting the lab ready: doing step %(n)s of %(total)s for you…"), {
        n: index + 1,
        total: catchUpTo,
      });
    }
    if (phase === "started") return t("Now watch: the messages are on their way…");
    if (mode === "following") {
      return locked
        ? t("The host is running this tour for everyone: watch the stage.")
        : t("The host is running this tour for everyone; you may do the steps too.");
    }
    return "";
  }

  function renderOpener() {
    const closed = index < 0;
    opener.hidden = !closed || steps.length === 0;
    const resumable = (mode === "following" && classStep) || saved().state === "skipped";
    opener.textContent = resumable ? t("Resume the tour") : t("Take the tour");
  }

  // -- the buttons ----------------------------------------------------------------------

  function showMe() {
    const current = step();
    if (!current || locked || !connected || phase === "done") return;
    view.clearError();
    const ref = send(current.show_me.action, current.show_me.args);
    if (ref) ours.add(ref);
  }

  function next() {
    if (phase !== "done") return;
    if (index === steps.length - 1) {
      close("done");
      opener.focus();
    } else {
      open(index + 1);
    }
  }

  function skip() {
    if (mode === "following") {
      index = -1;
      render();
    } else {
      close("skipped");
    }
    opener.focus();
  }

  function toggleLead() {
    if (!isHost() || !step()) return;
    if (mode === "leading") {
      announceStep(null);
      mode = "own";
    } else {
      mode = "leading";
      announceStep(step().id);
    }
    render();
  }

  // -- what the page tells the tour -----------------------------------------------------

  /**
   * A frame: the step is done when the frame shows it (whoever acted).
   * @param {Frame} message
   */
  function frame(message) {
    const current = step();
    if (!current || phase === "done" || message.action?.name === "seek") {
      spotlight.refresh();
      return;
    }
    if (isDone(current, message)) {
      phase = "done";
      if (catchUpTo !== null) {
        catchUp();
        return;
      }
      render();
      // where to look is drawn by the frame's animation first (bins, bars): then scroll
      const look = () => step() === current && spotlight.bringIntoView();
      if (current.look) setTimeout(look, LOOK_DELAY_MS);
    } else if (message.action?.name === current.show_me.action) {
      phase = "started";
      render();
    } else {
      spotlight.refresh();
    }
  }

  /**
   * Opening at a later step of a fresh lab: do the earlier steps by their "Show me".
   * Called only while `catchUpTo` is set.
   */
  function catchUp() {
    if (index + 1 >= /** @type {number} */ (catchUpTo)) {
      const at = /** @type {number} */ (catchUpTo);
      catchUpTo = null;
      open(at);
      return;
    }
    index += 1;
    phase = "todo";
    render();
    const current = step();
    const ref = send(current.show_me.action, current.show_me.args);
    if (ref) ours.add(ref);
  }

  /** @param {Hello & {class?: {tour?: string | null}}} message */
  function hello(message) {
    steps = message.declaration?.tour ?? [];
    kind = message.kind ?? "private";
    role = message.role ?? "owner";
    const first = !greeted;
    greeted = true;
    if (!steps.length) {
      close(null);
      return;
    }
    if (kind === "class") {
      follow(message.class?.tour ?? null, { scroll: false });
      return;
    }
    if (mode === "following") {
      // left the class (a private branch): the class's tour stays there
      mode = "own";
      classStep = null;
      index = -1;
    }
    if (first) start(message);
    else render();
  }

  /**
   * The first hello of the page: the address's step, the visitor's own, or step 1.
   * @param {Hello} message
   */
  function start(message) {
    const wanted = new URLSearchParams(location.search).get("tour");
    const known = steps.findIndex((s) => s.id === wanted);
    if (known >= 0) {
      const fresh = (message.timeline?.length ?? 0) === 0;
      if (known > 0 && fresh) {
        catchUpTo = known;
        index = -1;
        catchUp();
      } else {
        open(known);
      }
      return;
    }
    const state = saved();
    if (state.state === "new") open(0, { scroll: false });
    else if (state.state === "running") open(indexOf(state.step), { scroll: false });
    else render();
  }

  /**
   * The class's step (a `tour` message, or a class hello): show it, or close.
   * @param {string | null} stepId
   * @param {{scroll?: boolean, echo?: boolean}} [options]
   */
  function follow(stepId, { scroll = true, echo = false } = {}) {
    classStep = stepId;
    if (echo && echoes > 0) {
      echoes -= 1; // our own step coming back: we are there already (or moved on)
      if (echoes === 0) classRefs.clear(); // every one answered: no refusal can follow
      return;
    }
    if (mode === "leading") {
      // another host (or this one, before a reload) moved the class: go along
      if (!stepId) mode = "own";
      else if (stepId !== step()?.id) open(indexOf(stepId), { scroll, announce: false });
      render();
      return;
    }
    if (!stepId) {
      if (mode === "following") {
        mode = "own";
        index = -1;
      }
      render();
      return;
    }
    mode = isHost() ? "leading" : "following";
    if (stepId !== step()?.id || index < 0) {
      index = indexOf(stepId);
      phase = "todo";
      render();
      if (scroll) spotlight.bringIntoView();
    } else {
      render();
    }
  }

  return {
    hello,
    frame,
    /** The class's `tour` message: the step everyone is shown, or null. */
    classMessage(message) {
      follow(message.step ?? null, { echo: true });
    },
    /** This viewer's role changed (a host claimed the class). */
    setRole(next) {
      role = next;
      if (mode === "following" && isHost()) mode = "leading";
      render();
    },
    /** Why this viewer may not act now (someone else drives), or null. */
    setLocked(reason) {
      locked = reason || null;
      if (step()) render();
    },
    /** The socket is open (true) or not: "Show me" waits for it. */
    setEnabled(on) {
      connected = on;
      if (step()) render();
    },
    /** A refused "Show me": said in the card (true), else not ours (false). */
    showError(error) {
      if (error.ref && classRefs.delete(error.ref)) {
        echoes = Math.max(0, echoes - 1); // refused: it will not come back
        view.showError(error.message || error.code);
        return true;
      }
      if (!error.ref || !ours.delete(error.ref)) return false;
      if (catchUpTo !== null) {
        const at = catchUpTo;
        catchUpTo = null;
        open(at);
      }
      view.showError(error.message || error.code);
      return true;
    },
  };
}
