/**
 * Boots a lab page: loads the lab's renderer module, opens the lab's websocket, builds the
 * control panel from the declaration, and passes every frame to the renderer, the controls
 * and the narrator. The page says where things are through data attributes on #lab.
 * With `?room=` it joins that room (a class: classroom.js does the class's part); with
 * `#link=...` it opens the link's room first (socket.js), and says so if the link is refused.
 *
 * A frame whose action is `seek` jumps to another moment: the renderer is mounted afresh
 * from its snapshot (as on a hello), since renderers animate a frame from the one before.
 * #lab carries `data-digest`, `data-cursor` and `data-length` of the moment shown, and
 * `data-drawn="1"` from the first drawing on (`markFirstDrawing`).
 */

import { createClassroom } from "./classroom.js";
import { askName, readEntry } from "./classroom/entry.js";
import { createControls } from "./controls.js";
import { createHistoryBar } from "./history-bar.js";
import { fmt, learnWords, sentence, t } from "./i18n.js";
import { createNarrator } from "./narrator.js";
import { createPresenter } from "./presenter.js";
import { mountEmbedDialog } from "./embed-dialog.js";
import { keepLabAcrossLanguages } from "./language-switch.js";
import { createShare, linkInAddress } from "./share.js";
import { LabSocket } from "./socket.js";
import { createStatus } from "./status.js";
import { createTimeline } from "./timeline.js";
import { createTour } from "./tour.js";

/** @import { Classroom } from "./classroom.js" */
/** @import { ClassMessage } from "./classroom/types.js" */
/** @import { Hello, Renderer, RendererModule, Send, ServerError, Snapshot, Timeline } from "./types.js" */

const root = /** @type {HTMLElement} */ (document.getElementById("lab"));

