/**
 * Boots an embed (/embed/<slug>/, templates/embed/lab.html): the lab page's pieces (the
 * socket, the renderer, the controls, the playback bar, the narrator) with the embed's
 * options, read from data attributes on #lab:
 *
 * - data-mode: "interactive", or "readonly" (nothing can act: the page sends nothing but
 *   open_link, the controls and the drawing say why);
 * - data-controls, data-narrative: "1" or "0" (the server leaves out what is hidden);
 *
 * The state comes from the fragment (#link=1.…), as on a lab page: socket.js sends it as
 * open_link and hands over the hello that answers it, never the fresh room's hello first
 * (no flash of the wrong state). A link the server refuses leaves the fresh lab drawn
 * with the reason. #lab gets data-drawn="1" (and the page the performance mark
 * "lab:first-drawing", as lab-page.js) in the animation frame after the first
 * drawing is mounted (benchmarks/embed_transfer.py waits for it) and data-state
 * "link", "fresh" or "bad-link".
 */

import { createControls } from "./controls.js";
import { fmt, learnWords, t } from "./i18n.js";
import { createNarrator } from "./narrator.js";
import { linkInAddress } from "./share.js";
import { LabSocket } from "./socket.js";
import { createStatus } from "./status.js";
import { createTimeline } from "./timeline.js";

/** @import { Hello, Renderer, RendererModule, Send, ServerError, Snapshot, Timeline } from "./types.js" */

/**
 * Start the embed in `root` (#lab); resolves once the socket is opening.
 * @param {HTMLElement} root
 */
