/**
 * The lab kit's skeleton (docs/frontend.md, "The lab skeleton"): what every renderer used
 * to write by hand around its drawing. `createLabRenderer(spec)` returns a `Renderer`
 * (types.js) whose mount makes the lab's root on the stage, its side panel, its metrics
 * and a list of parts to draw and tear down; the lab's own `mount(view, hello)` builds
 * only its drawing and its panels into them and returns how it updates and describes.
 *
 * ```js
 * export function createRenderer() {
 *   return createLabRenderer({
 *     className: "rp-lab",                          // the root's class, on the stage
 *     side: "rp-side",                              // a panel in #side (or the root)
 *     metrics: { list: METRICS, className: "rp-metrics" },
 *     mount(view, hello) {
 *       const chart = view.panel(createChart(view.side));  // drawn and torn down
 *       return {
 *         draw(snapshot, frame) { chart.update(snapshot); },
 *         describe: (events) => describeEvents(events),
 *       };
 *     },
 *   });
 * }
 * ```
 */

import { createMetricsList } from "./metrics-list.js";
import { growWithRoom } from "./stage-fit.js";

/** @import { Frame, Hello, LabEvent, Renderer, RendererSlots, Send, ServerError, Snapshot } from "./types.js" */

/**
 * Anything a lab view holds that has to be drawn or torn down.
 * @typedef {object} Part
 * @property {(snapshot: Snapshot, frame?: Frame | null) => void} [update]
 * @property {() => void} [destroy]
 */

/**
 * The lab's numbers: a definition list of `list` (metrics-list.js), or one line of text
 * made by `text` from the metrics (and the snapshot) in a `<p>`.
 * @typedef {{ list: [string, () => string][], className: string }
 *   | { text: (metrics: Record<string, any>, snapshot: Snapshot) => string, className: string }} MetricsSpec
 */

/**
 * What a lab view gives the lab's own code.
 * @typedef {object} LabView
 * @property {HTMLElement} root the lab's element on the stage
 * @property {HTMLElement | null} side the lab's side panel: a `<div>` of the spec's `side`
 *   class in the page's side panel (in the root when the page has none); with `side: null`,
 *   the page's side panel itself, or null when there is none
 * @property {HTMLElement | null} metricsSlot the page's metrics slot (null: none)
 * @property {RendererSlots} slots what the page gave mount
 * @property {boolean} readOnly a view that only shows: offer no buttons of the lab's own
 * @property {Send | null} send the page's send, or null in a read-only view (or none given)
 * @property {<P extends object>(part: P) => P} own tear `part` down with the view (its
 *   `destroy()`, when it has one)
 * @property {<P extends Part>(part: P) => P} panel draw `part` with every snapshot
 *   (`part.update(snapshot, frame)`) and tear it down with the view
 * @property {(tag: string, className?: string | null, parent?: Element | null) => HTMLElement} element
 *   a new element, appended to `parent` (the root unless given; null: nowhere)
 * @property {(fn: () => void) => void} onDestroy run `fn` when the view is torn down (with
 *   the owned parts, in the reverse order of their registration)
 * @property {(handler: (error: ServerError) => boolean) => void} onError the page's `onError`
 */

/**
 * What the lab's mount returns: how a snapshot is drawn and events are told.
 * @typedef {object} LabHooks
 * @property {(snapshot: Snapshot, frame: Frame | null, metrics: Record<string, any> | null) => void} [draw]
 *   called after the panels are drawn, on mount (frame null) and for every frame, unless
 *   `update` is given
 * @property {(frame: Frame) => void} [update] take a frame yourself (the panels and the
 *   metrics are still drawn first, unless `drawsItself`)
 * @property {(events: LabEvent[]) => string[]} describe translated sentences for the narrator
 * @property {() => void} [destroy] before the kit's own teardown
 */

/**
 * What a lab declares about its view.
 * @typedef {object} LabSpec
 * @property {string | null} className the root's class; null: the stage itself is the
 *   root (a lab whose parts are the stage's own children, laid out by stage.css), and the
 *   lab removes what it put there (`own`)
 * @property {"append" | "replace"} [place] append the root to the stage (default) or
 *   replace what the stage holds
 * @property {string | null} [side] the side panel's class (see `LabView.side`)
 * @property {boolean} [sideOnStage] with `side`, put it in the root when the page has no
 *   side panel (default true); false: no side panel then (`view.side` null)
 * @property {MetricsSpec | null} [metrics] the lab's numbers, drawn by the kit; null: the
 *   lab fills `view.metricsSlot` itself
 * @property {import("./stage-fit.js").HtmlBox} [grows] a root drawn in HTML grows with
 *   the stage from this design size (stage-fit.js's growWithRoom)
 * @property {boolean} [drawsItself] the kit draws neither panels nor metrics on frames:
 *   the lab's `update` does (`view.drawPanels`, `view.drawMetrics`)
 * @property {(view: LabView & LabDrawing, hello: Hello) => LabHooks} mount build the drawing
 *   and the panels
 */

/**
 * What the view offers for drawing on the lab's own time.
 * @typedef {object} LabDrawing
 * @property {(snapshot: Snapshot, frame?: Frame | null) => void} drawPanels every panel's update
 * @property {(metrics: Record<string, any> | null | undefined, snapshot: Snapshot) => void} drawMetrics
 */

