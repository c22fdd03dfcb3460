/**
 * Boots an embed (/embed/<slug>/, templates/embed/lab.html): the lab page's pieces (the
 * socket, the renderer, the controls, the playback bar, the narrator) with the embed's
 * options, read from data attributes on #lab:
 *
 * - data-mode: "interactive", or "readonly" (nothing can act: the page sends nothing but
 *   open_link, the controls and the drawing say why, autoplay is ignored);
 * - data-controls, data-narrative: "1" or "0" (the server leaves out what is hidden);
 * - data-autoplay: "1" sends `play` once, after the first hello, for a lab on the clock.
 *
 * The state comes from the fragment (#link=1.…), as on a lab page: the page sends it as
 * open_link and draws the hello that answers it, never the fresh room's hello first
 * (no flash of the wrong state). A link the server refuses leaves the fresh lab drawn
 * with the reason. #lab gets data-drawn="1" in the animation frame after the first
 * drawing is mounted (benchmarks/embed_transfer.py waits for it) and data-state
 * "link", "fresh" or "bad-link".
 */

import { createControls } from "./controls.js";
import { fmt, t } from "./i18n.js";
import { createNarrator } from "./narrator.js";
import { LabSocket } from "./socket.js";
import { createStatus } from "./status.js";
import { createTimeline } from "./timeline.js";

/** The `link` in a fragment like "#link=1.abc" ("" when there is none). */
export function linkFromHash(hash) {
  try {
    return new URLSearchParams(String(hash ?? "").replace(/^#/, "")).get("link") ?? "";
  } catch {
    return "";
  }
}

/** Start the embed in `root` (#lab); resolves once the socket is opening. */
export async function bootEmbed(root) {
  const { wsPath, seed, renderer: rendererUrl } = root.dataset;
  const readonly = root.dataset.mode === "readonly";
  const autoplay = root.dataset.autoplay === "1" && !readonly;
  const byId = (id) => document.getElementById(id);
  const stage = byId("stage");
  const generalError = byId("lab-error");
  const narrator = createNarrator({
    live: byId("narration"),
    caption: byId("latest"),
    log: byId("event-log"),
  });
  const status = createStatus(byId("connection-status"));
  const { createRenderer } = await import(rendererUrl);

  const link = linkFromHash(location.hash);
  const openLink = byId("open-in-playground");
  if (openLink && link) openLink.href = `${root.dataset.pageUrl}#link=${encodeURIComponent(link)}`;
  const readonlyReason = t("This embed is read-only: open it in the playground to try things.");

  let renderer = null;
  let controls = null;
  let timeline = null;
  let unbindSpace = () => {};
  let rendererRefs = new Set();
  let rendererErrors = [];
  // the link's room: a hello from any other room (the fresh one, or a new one after the
  // server lost ours) is answered with open_link, and drawn only if the link is refused
  let linkRoom = null;
  let linkRef = null;
  let linkRefused = !link;
  let heldHello = null;
  let autoplayed = false;

  function showGeneralError(message) {
    generalError.textContent = message;
    generalError.hidden = false;
  }

  // In a read-only embed nothing reaches the socket but open_link.
  const act = readonly ? () => null : (action, args) => socket.send(action, args);

  function draw(hello) {
    renderer?.destroy();
    controls?.destroy?.();
    timeline?.destroy();
    unbindSpace();
    rendererRefs = new Set();
    rendererErrors = [];
    renderer = createRenderer();
    stage.removeAttribute("aria-busy");
    renderer.mount(stage, hello, {
      metrics: byId("metrics"),
      send(action, args) {
        if (readonly) {
          const ref = socket.nextRef();
          rendererRefs.add(ref);
          const refusal = { type: "error", code: "read_only", message: readonlyReason, ref };
          queueMicrotask(() => socket.callbacks.onError(refusal));
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
    root.dataset.room = hello.room;
    if (!root.dataset.drawn) {
      requestAnimationFrame(() => {
        root.dataset.drawn = "1";
      });
    }
    if (autoplay && !autoplayed) {
      autoplayed = true;
      const playable = hello.declaration?.actions?.some((a) => a.name === "play");
      if (playable && hello.snapshot?.playback && !hello.snapshot.playback.playing) {
        socket.send("play", {});
      }
    }
  }

  const socket = new LabSocket(wsPath, {
    seed: Number.parseInt(seed, 10) || 0,
    callbacks: {
      onStatus(state) {
        status.set(state);
        controls?.setEnabled(state === "open");
        timeline?.setEnabled(state === "open");
      },
      onHello(hello) {
        if (linkRef !== null) {
          // the answer to our open_link: the link's own room
          linkRef = null;
          linkRoom = hello.room;
          heldHello = null;
          root.dataset.state = "link";
          draw(hello);
          return;
        }
        if (!linkRefused && hello.room !== linkRoom) {
          heldHello = hello;
          linkRef = socket.message("open_link", { link });
          return;
        }
        if (!root.dataset.state) root.dataset.state = link ? "bad-link" : "fresh";
        draw(hello);
      },
      onFrame(frame) {
        if (!renderer || heldHello) return;
        if (frame.ref) generalError.hidden = true;
        rendererRefs.delete(frame.ref);
        renderer.update(frame);
        controls?.refresh(frame.snapshot);
        controls?.acknowledge(frame.ref);
        timeline?.update(frame.snapshot, frame);
        narrator.say(renderer.describe(frame.events ?? []), { seq: frame.seq });
        root.dataset.seq = String(frame.seq);
      },
      onError(error) {
        if (linkRef !== null && error.ref === linkRef) {
          // the link was refused: show the fresh lab we held back, and why
          linkRef = null;
          linkRefused = true;
          root.dataset.state = "bad-link";
          showGeneralError(
            fmt(t("This link could not be opened, so the lab starts fresh: %(message)s"), {
              message: error.message ?? error.code,
            }),
          );
          if (heldHello) draw(heldHello);
          heldHello = null;
          return;
        }
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