export async function bootEmbed(root) {
  const { wsPath, seed, renderer: rendererUrl } =
    /** @type {{wsPath: string, seed: string, renderer: string}} */ (root.dataset);
  const readonly = root.dataset.mode === "readonly";
  /** @param {string} id */
  const byId = (id) => document.getElementById(id);
  const stage = /** @type {HTMLElement} */ (byId("stage"));
  const generalError = /** @type {HTMLElement} */ (byId("lab-error"));
  const narrator = createNarrator({
    live: byId("narration"),
    caption: byId("latest"),
    log: byId("event-log"),
  });
  const status = createStatus(byId("connection-status"));
  const { createRenderer } = /** @type {RendererModule} */ (await import(rendererUrl));

  const link = linkInAddress() ?? "";
  const openLink = /** @type {HTMLAnchorElement | null} */ (byId("open-in-playground"));
  const pageUrl = (/** @type {string} */ moment) => `${root.dataset.pageUrl}#link=${encodeURIComponent(moment)}`;
  if (openLink && link) openLink.href = pageUrl(link);
  const readonlyReason = t("This embed is read-only: open it in the playground to try things.");

  /** @type {Renderer | null} */
  let renderer = null;
  /** @type {import("./controls.js").Controls | null} */
  let controls = null;
  /** @type {import("./timeline.js").TimelineBar | null} */
  let timeline = null;
  let unbindSpace = () => {};
  /** @type {Set<string | null | undefined>} */
  let rendererRefs = new Set(); // refs the renderer's clicks sent (looked up by any frame's)
  /** @type {((error: ServerError) => boolean)[]} */
  let rendererErrors = [];
  let linkRefused = false;
  /** @type {Hello | null} */
  let lastHello = null;

  /** @param {string} message */
  function showGeneralError(message) {
    generalError.textContent = message;
    generalError.hidden = false;
  }

  // In a read-only embed nothing reaches the socket but open_link.
  /** @type {Send} */
  const act = readonly ? () => null : (action, args) => socket.send(action, args);

  /**
   * A lab in its past is shown paused: the room's clock does not run there (lab-page.js).
   * @param {Snapshot} snapshot
   * @param {Timeline | undefined} where
   * @returns {Snapshot}
   */
  function viewOf(snapshot, where) {
    const inPast = where && where.cursor < where.length;
    if (!inPast || !snapshot?.playback?.playing) return snapshot;
    return { ...snapshot, playback: { ...snapshot.playback, playing: false } };
  }

  /** @param {Hello} hello */
  function draw(hello) {
    renderer?.destroy();
    timeline?.destroy();
    unbindSpace();
    rendererRefs = new Set();
    rendererErrors = [];
    renderer = createRenderer();
    stage.removeAttribute("aria-busy");
    renderer.mount(stage, { ...hello, snapshot: viewOf(hello.snapshot, hello.timeline) }, {
      metrics: byId("metrics"),
      side: byId("side"),
      readOnly: readonly,
      send(action, args) {
        if (readonly) {
          const ref = socket.nextRef();
          rendererRefs.add(ref);
          const refusal = { type: "error", code: "read_only", message: readonlyReason, ref };
          queueMicrotask(() => socket.callbacks.onError?.(refusal));
          return ref;
        }
        const ref = socket.send(action, args);
        if (ref) rendererRefs.add(ref);
        return ref;
      },
      onError(handler) {
        rendererErrors.push(handler);
      },
    });
    const controlsEl = byId("controls");
    controls = controlsEl
      ? createControls(controlsEl, hello.declaration, act, { quick: byId("quick-controls") })
      : null;
    controls?.refresh(hello.snapshot);
    const timelineEl = byId("timeline");
    timeline = timelineEl ? createTimeline(timelineEl, hello.declaration, act) : null;
    timeline?.update(hello.snapshot);
    if (readonly) {
      controls?.setLocked(readonlyReason);
      timeline?.setLocked(readonlyReason);
    } else {
      unbindSpace = timeline?.bindSpace(stage) ?? (() => {});
    }
    root.dataset.seq = String(hello.seq);
    root.dataset.digest = hello.digest ?? "";
    root.dataset.room = hello.room;
    if (!root.dataset.drawn) {
      requestAnimationFrame(() => {
        if (root.dataset.drawn) return;
        root.dataset.drawn = "1";
        performance.mark("lab:first-drawing");
      });
    }
  }

  const socket = new LabSocket(wsPath, {
    seed: Number.parseInt(seed, 10) || 0,
    link: link || null,
    callbacks: {
      onStatus(state, reason) {
        status.set(state, reason);
        controls?.setEnabled(state === "open");
        timeline?.setEnabled(state === "open");
      },
      onHello(hello) {
        learnWords(hello.declaration?.words);
        lastHello = hello;
        if (!root.dataset.state) root.dataset.state = !link ? "fresh" : linkRefused ? "bad-link" : "link";
        draw(hello);
        narrator.opening(hello.timeline);
      },
      onLinkRefused(error) {
        // the fresh room's hello follows: it is drawn, with the reason
        linkRefused = true;
        showGeneralError(
          fmt(t("This link could not be opened, so the lab starts fresh: %(message)s"), {
            message: error.message ?? error.code,
          }),
        );
      },
      onFrame(frame) {
        if (!renderer) return;
        if (frame.ref) generalError.hidden = true;
        rendererRefs.delete(frame.ref);
        if (frame.action?.name === "seek") {
          // the hello's fields with the seek frame's over them, drawn as a hello is
          draw(/** @type {Hello} */ (/** @type {unknown} */ ({ ...lastHello, ...frame })));
          return;
        }
        renderer.update({ ...frame, snapshot: viewOf(frame.snapshot, frame.timeline) });
        controls?.refresh(frame.snapshot);
        controls?.acknowledge(frame.ref);
        timeline?.update(frame.snapshot, frame);
        narrator.say(renderer.describe(frame.events ?? []), { seq: frame.seq });
        root.dataset.seq = String(frame.seq);
        root.dataset.digest = frame.digest ?? "";
      },
      onError(error) {
        if (controls?.showError(error)) return;
        if (timeline?.showError(error)) return;
        if (rendererRefs.delete(error.ref) && rendererErrors.some((handler) => handler(error))) {
          return;
        }
        showGeneralError(
          fmt(t("The server could not do that: %(message)s"), {
            message: error.message ?? error.code,
          }),
        );
      },
      onPresence(presence) {
        status.watching(presence.watching ?? 0);
      },
    },
  });
  // "Open in the playground" carries this moment: asked for when the link is pointed at
  // or focused (a read-only embed sends nothing, so it keeps the moment it was opened at)
  /** @type {string | null | undefined} */
  let linkedSeq = null;
  async function refreshOpenLink() {
    if (readonly || !openLink || root.dataset.seq === linkedSeq) return;
    linkedSeq = root.dataset.seq;
    try {
      const answer = await socket.request("get_link", {});
      openLink.href = pageUrl(answer.link);
    } catch {
      linkedSeq = null; // keep the older address; ask again next time
    }
  }
  openLink?.addEventListener("pointerenter", refreshOpenLink);
  openLink?.addEventListener("focus", refreshOpenLink);
  socket.connect();
  return socket;
}

const root = document.getElementById("lab");
if (root?.classList.contains("embed")) {
  bootEmbed(root).catch((error) => {
    const box = document.getElementById("lab-error");
    if (box) {
      box.textContent = fmt(t("This lab could not start: %(message)s"), {
        message: error.message,
      });
      box.hidden = false;
    }
    throw error;
  });
}
