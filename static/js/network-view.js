/**
 * The network drawing every network lab shares: nodes, links, and the messages on the
 * wire, from a snapshot's `network` and `playback`. Clicking a link cuts or heals it,
 * clicking a node stops or restarts it, dragging a line across empty space splits the
 * network in two; each sends the lab's action (the server decides what happens). Links
 * and nodes are buttons for the keyboard too (Tab, then Enter or Space).
 *
 * API (docs/frontend.md, "The network view"):
 *   const view = createNetworkView(container, {send, declaration, onError, positions,
 *                                               kinds, describeNode, messageLabel, label});
 *   view.update(snapshot, frame);  view.panel(nodeId);  view.onLayout(fn);  view.destroy();
 */

import d3 from "d3";
import { fmt, joinSentences, num, t } from "./i18n.js";
import { reducedMotion } from "./motion.js";
import { createVirtualClock } from "./network/clock.js";
import { NODE_RADIUS, SIZES, messagePath, outward, placeNodes } from "./network/layout.js";
import { createMessageLayer } from "./network/messages.js";
import { enableSplitGesture } from "./network/split.js";
import { createKindStyles, legendEntries, shapePath } from "./network/styles.js";
import { fitToRoom } from "./stage-fit.js";

/** @import { Positions } from "./network/layout.js" */
/**
 * @import { KindDeclared, LegendEntry, MessageLost, NetLink, NetMessage, NetNode,
 *   NetworkLabSnapshot, NetworkSnapshot, Point } from "./network/types.js"
 */
/** @import { Declaration, Frame, RendererSlots, Send, Snapshot } from "./types.js" */
/** @typedef {import("d3").Selection<SVGGElement, NetLink, SVGGElement, unknown>} LinkSelection */
/** @typedef {import("d3").Selection<SVGGElement, NetNode, SVGGElement, unknown>} NodeSelection */
/** @typedef {import("d3").EnterElement} EnterElement */

/**
 * What a lab tells the network view (createNetworkView); every one is optional.
 * @typedef {object} NetworkViewOptions
 * @property {Send} [send] how clicks act (the renderer's `slots.send`)
 * @property {Declaration | null} [declaration] only declared actions are offered by clicking
 * @property {RendererSlots["onError"] | null} [onError] the renderer's `slots.onError`
 * @property {Positions | null} [positions] where nodes go; the rest go on a circle
 * @property {Record<string, KindDeclared>} [kinds]
 *   message dots by kind (shape: circle, square, diamond, triangle, hexagon)
 * @property {((message: NetMessage) => string | null) | null} [messageLabel] captions a dot
 * @property {((node: NetNode, snapshot: Snapshot | null) => string) | null} [describeNode]
 *   adds to a node's accessible name
 * @property {string} [label] the drawing's accessible name
 * @property {{wide: [number, number], narrow: [number, number]}
 *   | ((room: {width: number, height: number, narrow: boolean}) => [number, number])} [sizes]
 *   the two viewBoxes, or the viewBox for the room the drawing has (its box's size in CSS
 *   pixels, 0 × 0 before the first layout), asked again whenever that box is resized
 * @property {Partial<typeof ACTIONS>} [actions] other names for the actions clicks send
 * @property {string[]} [fixedNodes] nodes a click does not stop or restart (a client)
 * @property {((id: string) => string) | null} [nodeMark] the text in a node's circle
 *   (default: its id, cut to 3 characters past 4)
 */

/**
 * The drawing's sizes and where its nodes are (the network view's `layout`):
 * `outward(id)` is the unit vector from the drawing's centre towards node `id`.
 * @typedef {object} NetworkLayout
 * @property {number} width the viewBox's
 * @property {number} height
 * @property {boolean} narrow
 * @property {number} scale CSS pixels per viewBox unit
 * @property {Map<string, Point>} positions
 * @property {number} radius a node's
 * @property {(id: string) => Point} outward
 */

/**
 * A network view, as createNetworkView returns it.
 * @typedef {ReturnType<typeof createNetworkView>} NetworkView
 */