async function boot() {
  const { wsPath, seed, renderer: rendererUrl } =
    /** @type {{wsPath: string, seed: string, renderer: string}} */ (root.dataset);
  const stage = /** @type {HTMLElement} */ (document.getElementById("stage"));
  const metricsEl = document.getElementById("metrics");
  const sideEl = document.getElementById("side");
  const controlsEl = /** @type {HTMLElement} */ (document.getElementById("controls"));
  const quickEl = document.getElementById("quick-controls");
  const timelineEl = document.getElementById("timeline");
  const historyEl = document.getElementById("history");
  const linkNotice = /** @type {HTMLElement} */ (document.getElementById("link-notice"));
  const generalError = /** @type {HTMLElement} */ (document.getElementById("lab-error"));
  const narrator = createNarrator({
    live: document.getElementById("narration"),
    caption: document.getElementById("latest"),
    log: document.getElementById("event-log"),
  });
  const status = createStatus(document.getElementById("connection-status"));
  const { createRenderer } = /** @type {RendererModule} */ (await import(rendererUrl));
  // the room, a display name and a host secret (taken out of the address bar at once)
  const entry = readEntry();
  const nameForm = /** @type {HTMLFormElement} */ (document.getElementById("class-name-form"));
  let name = entry.name;
  if (entry.room?.startsWith("c-") && !entry.secret && !name) {
    stage.removeAttribute("aria-busy");
    name = await askName(nameForm);
  }
  /** @type {Renderer | null} */
  let renderer = null;
  /** @type {import("./controls.js").Controls | null} */
  let controls = null;
  /** @type {import("./timeline.js").TimelineBar | null} */
  let timeline = null;
  /** @type {import("./history-bar.js").HistoryBar | null} */
  let history = null;
  /** @type {Hello | null} */
  let lastHello = null;
  let unbindSpace = () => {};
  // Errors for actions the renderer sent (a click on the drawing) go back to it.
  /** @type {Set<string | null | undefined>} */
  let rendererRefs = new Set();
  /** @type {((error: ServerError) => boolean)[]} */
  let rendererErrors = [];

  /** @param {{message?: string, code?: string}} error */
  function showGeneralError(error) {
    generalError.textContent = fmt(t("The server could not do that: %(message)s"), {
      message: error.message ?? error.code,
    });
    generalError.hidden = false;
  }

  /** @type {Classroom | null} set before the socket connects, so its callbacks find it */
  let classroom = null;
  /** @type {string | null} */
  let lock = null; // why this viewer's controls are off (a class someone else drives)

  /** @param {string | null} reason */
  function applyLock(reason) {
    lock = reason;
    controls?.setLocked(reason);
    timeline?.setLocked(reason);
    history?.setLocked(reason);
    tour.setLocked(reason);
  }

  /**
   * Send an action the user chose: a replay in progress stops (the user acts).
   * @type {Send}
   */
  function userSend(action, args) {
    history?.stopReplay();
    return socket.send(action, args);
  }

  /**
   * What the renderer draws: in the past, time waits, so nothing is drawn as playing.
   * @param {Snapshot} snapshot
   * @param {Timeline | undefined} where
   * @returns {Snapshot}
   */
  function viewOf(snapshot, where) {
    const inPast = where && where.cursor < where.length;
    if (!inPast || !snapshot?.playback?.playing) return snapshot;
    return { ...snapshot, playback: { ...snapshot.playback, playing: false } };
  }

  /**
   * Mount a fresh renderer from `source` (a hello, or a seek's frame over the hello).
   * @param {Hello} source
   */
  function mountRenderer(source) {
    renderer?.destroy();
    rendererRefs = new Set();
    rendererErrors = [];
    renderer = createRenderer();
    renderer.mount(stage, { ...source, snapshot: viewOf(source.snapshot, source.timeline) }, {
      metrics: metricsEl,
      side: sideEl,
      send(action, args) {
        if (lock) {
          // a click on the drawing while someone else drives: say why, send nothing
          const ref = socket.nextRef();
          rendererRefs.add(ref);
          const refusal = { type: "error", code: "not_your_turn", message: lock, ref };
          queueMicrotask(() => socket.callbacks.onError?.(refusal));
          return ref;
        }
        const ref = userSend(action, args);
        if (ref) rendererRefs.add(ref);
        return ref;
      },
      onError(handler) {
        rendererErrors.push(handler);
      },
    });
  }

  /**
   * Say on #lab which moment is shown (tests and tools read these, nothing global).
   * @param {{seq: number, digest?: string, timeline?: Timeline}} message
   */
  function markMoment(message) {
    root.dataset.seq = String(message.seq);
    if (message.digest) root.dataset.digest = message.digest;
    if (message.timeline) {
      root.dataset.cursor = String(message.timeline.cursor);
      root.dataset.length = String(message.timeline.length);
      timeline?.setPast(message.timeline.cursor < message.timeline.length);
    }
  }

  // the guided tour (tour.js): "Show me" sends what a click would
  const tour = createTour({
    card: /** @type {HTMLElement} */ (document.getElementById("tour")),
    opener: /** @type {HTMLButtonElement} */ (document.getElementById("tour-open")),
    slug: root.dataset.lab ?? "",
    send: userSend,
    sendClass: (step) => socket.message("tour", { step }),
  });

  const socket = new LabSocket(wsPath, {
    seed: Number.parseInt(seed, 10) || 0,
    room: entry.room,
    name: entry.secret ? "" : name,
    link: linkInAddress(),
    callbacks: {
      onStatus(state, reason) {
        status.set(state, reason);
        controls?.setEnabled(state === "open");
        timeline?.setEnabled(state === "open");
        history?.setEnabled(state === "open");
        tour.setEnabled(state === "open");
      },
      onHello(hello) {
        learnWords(hello.declaration?.words);
        timeline?.destroy();
        history?.destroy();
        unbindSpace();
        lastHello = hello;
        stage.removeAttribute("aria-busy");
        mountRenderer(hello);
        markFirstDrawing(root);
        controls = createControls(controlsEl, hello.declaration, userSend, { quick: quickEl });
        controls.refresh(hello.snapshot);
        timeline = timelineEl ? createTimeline(timelineEl, hello.declaration, userSend) : null;
        timeline?.update(hello.snapshot);
        history = historyEl
          ? createHistoryBar(historyEl, {
              send: (action, args) => socket.send(action, args),
              getLink,
              clocked: Boolean(timeline),
            })
          : null;
        history?.update(hello.timeline, hello);
        narrator.opening(hello.timeline);
        unbindSpace = timeline?.bindSpace(stage) ?? (() => {});
        markMoment(hello);
        root.dataset.room = hello.room;
        root.dataset.kind = hello.kind ?? "private";
        /** @type {Classroom} */ (classroom).hello(hello);
        tour.hello(hello);
      },
      onFrame(frame) {
        if (!renderer) return;
        // Only an action of ours that went through clears an old error: a playing lab
        // sends frames ten times a second, which would hide it before anyone reads it.
        if (frame.ref) generalError.hidden = true;
        if (frame.action?.name === "seek") {
          // another moment: draw it from scratch, as on a hello (the frame's fields over it)
          mountRenderer(/** @type {Hello} */ (/** @type {unknown} */ ({ ...lastHello, ...frame })));
        } else {
          rendererRefs.delete(frame.ref);
          renderer.update({ ...frame, snapshot: viewOf(frame.snapshot, frame.timeline) });
        }
        controls?.acknowledge(frame.ref);
        controls?.refresh(frame.snapshot);
        timeline?.update(frame.snapshot, frame);
        history?.update(frame.timeline, frame);
        const events = frame.events ?? [];
        narrator.say(
          [
            ...(history?.describe(events) ?? []),
            ...renderer.describe(events.filter((e) => !TIMELINE_EVENTS.has(e.type))),
          ],
          { seq: frame.seq },
        );
        markMoment(frame);
        tour.frame(frame);
      },
      onLinkRefused(error) {
        showLinkRefused(linkNotice, error);
      },
      onRefused(refusal) {
        // removed from a class, or the class ended: the class bar says so, calmly
        /** @type {Classroom} */ (classroom).refused(refusal);
      },
      onError(error) {
        if (tour.showError(error)) return;
        if (/** @type {Classroom} */ (classroom).showError(error)) return;
        if (controls?.showError(error)) return;
        if (timeline?.showError(error)) return;
        if (history?.showError(error)) return;
        if (rendererRefs.delete(error.ref) && rendererErrors.some((handler) => handler(error))) {
          return;
        }
        showGeneralError(error);
      },
      onPresence(presence) {
        status.watching(presence.watching ?? 0);
        /** @type {Classroom} */ (classroom).presence(presence);
      },
      onClass(message) {
        if (message.type === "tour") tour.classMessage(message);
        else if (message.type === "role") tour.setRole(message.role);
        /** @type {Classroom} */ (classroom).onMessage(/** @type {ClassMessage} */ (message));
      },
    },
  });
  /** @param {number | null} fork */
  function getLink(fork) {
    return socket.request("get_link", fork === null ? {} : { fork });
  }
  // Another link pasted into this tab's address changes only the fragment: open it anew.
  window.addEventListener("hashchange", () => {
    if (linkInAddress() !== null) location.reload();
  });
  keepLabAcrossLanguages(document.querySelector(".language-switch"), { root, getLink });
  const shareEl = document.getElementById("share");
  if (shareEl) {
    const share = createShare(shareEl, { getLink });
    mountEmbedDialog(share, { getLink, slug: /** @type {string} */ (root.dataset.lab) });
    placeShare(shareEl);
  }
  createPresenter({ tools: document.querySelector(".lab-tools"), rail: document.getElementById("rail") });
  classroom = createClassroom(
    socket,
    {
      bar: /** @type {HTMLElement} */ (document.getElementById("class-bar")),
      question: /** @type {HTMLElement} */ (document.getElementById("class-question")),
      panel: /** @type {HTMLElement} */ (document.getElementById("class-panel")),
      start: /** @type {HTMLButtonElement} */ (document.getElementById("start-class")),
      nameForm,
    },
    { slug: /** @type {string} */ (root.dataset.lab), onLock: applyLock, showGeneralError },
  );
  socket.connect();
}

