/**
 * Boots a lab page: loads the lab's renderer module, opens the lab's websocket, builds the
 * control panel from the declaration, and passes every frame to the renderer, the controls
 * and the narrator. The page says where things are through data attributes on #lab.
 * With `?room=` it joins that room (a class: classroom.js does the class's part).
 */

import { createClassroom } from "./classroom.js";
import { askName, readEntry } from "./classroom/entry.js";
import { createControls } from "./controls.js";
import { fmt, t } from "./i18n.js";
import { createNarrator } from "./narrator.js";
import { LabSocket } from "./socket.js";
import { createStatus } from "./status.js";
import { createTimeline } from "./timeline.js";

const root = document.getElementById("lab");

async function boot() {
  const { wsPath, seed, renderer: rendererUrl } = root.dataset;
  const stage = document.getElementById("stage");
  const metricsEl = document.getElementById("metrics");
  const controlsEl = document.getElementById("controls");
  const quickEl = document.getElementById("quick-controls");
  const timelineEl = document.getElementById("timeline");
  const generalError = document.getElementById("lab-error");
  const narrator = createNarrator({
    live: document.getElementById("narration"),
    caption: document.getElementById("latest"),
    log: document.getElementById("event-log"),
  });
  const status = createStatus(document.getElementById("connection-status"));
  const { createRenderer } = await import(rendererUrl);
  // the room, a display name and a host secret (taken out of the address bar at once)
  const entry = readEntry();
  const nameForm = document.getElementById("class-name-form");
  let name = entry.name;
  if (entry.room?.startsWith("c-") && !entry.secret && !name) {
    stage.removeAttribute("aria-busy");
    name = await askName(nameForm);
  }
  let renderer = null;
  let controls = null;
  let timeline = null;
  let unbindSpace = () => {};
  // Errors for actions the renderer sent (a click on the drawing) go back to it.
  let rendererRefs = new Set();
  let rendererErrors = [];

  function showGeneralError(error) {
    generalError.textContent = fmt(t("The server could not do that: %(message)s"), {
      message: error.message ?? error.code,
    });
    generalError.hidden = false;
  }

  let classroom = null;
  let lock = null; // why this viewer's controls are off (a class someone else drives)

  function applyLock(reason) {
    lock = reason;
    controls?.setLocked(reason);
    timeline?.setLocked(reason);
  }

  const socket = new LabSocket(wsPath, {
    seed: Number.parseInt(seed, 10) || 0,
    room: entry.room,
    name: entry.secret ? "" : name,
    callbacks: {
      onStatus(state) {
        status.set(state);
        controls?.setEnabled(state === "open");
        timeline?.setEnabled(state === "open");
      },
      onHello(hello) {
        renderer?.destroy();
        timeline?.destroy();
        unbindSpace();
        rendererRefs = new Set();
        rendererErrors = [];
        renderer = createRenderer();
        stage.removeAttribute("aria-busy");
        renderer.mount(stage, hello, {
          metrics: metricsEl,
          send(action, args) {
            if (lock) {
              // a click on the drawing while someone else drives: say why, send nothing
              const ref = socket.nextRef();
              rendererRefs.add(ref);
              const refusal = { type: "error", code: "not_your_turn", message: lock, ref };
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
        controls = createControls(
          controlsEl,
          hello.declaration,
          (action, args) => socket.send(action, args),
          { quick: quickEl },
        );
        controls.refresh(hello.snapshot);
        timeline = timelineEl
          ? createTimeline(timelineEl, hello.declaration, (a, args) => socket.send(a, args))
          : null;
        timeline?.update(hello.snapshot);
        unbindSpace = timeline?.bindSpace(stage) ?? (() => {});
        root.dataset.seq = String(hello.seq);
        root.dataset.room = hello.room;
        root.dataset.kind = hello.kind ?? "private";
        classroom.hello(hello);
      },
      onFrame(frame) {
        if (!renderer) return;
        // Only an action of ours that went through clears an old error: a playing lab
        // sends frames ten times a second, which would hide it before anyone reads it.
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
        if (classroom.showError(error)) return;
        if (controls?.showError(error)) return;
        if (timeline?.showError(error)) return;
        if (rendererRefs.delete(error.ref) && rendererErrors.some((handler) => handler(error))) {
          return;
        }
        showGeneralError(error);
      },
      onPresence(presence) {
        status.watching(presence.watching ?? 0);
        classroom.presence(presence);
      },
      onClass(message) {
        classroom.onMessage(message);
      },
    },
  });
  classroom = createClassroom(
    socket,
    {
      bar: document.getElementById("class-bar"),
      question: document.getElementById("class-question"),
      panel: document.getElementById("class-panel"),
      start: document.getElementById("start-class"),
      nameForm,
    },
    { slug: root.dataset.lab, onLock: applyLock, showGeneralError },
  );
  socket.connect();
}

boot().catch((error) => {
  const box = document.getElementById("lab-error");
  if (box) {
    box.textContent = fmt(t("This lab could not start: %(message)s"), { message: error.message });
    box.hidden = false;
  }
  throw error;
});