// a room narrower than this takes the lab's narrow (phone) layout: partition-cap's
// network between its two clients' columns is 540 px wide on a laptop, and wide
const NARROW_BELOW_PX = 480;
const ACTIONS = {
  cut: "cut_link",
  heal: "heal_link",
  stop: "stop_node",
  restart: "restart_node",
  split: "split",
};
/** @typedef {keyof typeof ACTIONS} ActionKey what a click can do */

/**
 * Draw a network into `container`. Options:
 * - `send(action, args) → ref`: how clicks act (the renderer's `slots.send`);
 * - `declaration`: the lab's declaration; only declared actions are offered by clicking;
 * - `onError(handler)`: the renderer's `slots.onError`, so refused clicks are shown here;
 * - `positions`: `{id: [fx, fy]}` fractions of the drawing, or `(nodes, {width, height,
 *   narrow}) → that`; nodes left out go on a circle;
 * - `kinds`: `{kind: {label, colour, shape}}` for message dots (shape: circle, square,
 *   diamond, triangle); `messageLabel(message) → short text | null` captions a dot;
 * - `describeNode(node, snapshot) → text` adds to a node's accessible name;
 * - `label`: the drawing's accessible name; `actions`: other action names;
 * - `sizes`: `{wide: [w, h], narrow: [w, h]}` viewBoxes (default 960×440 and 400×520),
 *   or `({width, height, narrow}) → [w, h]`, the viewBox for the room in CSS pixels;
 * - `fixedNodes`: ids of nodes that are not buttons (a client that cannot crash);
 * - `nodeMark(id) → text`: what the node's circle says (default: the id, short).
 * @param {HTMLElement} container
 * @param {NetworkViewOptions} [options]
 */