/**
 * The renderer of a lab built on the kit.
 * @param {LabSpec} spec
 * @returns {Renderer}
 */
export function createLabRenderer(spec) {
  /** @type {(LabView & LabDrawing & { finish(): void, destroy(): void }) | null} */
  let view = null;
  /** @type {LabHooks | null} */
  let hooks = null;

  return {
    mount(el, hello, slots) {
      const made = createLabView(el, slots ?? { metrics: null, send: () => null, onError() {} }, spec);
      view = made;
      const lab = spec.mount(made, hello);
      hooks = lab;
      made.finish();
      made.drawPanels(hello.snapshot, null);
      made.drawMetrics(hello.metrics, hello.snapshot);
      lab.draw?.(hello.snapshot, null, hello.metrics ?? null);
    },

    update(frame) {
      if (!view || !hooks) return;
      if (!spec.drawsItself) {
        view.drawPanels(frame.snapshot, frame);
        view.drawMetrics(frame.metrics, frame.snapshot);
      }
      if (hooks.update) hooks.update(frame);
      else hooks.draw?.(frame.snapshot, frame, frame.metrics ?? null);
    },

    describe(events) {
      return hooks ? hooks.describe(events) : [];
    },

    destroy() {
      hooks?.destroy?.();
      view?.destroy();
      view = hooks = null;
    },
  };
}

/**
 * The root, the side panel, the metrics and the parts of one mounted lab view.
 * @param {HTMLElement} el the stage
 * @param {RendererSlots} slots
 * @param {LabSpec} spec
 * @returns {LabView & LabDrawing & { finish(): void, destroy(): void }}
 */
export function createLabView(el, slots, spec) {
  const root = spec.className === null ? el : document.createElement("div");
  if (root !== el) {
    root.className = /** @type {string} */ (spec.className);
    if (spec.place === "replace") el.replaceChildren(root);
    else el.append(root);
  }

  /** @type {HTMLElement | null} the side panel the kit made (removed on teardown) */
  let ownSide = null;
  /** @type {HTMLElement | null} */
  let side = slots.side ?? null;
  if (spec.side) {
    const host = slots.side ?? (spec.sideOnStage === false ? null : root);
    if (host) {
      ownSide = document.createElement("div");
      ownSide.className = spec.side;
      // on the stage it comes after the drawing (finish() puts it there)
      if (host !== root) host.append(ownSide);
    }
    side = ownSide;
  }

  const metricsSlot = slots.metrics ?? null;
  /** @type {{ update(values: Record<string, any> | null | undefined, snapshot: Snapshot): void, destroy(): void } | null} */
  let metrics = null;
  const metricsSpec = spec.metrics ?? null;
  if (metricsSpec && "list" in metricsSpec) {
    const list = createMetricsList(metricsSlot, metricsSpec.list, metricsSpec.className);
    metrics = { update: (values) => list.update(values), destroy: () => list.destroy() };
  } else if (metricsSpec && "text" in metricsSpec && metricsSlot) {
    const line = document.createElement("p");
    line.className = metricsSpec.className;
    metricsSlot.append(line);
    metrics = {
      update(values, snapshot) {
        if (!values) return;
        const text = metricsSpec.text(values, snapshot);
        if (line.textContent !== text) line.textContent = text;
      },
      destroy: () => line.remove(),
    };
  }

  /** @type {Part[]} torn down in reverse order */
  const owned = [];
  if (spec.grows && root !== el) owned.push(growWithRoom(el, root, spec.grows));
  /** @type {Part[]} drawn in order */
  const panels = [];
  const readOnly = Boolean(slots.readOnly);
  const send = readOnly || !slots.send ? null : slots.send;

  return {
    root,
    side,
    metricsSlot,
    slots,
    readOnly,
    send,
    own(part) {
      owned.push(/** @type {Part} */ (part));
      return part;
    },
    panel(part) {
      owned.push(part);
      panels.push(part);
      return part;
    },
    element(tag, className = null, parent = root) {
      const node = document.createElement(tag);
      if (className) node.className = className;
      parent?.append(node);
      return node;
    },
    onDestroy(fn) {
      owned.push({ destroy: fn });
    },
    onError(handler) {
      slots.onError?.(handler);
    },
    /**
     * @param {Snapshot} snapshot
     * @param {Frame | null} [frame]
     */
    drawPanels(snapshot, frame = null) {
      for (const part of panels) part.update?.(snapshot, frame);
    },
    /**
     * @param {Record<string, any> | null | undefined} values
     * @param {Snapshot} snapshot
     */
    drawMetrics(values, snapshot) {
      metrics?.update(values, snapshot);
    },
    /** Put the side panel in the root, after the drawing, when the page has none. */
    finish() {
      if (ownSide && !ownSide.parentNode) root.append(ownSide);
    },
    destroy() {
      for (const part of owned.splice(0).reverse()) part.destroy?.();
      panels.length = 0;
      metrics?.destroy();
      metrics = null;
      if (root !== el) root.remove();
      ownSide?.remove();
    },
  };
}
