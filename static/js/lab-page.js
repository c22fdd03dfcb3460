/**
 * Boots a lab page: loads the lab's renderer module, opens the lab's websocket, builds the
 * control panel from the declaration, and passes every frame to the renderer, the controls
 * and the narrator. The page says where things are through data attributes on #lab.
 */

import { createControls } from "./controls.js";
import { fmt, t } from "./i18n.js";
import { createNarrator } from "./narrator.js";
import { LabSocket } from "./socket.js";
import { createStatus } from "./status.js";

const root = document.getElementById("lab");

async function boot() {
  const { wsPath, seed, renderer: rendererUrl } = root.dataset;
  const stage = document.getElementById("stage");
  const metricsEl = document.getElementById("metrics");
  const controlsEl = document.getElementById("controls");
  const quickEl = document.getElementById("quick-controls");
  const generalError = document.getElementById("lab-error");
  const narrator = createNarrator({
    live: document.getElementById("narration"),
    caption: document.getElementById("latest"),
    log: document.getElementById("event-log"),
  });
  const status = createStatus(document.getElementById("connection-status"));
  const { createRenderer } = await import(rendererUrl);
  let renderer = null;
  let controls = null;

  const socket = new LabSocket(wsPath, {
    seed: Number.parseInt(seed, 10) || 0,
    callbacks: {
      onStatus(state) {
        status.set(state);
        controls?.setEnabled(state === "open");
      },
      onHello(hello) {
        renderer?.destroy();
        renderer = createRenderer();
        stage.removeAttribute("aria-busy");
        renderer.mount(stage, hello, { metrics: metricsEl });
        controls = createControls(
          controlsEl,
          hello.declaration,
          (action, args) => socket.send(action, args),
          { quick: quickEl },
        );
        controls.refresh(hello.snapshot);
        root.dataset.seq = String(hello.seq);
      },
      onFrame(frame) {
        if (!renderer) return;
        generalError.hidden = true;
        renderer.update(frame);
        controls?.refresh(frame.snapshot);
        controls?.acknowledge(frame.ref);
        narrator.say(renderer.describe(frame.events ?? []), { seq: frame.seq });
        root.dataset.seq = String(frame.seq);
      },
      onError(error) {
        if (controls?.showError(error)) return;
        generalError.textContent = fmt(t("The server could not do that: %(message)s"), {
          message: error.message ?? error.code,
        });
        generalError.hidden = false;
      },
      onPresence(presence) {
        status.watching(presence.watching ?? 0);
      },
    },
  });
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