export function createNetworkView(container, options = {}) {
  const {
    send = () => null,
    declaration = null,
    onError = null,
    positions: chosenPositions = null,
    kinds = {},
    describeNode = null,
    messageLabel = null,
    label = t("The network: servers and the links between them"),
    sizes = SIZES,
    fixedNodes = [],
    nodeMark = null,
  } = options;
  const fixed = new Set(fixedNodes);
  const markOf = (/** @type {string} */ id) => nodeMark?.(id) ?? shortId(id);
  const names = { ...ACTIONS, ...(options.actions ?? {}) };
  const declared = new Set((declaration?.actions ?? []).map((a) => a.name));
  const can = (/** @type {ActionKey} */ what) => !declaration || declared.has(names[what]);
  const styleOf = createKindStyles(kinds);
  const clock = createVirtualClock({ extrapolate: !reducedMotion() });
  /** @type {((layout: NetworkLayout) => void)[]} */
  const layoutListeners = [];
  /** @type {string[]} */
  const seenKinds = [];
  /** @type {NetworkLabSnapshot | null} */
  let snapshot = null;
  let layout = { width: 0, height: 0, narrow: false, scale: 1 };
  let pixelRatio = 0; // the canvas's pixels per CSS pixel (0: read it at the next paint)
  let legendKey = ""; // the kinds the legend shows
  let placed = 0; // how many times the nodes were placed (a link or node drawn since is up to date)
  /** @type {Map<string, Point>} */
  let positions = new Map();
  /** @type {number | null} */
  let raf = null;
  let nodeKey = "";

  const figure = document.createElement("figure");
  figure.className = "net-view";
  const box = document.createElement("div");
  box.className = "net-figure";
  const canvas = document.createElement("canvas");
  canvas.className = "net-dots";
  canvas.setAttribute("aria-hidden", "true");
  const caption = document.createElement("figcaption");
  caption.className = "net-caption";
  const legend = document.createElement("ul");
  legend.className = "net-legend";
  legend.setAttribute("aria-label", t("Message kinds"));
  const counts = document.createElement("p");
  counts.className = "net-counts";
  const hint = document.createElement("p");
  hint.className = "net-hint";
  hint.textContent = hintText(can);
  const error = document.createElement("p");
  error.className = "net-error";
  error.setAttribute("role", "alert");
  error.hidden = true;
  caption.append(legend, counts, hint, error);

  const svg = d3
    .select(box)
    .append("svg")
    .attr("class", "net-svg")
    .attr("role", "group")
    .attr("aria-label", label);
  box.append(canvas);
  // On the stage the drawing fits the room left to it (stage-fit.js).
  const fit = document.createElement("div");
  fit.className = "net-fit stage-fit";
  fit.append(box);
  const fitter = fitToRoom(fit);
  figure.append(fit, caption);
  container.append(figure);

  const backdrop = svg.append("rect").attr("class", "net-backdrop");
  const linkLayer = svg.append("g").attr("class", "net-links");
  const splitLayer = svg.append("g").attr("class", "net-split").attr("aria-hidden", "true");
  const nodeLayer = svg.append("g").attr("class", "net-nodes");
  const panelLayer = svg.append("g").attr("class", "net-panels");

  const messages = createMessageLayer(canvas, {
    styleOf,
    labelOf: messageLabel,
    cutPoint(from, to, offset) {
      const a = positions.get(from);
      const b = positions.get(to);
      if (!a || !b) return null;
      const path = messagePath(a, b);
      const span = Math.hypot(path.dx, path.dy) || 1;
      return path.at(Math.max(0, 0.5 - (16 + offset) / span));
    },
  });

  const stopSplit = can("split")
    ? enableSplitGesture({
        svg,
        backdrop,
        layer: splitLayer,
        nodes: () => positions,
        onSplit: (group) => act(names.split, { group: group.join(",") }),
        onMark(sides) {
          /** @type {NodeSelection} */ (nodeLayer.selectAll("g.net-node"))
            .classed("side-a", (d) => Boolean(sides?.a.includes(d.id)))
            .classed("side-b", (d) => Boolean(sides?.b.includes(d.id)));
        },
      })
    : () => {};
  figure.classList.toggle("can-split", can("split"));

  /** @type {Set<string | null | undefined>} */
  const myRefs = new Set();
  onError?.((problem) => {
    if (!myRefs.has(problem.ref)) return false;
    myRefs.delete(problem.ref);
    error.textContent = fmt(t("Not applied: %(message)s"), {
      message: problem.message || problem.code,
    });
    error.hidden = false;
    return true;
  });

  /**
   * @param {string} action
   * @param {Record<string, unknown>} args
   */
  function act(action, args) {
    error.hidden = true;
    const ref = send(action, args);
    if (ref) myRefs.add(ref);
    return ref;
  }

  const resize = new ResizeObserver(() => relayout());
  resize.observe(box);
  resize.observe(fit);

  function relayout(force = false) {
    const across = fit.clientWidth || container.clientWidth || SIZES.wide[0];
    const narrow = across < NARROW_BELOW_PX;
    const [width, height] =
      typeof sizes === "function"
        ? sizes({ width: fit.clientWidth, height: fit.clientHeight, narrow })
        : narrow
          ? sizes.narrow
          : sizes.wide;
    fitter.setAspect(width / height);
    const widthPx = box.clientWidth || across;
    const changed =
      force || narrow !== layout.narrow || layout.width !== width || layout.height !== height;
    layout = { width, height, narrow, scale: widthPx / width };
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(widthPx * dpr);
    canvas.height = Math.round(widthPx * (height / width) * dpr);
    pixelRatio = canvas.width / Math.max(1, widthPx);
    if (changed || force) {
      svg.attr("viewBox", `0 0 ${width} ${height}`);
      backdrop.attr("width", width).attr("height", height);
      placeAll();
    }
    messages.layout(positions, layout.scale, pixelRatio);
    paint();
  }

  function placeAll() {
    const nodes = snapshot?.network?.nodes ?? [];
    positions = placeNodes(nodes, layout, chosenPositions);
    nodeKey = nodes.map((n) => n.id).join("|");
    placed += 1;
    messages.layout(positions, layout.scale, pixelRatio);
    drawLinks();
    drawNodes();
    for (const listener of layoutListeners) listener(api.layout);
  }

  // Links, nodes and panels are written again only when what they show changed (or the
  // nodes were placed anew): a playing lab draws ten frames a second, and each attribute
  // written makes the browser restyle, lay out and repaint the drawing.
  function drawLinks() {
    const links = snapshot?.network?.links ?? [];
    const showLatency = links.length <= 6;
    const centre = middleOf(positions);
    /** @type {LinkSelection} */ (linkLayer.selectAll("g.net-link"))
      .data(
        links.filter((l) => positions.has(l.a) && positions.has(l.b)),
        (d) => d.id,
      )
      .join((enter) => enterLink(enter))
      .each((d, i, all) => {
        const shown = [placed, d.up, d.latency_ms, showLatency, nodeText(d.a), nodeText(d.b)];
        if (showing(all[i], shown.join("|"))) return;
        // (only links whose ends are placed are drawn)
        const a = /** @type {Point} */ (positions.get(d.a));
        const b = /** @type {Point} */ (positions.get(d.b));
        const g = d3.select(all[i]);
        g.classed("is-cut", !d.up)
          .attr("data-link", d.id)
          .attr("data-state", d.up ? "up" : "cut")
          .attr("aria-label", linkName(d));
        g.selectAll("line").attr("x1", a.x).attr("y1", a.y).attr("x2", b.x).attr("y2", b.y);
        const mx = (a.x + b.x) / 2;
        const my = (a.y + b.y) / 2;
        const angle = (Math.atan2(b.y - a.y, b.x - a.x) * 180) / Math.PI;
        g.select(".cut-mark")
          .attr("transform", `translate(${mx},${my}) rotate(${angle})`)
          .attr("visibility", d.up ? "hidden" : "visible");
        const place = labelPlace(a, b, centre);
        g.select(".link-label")
          .attr("x", mx + place.x)
          .attr("y", my + place.y)
          .attr("text-anchor", place.anchor)
          .text(d.up ? (showLatency ? latencyText(d) : "") : t("cut"));
      });
  }

  /**
   * @param {import("d3").Selection<EnterElement, NetLink, SVGGElement, unknown>} enter
   * @returns {LinkSelection}
   */
  function enterLink(enter) {
    const g = enter.append("g").attr("class", "net-link");
    if (can("cut") || can("heal")) {
      g.attr("tabindex", 0)
        .attr("role", "button")
        .on("click", (event, d) => toggleLink(d))
        .on("keydown", (event, d) => pressed(event) && toggleLink(d));
    }
    g.append("line").attr("class", "link-hit");
    g.append("line").attr("class", "link-ring");
    g.append("line").attr("class", "link-line");
    const mark = g.append("g").attr("class", "cut-mark");
    mark.append("rect").attr("x", -9).attr("y", -12).attr("width", 18).attr("height", 24);
    mark.append("path").attr("d", "M-7,-10L-2,10M2,-10L7,10");
    g.append("text").attr("class", "link-label");
    return g;
  }

  /** @param {NetLink} link */
  function toggleLink(link) {
    const current = linkById(link.id) ?? link;
    if (current.up && can("cut")) act(names.cut, { link: current.id });
    else if (!current.up && can("heal")) act(names.heal, { link: current.id });
  }

  function drawNodes() {
    const nodes = (snapshot?.network?.nodes ?? []).filter((n) => positions.has(n.id));
    /** @type {NodeSelection} */ (nodeLayer.selectAll("g.net-node"))
      .data(nodes, (d) => d.id)
      .join((enter) => enterNode(enter))
      .each((d, i, all) => {
        const name = nodeName(d);
        if (showing(all[i], [placed, d.up, d.label, name].join("|"))) return;
        const at = /** @type {Point} */ (positions.get(d.id));
        const g = d3.select(all[i]);
        g.classed("is-down", !d.up)
          .attr("data-node", d.id)
          .attr("data-state", d.up ? "up" : "stopped")
          .attr("transform", `translate(${at.x},${at.y})`)
          .attr("aria-label", name);
        g.select(".node-id").text(markOf(d.id));
        // the leading space is not drawn (SVG collapses it) but keeps the node's text
        // "A Frankfurt", as its name says, where the two texts would run together
        g.select(".node-label").text(d.label && d.label !== d.id ? ` ${t(d.label)}` : "");
        g.select(".node-stopped").attr("visibility", d.up ? "hidden" : "visible");
      });
    /** @type {NodeSelection} */ (panelLayer.selectAll("g.node-panel"))
      .data(nodes, (d) => d.id)
      .join((enter) => enter.append("g").attr("class", "node-panel"))
      .each((d, i, all) => {
        if (showing(all[i], `${placed}|${d.up}`)) return;
        const at = /** @type {Point} */ (positions.get(d.id));
        d3.select(all[i])
          .attr("data-node", d.id)
          .classed("is-down", !d.up)
          .attr("transform", `translate(${at.x},${at.y})`);
      });
  }

  /**
   * @param {import("d3").Selection<EnterElement, NetNode, SVGGElement, unknown>} enter
   * @returns {NodeSelection}
   */
  function enterNode(enter) {
    const g = enter.append("g").attr("class", "net-node");
    if (can("stop") || can("restart")) {
      g.filter((d) => !fixed.has(d.id))
        .attr("tabindex", 0)
        .attr("role", "button")
        .on("click", (event, d) => toggleNode(d))
        .on("keydown", (event, d) => pressed(event) && toggleNode(d));
    }
    g.filter((d) => fixed.has(d.id)).attr("role", "img");
    g.append("circle")
      .attr("class", "node-ring")
      .attr("r", NODE_RADIUS + 5);
    g.append("circle").attr("class", "node-body").attr("r", NODE_RADIUS);
    g.append("text").attr("class", "node-id").attr("y", 5);
    g.append("text")
      .attr("class", "node-label")
      .attr("y", -NODE_RADIUS - 9);
    const tag = g
      .append("g")
      .attr("class", "node-stopped")
      .attr("transform", `translate(0,${NODE_RADIUS})`);
    tag
      .append("rect")
      .attr("x", -30)
      .attr("y", -9)
      .attr("width", 60)
      .attr("height", 18)
      .attr("rx", 9);
    tag.append("text").attr("y", 4).text(t("stopped"));
    return g;
  }

  /** @param {NetNode} node */
  function toggleNode(node) {
    const current = nodeById(node.id) ?? node;
    if (current.up && can("stop")) act(names.stop, { node: current.id });
    else if (!current.up && can("restart")) act(names.restart, { node: current.id });
  }

  /** @param {string} id */
  function linkById(id) {
    return snapshot?.network?.links?.find((l) => l.id === id);
  }

  /** @param {string} id */
  function nodeById(id) {
    return snapshot?.network?.nodes?.find((n) => n.id === id);
  }

  /**
   * What a node is called: its label (translated), else its id.
   * @param {string} id
   */
  function nodeText(id) {
    const node = nodeById(id);
    return node?.label && node.label !== id ? t(node.label) : id;
  }

  /**
   * A link's accessible name: its ends, its state, and what pressing it does.
   * @param {NetLink} link
   * @returns {string}
   */
  function linkName(link) {
    const between = fmt(t("Link between %(a)s and %(b)s"), {
      a: nodeText(link.a),
      b: nodeText(link.b),
    });
    if (!link.up) {
      return can("heal")
        ? fmt(t("%(link)s, cut. Press to heal it."), { link: between })
        : fmt(t("%(link)s, cut."), { link: between });
    }
    const state = fmt(t("%(link)s, up, %(latency)s."), {
      link: between,
      latency: latencyText(link),
    });
    return can("cut") ? `${state} ${t("Press to cut it.")}` : state;
  }

  /**
   * @param {NetNode} node
   * @returns {string}
   */
  function nodeName(node) {
    // what a sighted user reads on the node (its letter, and its label above it), so
    // that a voice user can say what they see (WCAG 2.5.3, label in name)
    const label = node.label && node.label !== node.id ? t(node.label) : "";
    const name = label
      ? fmt(t("%(id)s %(label)s"), { id: markOf(node.id), label })
      : markOf(node.id);
    const extra = describeNode?.(node, snapshot) ?? "";
    const state = node.up
      ? fmt(t("%(name)s, running."), { name })
      : fmt(t("%(name)s, stopped."), { name });
    const verb = fixed.has(node.id)
      ? ""
      : node.up
      ? can("stop")
        ? t("Press to stop it.")
        : ""
      : can("restart")
        ? t("Press to restart it.")
        : "";
    return joinSentences([state, extra, verb]);
  }

  /**
   * @param {LegendEntry[]} entries
   * @param {string} key what they are, to tell when they change
   */
  function drawLegend(entries, key) {
    legendKey = key;
    d3.select(legend)
      .selectAll("li")
      .data(entries, (d) => d.key)
      .join((enter) => {
        const li = enter.append("li");
        const icon = li
          .append("svg")
          .attr("viewBox", "-8 -8 16 16")
          .attr("aria-hidden", "true")
          .attr("focusable", "false");
        icon
          .append("path")
          .attr("d", (d) => legendPath(d))
          .attr("class", (d) => `legend-${d.shape}${d.hollow ? " legend-hollow" : ""}`)
          .attr("fill", (d) => (d.shape === "cross" ? "none" : d.hollow ? "#fff" : d.colour))
          .attr("stroke", (d) =>
            d.shape === "cross" || d.hollow
              ? d.colour
              : d.shape === "held"
                ? "#1b1f24"
                : "#fff",
          );
        li.append("span").text((d) => d.label);
        return li;
      });
  }

  function drawCaption() {
    const network = snapshot?.network;
    if (!network) return;
    for (const m of [...(network.in_flight ?? []), ...(network.held ?? [])]) {
      if (!seenKinds.includes(m.kind)) seenKinds.push(m.kind);
    }
    const entries = legendEntries(styleOf, kinds, seenKinds, {
      held: network.cut_policy === "hold",
    });
    const key = entries.map((d) => d.key).join("|");
    if (key !== legendKey) drawLegend(entries, key);
    const c = network.counts ?? {};
    const text = fmt(
      t(
        "On the wire: %(flying)s · held at cuts: %(held)s · delivered: %(delivered)s · lost: %(lost)s",
      ),
      {
        flying: num(network.in_flight?.length ?? 0),
        held: num(network.held?.length ?? 0),
        delivered: num(c.delivered ?? 0),
        lost: num(c.lost ?? 0),
      },
    );
    if (counts.textContent !== text) counts.textContent = text;
  }

  /** @param {number} [now] */
  function paint(now = performance.now()) {
    messages.paint(clock.now(now), now);
  }

  /** @param {number} now */
  function tick(now) {
    raf = null;
    paint(now);
    schedule();
  }

  function schedule() {
    const moving = clock.running && messages.counts.inFlight > 0;
    if ((moving || messages.busy) && raf === null) raf = requestAnimationFrame(tick);
  }

  const api = {
    /**
     * Draw a snapshot ({network, playback, ...}); `frame` adds its events and `t_ms`.
     * @param {Snapshot | null} next
     * @param {Frame | null} [frame]
     */
    update(next, frame = null) {
      snapshot = next;
      /** @type {Partial<NetworkSnapshot>} */
      const network = next?.network ?? {};
      clock.sync(
        next?.playback ?? { now_ms: network.now_ms },
        frame?.t_ms ?? next?.playback?.now_ms,
      );
      const key = (network.nodes ?? []).map((n) => n.id).join("|");
      if (key !== nodeKey) placeAll();
      else {
        drawLinks();
        drawNodes();
      }
      messages.set(network);
      for (const event of frame?.events ?? []) {
        if (event.type === "message_lost") {
          messages.lost(/** @type {MessageLost} */ (event), reducedMotion());
        }
        // only message events name a message kind; a lab's own events may use `kind` too
        const message = event.type === "message_sent" || event.type === "message_lost";
        if (message && event.kind && !seenKinds.includes(event.kind)) seenKinds.push(event.kind);
      }
      if (frame?.ref && myRefs.delete(frame.ref)) error.hidden = true;
      drawCaption();
      // a frame already requested paints the dots anew (at most once a frame)
      if (raf === null) paint();
      schedule();
    },
    /**
     * The `<g>` drawn at node `id` (its centre is 0,0) for the lab's own marks.
     * @param {string} id
     * @returns {SVGGElement | null}
     */
    panel(id) {
      return /** @type {NodeSelection} */ (panelLayer.selectAll("g.node-panel"))
        .filter((d) => d.id === id)
        .node();
    },
    /**
     * Every node's panel as a d3 selection bound to the node data.
     * @returns {NodeSelection}
     */
    get panels() {
      return panelLayer.selectAll("g.node-panel");
    },
    /**
     * Sizes and positions: {width, height, narrow, scale, positions, radius, outward(id)}.
     * @returns {NetworkLayout}
     */
    get layout() {
      return {
        ...layout,
        positions,
        radius: NODE_RADIUS,
        outward: (id) => outward(positions.get(id) ?? { x: 0, y: 0 }, layout.width, layout.height),
      };
    },
    /**
     * Call `listener(layout)` whenever nodes are placed anew (first draw, phone ↔ wide).
     * @param {(layout: NetworkLayout) => void} listener
     */
    onLayout(listener) {
      layoutListeners.push(listener);
    },
    /** The virtual time the dots are drawn at right now. */
    virtualNow: () => clock.now(),
    svg: svg.node(),
    element: figure,
    destroy() {
      if (raf !== null) cancelAnimationFrame(raf);
      raf = null;
      resize.disconnect();
      fitter.destroy();
      stopSplit();
      messages.clear();
      figure.remove();
    },
  };
  relayout(true);
  return api;
}