/**
 * Copy link and Embed: with the page's tools over the rail on a wide screen (the
 * playback row keeps one line under the stage), under the history on a narrow one (a
 * phone's tools give way to the tour's card). The same breakpoint as stage.css's.
 * @param {HTMLElement} shareEl
 */
function placeShare(shareEl) {
  const home = shareEl.parentElement;
  const tools = document.querySelector(".lab-tools");
  if (!home || !tools) return;
  const wide = window.matchMedia("(min-width: 900px)");
  const place = () => {
    const there = wide.matches ? tools : home;
    if (shareEl.parentElement === there) return;
    if (there === tools) tools.insertBefore(shareEl, tools.querySelector(".guide-link"));
    else home.append(shareEl);
  };
  place();
  wide.addEventListener("change", place);
}

// The link is fine but the server could not open it now: it may be tried again.
const LINK_LATER_CODES = new Set(["busy", "busy_opening", "too_slow", "too_many_rooms"]);

/**
 * Say in `notice` why the page's link was not opened (the fresh lab is shown below).
 * @param {HTMLElement} notice
 * @param {ServerError} error
 */
function showLinkRefused(notice, error) {
  const message = sentence(error.message || error.code);
  if (!LINK_LATER_CODES.has(error.code)) {
    notice.textContent = fmt(t("This link could not be opened: %(message)s Here is the lab fresh."), {
      message,
    });
    notice.hidden = false;
    return;
  }
  const again = document.createElement("button");
  again.type = "button";
  again.className = "button button-quiet notice-action";
  again.textContent = t("Try the link again");
  again.addEventListener("click", () => location.reload());
  notice.replaceChildren(
    fmt(t("This link was not opened: %(message)s Here is the lab fresh meanwhile."), { message }),
    again,
  );
  notice.hidden = false;
}

/**
 * The first drawing is the animation frame after the renderer's first mount: #lab gets
 * `data-drawn="1"` and the page the performance mark "lab:first-drawing", whose
 * startTime counts from the navigation's start (benchmarks/first_drawing.py); embed.js
 * does the same.
 * @param {HTMLElement} root
 */
function markFirstDrawing(root) {
  if (root.dataset.drawn) return;
  requestAnimationFrame(() => {
    if (root.dataset.drawn) return;
    root.dataset.drawn = "1";
    performance.mark("lab:first-drawing");
  });
}

// Events the history bar puts into words (history-bar.js), not the lab's renderer.
const TIMELINE_EVENTS = new Set(["seeked", "forked"]);

boot().catch((error) => {
  const box = document.getElementById("lab-error");
  if (box) {
    box.textContent = fmt(t("This lab could not start: %(message)s"), { message: error.message });
    box.hidden = false;
  }
  throw error;
});