const shownKeys = new WeakMap();

/**
 * Whether `element` already shows what `key` sums up; else notes that it will.
 * @param {Element} element
 * @param {string} key
 */
function showing(element, key) {
  if (shownKeys.get(element) === key) return true;
  shownKeys.set(element, key);
  return false;
}

/**
 * Whether a key press presses a button (Enter or Space); the page does nothing else with it.
 * @param {KeyboardEvent} event
 */
function pressed(event) {
  if (event.key !== "Enter" && event.key !== " ") return false;
  event.preventDefault();
  event.stopPropagation();
  return true;
}

/**
 * Where a link's label goes: beside its middle, clear of both dot lanes, on the side away
 * from the middle of the drawing (upwards when the link passes through it).
 * @param {Point} a
 * @param {Point} b
 * @param {Point} centre
 * @returns {{x: number, y: number, anchor: "start" | "end" | "middle"}}
 */
function labelPlace(a, b, centre) {
  const length = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  let ux = -(b.y - a.y) / length;
  let uy = (b.x - a.x) / length;
  const ox = (a.x + b.x) / 2 - centre.x;
  const oy = (a.y + b.y) / 2 - centre.y;
  const away = Math.hypot(ox, oy) > 20 ? ox * ux + oy * uy : -uy;
  if (away < 0) [ux, uy] = [-ux, -uy];
  const gap = 16;
  const anchor = ux > 0.35 ? "start" : ux < -0.35 ? "end" : "middle";
  const baseline = uy < -0.35 ? 0 : uy > 0.35 ? 11 : 4; // above, below or level with the point
  return { x: ux * gap, y: uy * gap + baseline, anchor };
}

/**
 * The centre of the nodes.
 * @param {Map<string, Point>} positions
 * @returns {Point}
 */
function middleOf(positions) {
  let x = 0;
  let y = 0;
  for (const point of positions.values()) {
    x += point.x;
    y += point.y;
  }
  const n = Math.max(1, positions.size);
  return { x: x / n, y: y / n };
}

/** @param {string} id */
function shortId(id) {
  return id.length <= 4 ? id : id.slice(0, 3);
}

/** @param {NetLink} link */
function latencyText(link) {
  const [lo, hi] = /** @type {number[]} */ (link.latency_ms ?? []);
  if (lo === undefined) return "";
  return lo === hi
    ? fmt(t("%(ms)s ms"), { ms: num(lo) })
    : fmt(t("%(lo)s–%(hi)s ms"), { lo: num(lo), hi: num(hi) });
}

/** @param {LegendEntry} entry */
function legendPath(entry) {
  if (entry.shape === "cross") return "M-5,-5L5,5M5,-5L-5,5";
  if (entry.shape === "held") return shapePath("circle", 5);
  return shapePath(entry.shape, 5);
}

/** @param {(what: ActionKey) => boolean} can */
function hintText(can) {
  const parts = [];
  if (can("cut") || can("heal")) parts.push(t("Click a link to cut or heal it."));
  if (can("stop") || can("restart")) parts.push(t("Click a server to stop or restart it."));
  if (can("split")) parts.push(t("Drag a line across empty space to split the network in two."));
  return joinSentences(parts);
}
