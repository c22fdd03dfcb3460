/**
 * The graph drawn, and the marks of a question over it.
 *
 * A small graph (up to `SVG_MOST` nodes: the course's 8 airports, the 6 services, and
 * their grown versions) is SVG: nodes are buttons with their names (the airport codes
 * inside the circles of the course's graph), directed edges have arrowheads, and the
 * course's graph has its minutes on its edges. A large one (the 400 airports, grown:
 * 4,000) is painted on a canvas, every edge in one path, the hubs labelled; its
 * question's marks are an SVG over it.
 *
 * Nodes are dragged to pin them (this browser only: the layout heats up and settles
 * again); a double-click unpins one. On the small graph a click, or Enter or Space on a
 * focused node, opens a small menu (ask from here, close it, unpin it); the arrow keys
 * move between nodes, one Tab stop for the whole graph. A closed airport is hatched and
 * struck through, with the word "closed" under it (never colour alone).
 *
 * `setMarks(marks)` draws what a question did: the edges read by outcome (each outcome
 * a line style and a mark: legend.js), the frontier's rings, the answer's paths, the
 * depth of each node reached. Marks are placed from node positions, so they follow a
 * drag or the settling of a large graph.
 */

import d3 from "d3";
import { fmt, joinNames, num, t, tn } from "../../i18n.js";
import { fitOf, layoutOf, parseGraph } from "./layout.js";
import { roomZoom } from "../../stage-fit.js";
import { createNodeMenu } from "./node-menu.js";
import { edgesText, minutesText, nodesText } from "./words.js";

/** The room the drawing is designed for: a laptop's stage (stage-fit.js's HtmlBox). */
const ROOM = { design: /** @type {[number, number]} */ ([860, 470]) };

/** @import { Snapshot } from "../../types.js" */
/** @import { EdgeMark, Marks } from "./expansion.js" */
/** @import { Layout, ParsedGraph } from "./layout.js" */
/** @import { GtClosures, GtNode, GtSnapshot } from "./types.js" */

/** @typedef {ParsedGraph & {edges_text: string}} ViewGraph the graph drawn, and its edges as sent */
/**
 * A node dragged: by which pointer, from where, whether it has moved yet.
 * @typedef {{index: number, pointer: number, x: number, y: number, moved: boolean, target: Element}} Drag
 */

const FRAME_BUDGET_MS = 4; // ticks of a large graph's settling per animation frame (at least one)
let views = 0; // ids in the page: each view's markers and patterns are its own

/**
 * @param {HTMLElement} parent
 * @param {{send: ((action: string, args: Record<string, unknown>) => string | null) | null}} options
 *   `send` null: a view that only shows (a node's menu only unpins)
 */
export function createGraphView(parent, { send }) {
  views += 1;
  const uid = `gt${views}`;
  const root = document.createElement("div");
  root.className = "gt-graph";
  const canvas = document.createElement("canvas");
  canvas.className = "gt-canvas";
  canvas.setAttribute("aria-hidden", "true");
  canvas.hidden = true;
  root.append(canvas);
  parent.append(root);
  const svg = d3.select(root).append("svg").attr("class", "gt-svg");
  const defs = svg.append("defs");
  makeDefs(defs, uid);
  const layers = {
    edges: svg.append("g").attr("class", "gt-edges"),
    minutes: svg.append("g").attr("class", "gt-minutes"),
    cuts: svg.append("g").attr("class", "gt-cuts"),
    tree: svg.append("g").attr("class", "gt-marks gt-marks-past"),
    marks: svg.append("g").attr("class", "gt-marks"),
    path: svg.append("g").attr("class", "gt-path"),
    rings: svg.append("g").attr("class", "gt-rings"),
    // names of airports and services: data, never translated
    nodes: svg.append("g").attr("class", "gt-nodes").attr("translate", "no"),
    labels: svg.append("g").attr("class", "gt-labels").attr("translate", "no"),
    signs: svg.append("g").attr("class", "gt-signs"),
  };
  const menu = createNodeMenu(root);
  const ctx = canvas.getContext("2d");

  // the drawing's size in its own units (what the layout and the viewBox use), and the
  // scale a unit is drawn at: one CSS pixel a unit up to a laptop's stage, larger in
  // proportion in a larger one (a projector's: stage-fit.js's roomZoom), so the names
  // and minutes grow with the screen
  let width = 0;
  let height = 0;
  let scale = 1;
  /** @type {ViewGraph | null} parsed */
  let graph = null;
  /** @type {Layout | null} */
  let layout = null;
  /** @type {ReturnType<typeof fitOf> | null} */
  let fit = null;
  /** @type {Float64Array} screen positions, x and y of node i at 2i and 2i + 1 */
  let at = new Float64Array(0);
  /** @type {Set<string>} the closed nodes' names */
  let closed = new Set();
  /** @type {Marks | null} */
  let marks = null;
  /** @type {GtClosures | null} */
  let cuts = null;
  let frame = 0; // the animation frame asked for, if any
  let drawnVersion = -1; // the worker's state last drawn (layout.js)
  /** @type {Drag | null} */
  let drag = null;
  let suppressClick = false;
  let focusIndex = 0; // the node in the Tab order
  let radius = 20; // a node's circle (the course's small graphs: as large as there is room for)
  /** @type {Float64Array} each node's radius: in a grown graph its old part is drawn larger */
  let rad = new Float64Array(0);
  /** @type {Set<number>} the large graph's labelled nodes */
  let hubs = new Set();
  let reveal = 0; // how long new marks take to fade in (ms)

  const observer = new ResizeObserver(([entry]) => {
    const w = Math.round(entry.contentRect.width);
    const h = Math.round(entry.contentRect.height);
    const s = roomZoom({ width: w, height: h }, ROOM);
    if (Math.round(width * scale) === w && Math.round(height * scale) === h && s === scale) return;
    scale = s;
    width = w / s;
    height = h / s;
    resize();
  });
  observer.observe(root);

  // ---- the graph ----------------------------------------------------------------------

  /**
   * Draw the snapshot's graph (a new one is laid out; the same one keeps its layout).
   * @param {Snapshot} snap
   */
  function setGraph(snap) {
    const snapshot = /** @type {GtSnapshot} */ (snap);
    const g = snapshot.graph;
    const same = graph && graph.which === g.which && graph.grown === g.grown && graph.node_count === g.node_count && graph.edges_text === g.edges;
    closed = new Set(snapshot.closed ?? []);
    if (!same) {
      graph = { ...parseGraph(g), edges_text: g.edges };
      layout = layoutOf(graph, snapshot.layout_seed ?? 0);
      drawnVersion = -1;
      if (!layout.large) layout.settle();
      fit = null;
      at = new Float64Array(graph.nodes.length * 2);
      focusIndex = Math.max(0, graph.nodes.findIndex((n) => n.name === g.hub));
      menu.close(false);
      const tiny = graph.nodes.length <= 24;
      radius = graph.large ? 3 : tiny ? (graph.kind === "airport" ? 21 : 11) : 5;
      rad = Float64Array.from(layout.nodes, (node) => (/** @type {ViewGraph} */ (graph).large ? 3 : tiny ? radius : node.tiny ? 10 : 5));
      root.dataset.size = graph.large ? "large" : tiny ? "small" : "medium";
      root.dataset.kind = graph.kind;
      canvas.hidden = !graph.large;
      root.setAttribute("role", graph.large ? "img" : "group");
      // the largest nodes by routes out are the hubs: labelled on the canvas
      const byDegree = [...graph.nodes].sort((a, b) => b.out - a.out || (a.name < b.name ? -1 : 1));
      hubs = new Set(graph.large ? byDegree.slice(0, 8).map((n) => n.index) : []);
      buildBase();
    }
    root.setAttribute("aria-label", summary());
    drawClosed();
    if (same) place();
    else resize();
    run();
  }

  /** The drawing's spoken summary. */
  function summary() {
    if (!graph) return ""; // called once a graph is drawn
    const head = fmt(t("The graph: %(nodes)s, %(edges)s."), {
      nodes: nodesText(graph.kind, graph.node_count),
      edges: edgesText(graph.kind, graph.edge_count),
    });
    if (!graph.large) return head;
    const names = [...hubs].map((i) => /** @type {ViewGraph} */ (graph).nodes[i].name);
    return `${head} ${fmt(t("Its hubs: %(hubs)s. The question's answer is listed after the drawing."), { hubs: joinNames(names) })}`;
  }

  /** The SVG elements of a small graph (nothing for a large one: the canvas has it). */
  function buildBase() {
    if (!graph) return; // called once a graph is drawn
    layers.edges.selectAll("*").remove();
    layers.minutes.selectAll("*").remove();
    layers.nodes.selectAll("*").remove();
    for (const layer of [layers.tree, layers.marks, layers.path, layers.rings, layers.labels, layers.signs, layers.cuts]) layer.selectAll("*").remove();
    svg.attr("aria-hidden", graph.large ? "true" : null);
    svg.classed("is-overlay", graph.large);
    if (graph.large) return;
    layers.edges
      .selectAll("path")
      .data(graph.edges)
      .join("path")
      .attr("class", "gt-edge")
      .attr("marker-end", `url(#${uid}-arrow-base)`);
    const showMinutes = graph.weighted && graph.nodes.length <= 24;
    layers.minutes
      .selectAll("text")
      .data(showMinutes ? graph.edges : [])
      .join("text")
      .attr("class", "gt-minute")
      .attr("dy", "0.35em")
      .text((e) => num(/** @type {number} */ (e.minutes))); // a weighted graph's
    const nodes = layers.nodes
      .selectAll("g.gt-node")
      .data(graph.nodes)
      .join((enter) => {
        const g = enter.append("g").attr("class", "gt-node");
        g.append("circle").attr("class", "gt-node-focus");
        g.append("circle").attr("class", "gt-node-dot");
        g.append("line").attr("class", "gt-node-strike");
        g.append("text").attr("class", "gt-node-name");
        g.append("text").attr("class", "gt-node-tag");
        // a pin: its head and its needle (drawn: no emoji font needed)
        const pin = g.append("g").attr("class", "gt-node-pin");
        pin.append("line").attr("x1", 0).attr("y1", 0).attr("x2", -4).attr("y2", 7);
        pin.append("circle").attr("r", 4);
        return g;
      })
      .attr("data-node", (d) => d.name)
      .attr("role", "button")
      .attr("tabindex", (d) => (d.index === focusIndex ? 0 : -1))
      .attr("aria-haspopup", send ? "true" : null);
    sizeNodes();
    nodes
      .on("pointerdown", (event, d) => down(event, d.index))
      .on("pointermove", move)
      .on("pointerup", up)
      .on("pointercancel", cancel)
      .on("click", (event, d) => {
        if (suppressClick) return;
        openMenu(d.index);
      })
      .on("dblclick", (event, d) => {
        event.preventDefault();
        unpin(d.index);
      })
      .on("keydown", (event, d) => onKey(event, d.index))
      .on("focus", (event, d) => {
        focusIndex = d.index;
        layers.nodes.selectAll("g.gt-node").attr("tabindex", (n) => (n.index === focusIndex ? 0 : -1));
      });
  }

  /** What depends on the nodes' radius: circles, the strike, the name and its tag. */
  function sizeNodes() {
    if (!graph || graph.large) return;
    const nodes = layers.nodes.selectAll("g.gt-node");
    const tiny = graph.nodes.length <= 24;
    const inside = graph.kind === "airport" && tiny; // the code inside the circle
    if (tiny) rad.fill(radius);
    const r = (/** @type {GtNode} */ d) => rad[d.index];
    nodes.classed("is-old", (d) => !tiny && /** @type {Layout} */ (layout).nodes[d.index].tiny);
    nodes.select(".gt-node-focus").attr("r", (d) => r(d) + 6);
    nodes.select(".gt-node-dot").attr("r", r);
    nodes
      .select(".gt-node-strike")
      .attr("x1", (d) => -r(d) * 0.85)
      .attr("y1", (d) => r(d) * 0.85)
      .attr("x2", (d) => r(d) * 0.85)
      .attr("y2", (d) => -r(d) * 0.85);
    nodes
      .select(".gt-node-name")
      .attr("x", (d) => (tiny ? 0 : r(d) + 3))
      .attr("y", (d) => (inside ? 0 : tiny ? r(d) + 14 : 0))
      .attr("dy", "0.35em")
      .attr("text-anchor", tiny ? "middle" : "start")
      .style("font-size", () => (inside ? `${Math.round(radius * 0.72)}px` : null))
      .text((d) => d.name);
    nodes
      .select(".gt-node-tag")
      .attr("y", (d) => (inside ? r(d) + 13 : tiny ? r(d) + 30 : r(d) + 12))
      .attr("text-anchor", "middle")
      .attr("dy", "0.35em");
    nodes.select(".gt-node-pin").attr("transform", (d) => `translate(${r(d) * 0.75},${-r(d) * 0.85})`);
    layers.rings.selectAll("circle.gt-ring").attr("r", (d) => ringOf(d.name));
  }

  function drawClosed() {
    if (!graph || graph.large) return;
    layers.nodes
      .selectAll("g.gt-node")
      .classed("is-closed", (d) => closed.has(d.name))
      .attr("aria-label", (d) => nodeName(d));
    layers.nodes
      .selectAll(".gt-node-dot")
      .attr("fill", (d) => (closed.has(d.name) ? `url(#${uid}-hatch)` : null));
    layers.nodes.selectAll(".gt-node-tag").text((d) => (closed.has(d.name) ? t("closed") : ""));
    drawPins();
  }

  function drawPins() {
    if (!graph || graph.large) return;
    layers.nodes.selectAll("g.gt-node").classed("is-pinned", (d) => /** @type {Layout} */ (layout).pinned(d.index));
    layers.nodes.selectAll(".gt-node-pin").attr("display", (d) => (/** @type {Layout} */ (layout).pinned(d.index) ? null : "none"));
  }

  /**
   * A node's accessible name: its name, its edges, whether closed or pinned.
   * @param {GtNode} d
   */
  function nodeName(d) {
    if (!graph || !layout) return ""; // called once a graph is drawn
    const parts = [
      graph.kind === "service"
        ? fmt(tn("%(name)s: depends on %(out)s service, %(in)s depend on it", "%(name)s: depends on %(out)s services, %(in)s depend on it", d.out), {
            name: d.name,
            out: num(d.out),
            in: num(d.into),
          })
        : fmt(tn("%(name)s: %(out)s route out, %(in)s in", "%(name)s: %(out)s routes out, %(in)s in", d.out), {
            name: d.name,
            out: num(d.out),
            in: num(d.into),
          }),
    ];
    if (closed.has(d.name)) parts.push(t("closed"));
    if (layout.pinned(d.index)) parts.push(t("pinned"));
    return parts.join(", ");
  }

  /**
   * The radius of the ring around node `name` (a frontier).
   * @param {string} name
   */
  function ringOf(name) {
    const i = graph?.byName.get(name)?.index ?? -1;
    return i < 0 ? 0 : /** @type {ViewGraph} */ (graph).large ? 7 : rad[i] + 6; // found in it: there
  }

  // ---- size and places ----------------------------------------------------------------

  function resize() {
    if (!graph || !width || !height) return;
    const [w, h] = [Math.round(width * scale), Math.round(height * scale)];
    svg.attr("viewBox", `0 0 ${width} ${height}`).attr("width", w).attr("height", h);
    if (graph.large) {
      const dpr = window.devicePixelRatio || 1;
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      canvas.style.width = `${w}px`;
      canvas.style.height = `${h}px`;
    }
    fit = null;
    place();
  }

  /** Node positions on screen, from the layout and the fit; then everything placed. */
  function place() {
    if (!graph || !layout || !width || !height) return; // a layout with each graph
    if (!fit || (layout.large && !layout.settled() && !drag)) {
      const tiny = graph.nodes.length <= 24;
      // room for the largest circle and its name under it (a service's)
      const margin = graph.large ? 16 : tiny ? (graph.kind === "airport" ? 32 : 44) : 22;
      fit = fitOf(layout, width - (tiny || graph.large ? 0 : 40), height, { margin, most: tiny ? 2.2 : 6 });
      if (tiny) {
        // as large as the closest nodes leave room for (the layout keeps them 46 apart)
        const airport = graph.kind === "airport";
        const r = Math.max(airport ? 13 : 8, Math.min(airport ? 23 : 13, Math.round(fit.k * 46 * 0.46)));
        if (r !== radius) {
          radius = r;
          sizeNodes();
        }
      }
    }
    const n = graph.nodes.length;
    for (let i = 0; i < n; i += 1) {
      const [x, y] = fit.place(i);
      at[2 * i] = x;
      at[2 * i + 1] = y;
    }
    if (graph.large) paint();
    else placeBase();
    // a large graph's marks wait while it settles (hundreds of SVG paths moved in
    // every frame cost more than a frame has), and are placed once it has
    const settling = layout.large && !layout.settled();
    if (root.dataset.settling !== String(settling)) root.dataset.settling = String(settling);
    if (!settling) placeMarks();
    menu.follow();
  }

  function placeBase() {
    layers.edges.selectAll("path").attr("d", (e) => edgePath(e.source.index, e.target.index, e.bent).d);
    layers.minutes.selectAll("text").each(function (e) {
      const { mx, my, nx, ny } = edgePath(e.source.index, e.target.index, e.bent);
      // beside the line, on the side its bend goes (or above a straight one)
      const side = e.bent ? 11 : 10;
      d3.select(this)
        .attr("x", mx + nx * side)
        .attr("y", my + ny * side);
    });
    layers.nodes.selectAll("g.gt-node").attr("transform", (d) => `translate(${at[2 * d.index]},${at[2 * d.index + 1]})`);
  }

  /**
   * The line of an edge from node `a` to node `b` on screen, short of their circles;
   * bent to one side when the edge has a reverse (so the two differ).
   * @param {number} a
   * @param {number} b
   * @param {boolean} bent
   */
  function edgePath(a, b, bent) {
    const ra = rad[a];
    const rb = rad[b] + 2;
    const x1 = at[2 * a];
    const y1 = at[2 * a + 1];
    const x2 = at[2 * b];
    const y2 = at[2 * b + 1];
    const dx = x2 - x1;
    const dy = y2 - y1;
    const len = Math.hypot(dx, dy) || 1;
    const nx = dy / len;
    const ny = -dx / len;
    const bend = bent ? Math.min(26, len * 0.16) : 0;
    const cx = (x1 + x2) / 2 + nx * bend;
    const cy = (y1 + y2) / 2 + ny * bend;
    const la = Math.hypot(cx - x1, cy - y1) || 1;
    const lb = Math.hypot(x2 - cx, y2 - cy) || 1;
    const sx = x1 + ((cx - x1) / la) * ra;
    const sy = y1 + ((cy - y1) / la) * ra;
    const ex = x2 - ((x2 - cx) / lb) * rb;
    const ey = y2 - ((y2 - cy) / lb) * rb;
    const d = bent ? `M${sx},${sy}Q${cx},${cy} ${ex},${ey}` : `M${sx},${sy}L${ex},${ey}`;
    // the middle of the curve, and the normal on its bent side
    const mx = 0.25 * sx + 0.5 * cx + 0.25 * ex;
    const my = 0.25 * sy + 0.5 * cy + 0.25 * ey;
    return { d, mx, my, nx, ny, ex, ey, len };
  }

  /** The large graph, on the canvas: every edge in one path, the nodes, the hubs' names. */
  function paint() {
    if (!ctx || !graph || !layout) return; // place() paints a large graph it has laid out
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr * scale, 0, 0, dpr * scale, 0, 0);
    ctx.clearRect(0, 0, width, height);
    const many = graph.edges.length > 8000;
    // tens of thousands of faint lines cost a frame and more to stroke: while such a
    // graph settles only its nodes move, and its edges are drawn once it has settled
    // (docs/benchmarks.md, "graph-traversal's layout in the browser")
    if (!many || layout.settled() || drag) {
      ctx.beginPath();
      for (const e of graph.edges) {
        const a = e.source.index;
        const b = e.target.index;
        ctx.moveTo(at[2 * a], at[2 * a + 1]);
        ctx.lineTo(at[2 * b], at[2 * b + 1]);
      }
      ctx.lineWidth = many ? 0.5 : 0.7;
      ctx.strokeStyle = many ? "rgba(60, 70, 84, 0.06)" : "rgba(60, 70, 84, 0.13)";
      ctx.stroke();
    }
    ctx.beginPath();
    for (const node of graph.nodes) {
      if (hubs.has(node.index)) continue;
      const x = at[2 * node.index];
      const y = at[2 * node.index + 1];
      ctx.moveTo(x + 1.8, y);
      ctx.arc(x, y, 1.8, 0, 2 * Math.PI);
    }
    ctx.fillStyle = "#5f6775";
    ctx.fill();
    // closed airports: a ring and a cross
    ctx.beginPath();
    for (const name of closed) {
      const node = graph.byName.get(name);
      if (!node) continue;
      const x = at[2 * node.index];
      const y = at[2 * node.index + 1];
      ctx.moveTo(x + 7, y);
      ctx.arc(x, y, 7, 0, 2 * Math.PI);
      ctx.moveTo(x - 5, y - 5);
      ctx.lineTo(x + 5, y + 5);
      ctx.moveTo(x + 5, y - 5);
      ctx.lineTo(x - 5, y + 5);
    }
    ctx.lineWidth = 2;
    ctx.strokeStyle = "#a3161a";
    ctx.stroke();
    // the hubs: a larger dot and the name, on a white halo
    ctx.font = "700 13px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    ctx.lineJoin = "round";
    for (const i of hubs) {
      const x = at[2 * i];
      const y = at[2 * i + 1];
      ctx.beginPath();
      ctx.arc(x, y, 5, 0, 2 * Math.PI);
      ctx.fillStyle = "#1b1f24";
      ctx.fill();
      ctx.lineWidth = 4;
      ctx.strokeStyle = "rgba(255, 255, 255, 0.9)";
      ctx.strokeText(graph.nodes[i].name, x + 8, y);
      ctx.fillStyle = "#1b1f24";
      ctx.fillText(graph.nodes[i].name, x + 8, y);
    }
  }

  /** Run the large graph's settling (or a drag's heat) a few ticks a frame. */
  function run() {
    if (frame || !layout?.moving()) return;
    frame = requestAnimationFrame(step);
  }

  function step() {
    frame = 0;
    if (!layout) return;
    if (layout.inWorker()) {
      // the worker settles it: draw only when its positions have come
      if (layout.version !== drawnVersion) {
        drawnVersion = layout.version;
        place();
      }
    } else {
      layout.advance(layout.large ? FRAME_BUDGET_MS : 4);
      place();
    }
    root.dataset.settled = String(layout.settled() && !layout.moving());
    if (layout.moving()) frame = requestAnimationFrame(step);
  }

  // ---- the marks of a question ----------------------------------------------------------

  /**
   * Draw `next` (expansion.js's `marksOf`), new marks fading in over `fadeMs`.
   * @param {Marks | null} next
   * @param {number} [fadeMs]
   */
  function setMarks(next, fadeMs = 0) {
    marks = next;
    reveal = fadeMs;
    if (!graph) return;
    const large = graph.large;
    const key = (/** @type {{key: string}} */ m) => m.key;
    const idx = (/** @type {string} */ name) => /** @type {ViewGraph} */ (graph).byName.get(name)?.index ?? -1;
    const known = (/** @type {{from: string, to: string}} */ m) => idx(m.from) >= 0 && idx(m.to) >= 0;
    const drawn = (marks?.edges ?? []).filter(known);
    // the edges of depths gone by, and of the depth now (above them)
    for (const [layer, list] of /** @type {[typeof layers.tree, EdgeMark[]][]} */ ([
      [layers.tree, drawn.filter((m) => m.past)],
      [layers.marks, drawn.filter((m) => !m.past)],
    ])) {
      const joined = layer
        .selectAll("path.gt-mark")
        .data(/** @type {any[]} */ (list), key)
        .join((enter) =>
          enter
            .append("path")
            .attr("class", "gt-mark")
            .style("opacity", () => (reveal ? 0 : null)),
        )
        .attr("data-outcome", (m) => m.outcome)
        .attr("data-side", (m) => m.side)
        .attr("marker-end", (m) => (m.outcome === "seen" || m.past ? null : `url(#${uid}-arrow-${m.side === "end" && m.outcome === "grown" ? "end" : m.outcome})`));
      if (reveal) joined.transition().duration(reveal).style("opacity", null);
    }
    layers.path
      .selectAll("path.gt-answer")
      .data((marks?.path ?? []).filter(known), key)
      .join("path")
      .attr("class", "gt-answer")
      .attr("marker-end", `url(#${uid}-arrow-answer)`);
    layers.rings
      .selectAll("circle.gt-ring")
      .data((marks?.rings ?? []).filter((r) => idx(r.name) >= 0), (r) => `${r.side}:${r.name}`)
      .join((enter) =>
        enter
          .append("circle")
          .attr("class", "gt-ring")
          .style("opacity", () => (reveal ? 0 : null)),
      )
      .attr("data-side", (r) => r.side)
      .attr("data-node", (r) => r.name)
      .attr("r", (d) => ringOf(d.name))
      .transition()
      .duration(reveal)
      .style("opacity", null);
    // on the large graph: a dot on each node of the answer, and names for a few
    const named = new Set(large ? (marks?.named ?? []) : []);
    const dotted = large ? [...new Set([...(marks?.onPath ?? []), ...named])].filter((name) => idx(name) >= 0) : [];
    layers.labels
      .selectAll("g.gt-label")
      .data(dotted, (d) => d)
      .join((enter) => {
        const g = enter.append("g").attr("class", "gt-label");
        g.append("circle").attr("r", 3.5);
        g.append("text").attr("x", 7).attr("dy", "0.35em");
        return g;
      })
      .select("text")
      .text((d) => (named.has(d) ? d : ""));
    // signs: ✕ at a barred node, a failed edge's minutes, the depth a node was reached at
    layers.signs
      .selectAll("g.gt-sign")
      .data((marks?.signs ?? []).filter((s) => idx(s.name) >= 0 && (!s.to || idx(s.to) >= 0)), key)
      .join((enter) => {
        const g = enter.append("g").attr("class", "gt-sign").style("opacity", () => (reveal ? 0 : null));
        g.append("rect");
        g.append("text").attr("dy", "0.35em").attr("text-anchor", "middle");
        return g;
      })
      .attr("data-kind", (s) => s.kind)
      .attr("data-node", (s) => s.name)
      .each(function (s) {
        const g = d3.select(this);
        g.select("text").text(s.text);
      })
      .transition()
      .duration(reveal)
      .style("opacity", null);
    if (!large) {
      const on = new Set(marks?.onPath ?? []);
      const met = new Set(marks?.meets ?? []);
      layers.nodes
        .selectAll("g.gt-node")
        .classed("on-path", (d) => on.has(d.name))
        .classed("is-meeting", (d) => met.has(d.name))
        .classed("is-start", (d) => d.name === marks?.start);
    }
    placeMarks();
  }

  function placeMarks() {
    if (!graph || !marks) return;
    const large = graph.large;
    const idx = (/** @type {string} */ name) => /** @type {ViewGraph} */ (graph).byName.get(name)?.index ?? -1;
    const lineOf = (/** @type {{from: string, to: string}} */ m) => {
      const a = idx(m.from);
      const b = idx(m.to);
      const e = /** @type {ViewGraph} */ (graph).byEnds.get(`${m.from}>${m.to}`);
      return edgePath(a, b, !large && Boolean(e?.bent));
    };
    for (const layer of [layers.tree, layers.marks]) layer.selectAll("path.gt-mark").attr("d", (m) => lineOf(m).d);
    layers.path.selectAll("path.gt-answer").attr("d", (m) => lineOf(m).d);
    layers.rings
      .selectAll("circle.gt-ring")
      .attr("cx", (d) => at[2 * idx(d.name)])
      .attr("cy", (d) => at[2 * idx(d.name) + 1]);
    layers.labels.selectAll("g.gt-label").attr("transform", (d) => `translate(${at[2 * idx(d)]},${at[2 * idx(d) + 1]})`);
    layers.signs.selectAll("g.gt-sign").each(function (s) {
      let x = at[2 * idx(s.name)];
      let y = at[2 * idx(s.name) + 1];
      if (s.to) {
        // on the edge: its middle (a failed edge's minutes), or where it meets the barred node
        const line = lineOf({ from: s.name, to: s.to });
        if (s.kind === "avoided") {
          // just short of the barred node, on the edge that reached it
          const back = Math.min(10, line.len / 4);
          const ux = (line.ex - line.mx) / (Math.hypot(line.ex - line.mx, line.ey - line.my) || 1);
          const uy = (line.ey - line.my) / (Math.hypot(line.ex - line.mx, line.ey - line.my) || 1);
          x = line.ex - ux * back;
          y = line.ey - uy * back;
        } else {
          x = line.mx + line.nx * (large ? 8 : 12);
          y = line.my + line.ny * (large ? 8 : 12);
        }
      } else if (s.kind === "depth") {
        const r = rad[idx(s.name)];
        x += large ? 6 : r * 0.8 + 2;
        y -= large ? 8 : r * 0.9 + 2;
      }
      const g = d3.select(this).attr("transform", `translate(${x},${y})`);
      const text = /** @type {SVGTextElement} */ (g.select("text").node());
      const w = Math.max(14, text.getComputedTextLength() + 8);
      g.select("rect").attr("x", -w / 2).attr("y", -9).attr("width", w).attr("height", 18).attr("rx", 9);
    });
  }

  /**
   * The pairs a closure cuts, dashed between their ends (the small graph only).
   * @param {GtClosures | null} next
   */
  function setCuts(next) {
    cuts = next;
    if (!graph || graph.large) return;
    const idx = (/** @type {string} */ name) => /** @type {ViewGraph} */ (graph).byName.get(name)?.index ?? -1;
    const pairs = (cuts?.cut ?? []).filter(([a, b]) => idx(a) >= 0 && idx(b) >= 0);
    layers.cuts
      .selectAll("path")
      .data(pairs, (p) => p.join(">"))
      .join("path")
      .attr("class", "gt-cut");
    layers.nodes.selectAll("g.gt-node").classed("is-cutter", (d) => d.name === cuts?.node);
    placeCuts();
  }

  function placeCuts() {
    if (!graph || graph.large) return;
    const idx = (/** @type {string} */ name) => /** @type {ViewGraph} */ (graph).byName.get(name)?.index ?? -1;
    layers.cuts.selectAll("path").attr("d", ([a, b]) => {
      const i = idx(a);
      const j = idx(b);
      const x1 = at[2 * i];
      const y1 = at[2 * i + 1];
      const x2 = at[2 * j];
      const y2 = at[2 * j + 1];
      const len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const bend = len * 0.22;
      const cx = (x1 + x2) / 2 + ((y2 - y1) / len) * bend;
      const cy = (y1 + y2) / 2 - ((x2 - x1) / len) * bend;
      return `M${x1},${y1}Q${cx},${cy} ${x2},${y2}`;
    });
  }

  // ---- dragging, pinning, the menu ------------------------------------------------------

  /**
   * The pointer's place in the drawing.
   * @param {MouseEvent} event
   */
  function local(event) {
    const box = root.getBoundingClientRect();
    return [(event.clientX - box.left) / scale, (event.clientY - box.top) / scale];
  }

  /**
   * A press on node `index` (its element, or the canvas): a drag may start.
   * @param {PointerEvent} event
   * @param {number} index
   */
  function down(event, index) {
    if (event.button !== 0 || (event.pointerType === "touch" && /** @type {ViewGraph} */ (graph).large)) return;
    const target = /** @type {Element} */ (event.currentTarget); // the node's, or the canvas
    drag = { index, pointer: event.pointerId, x: event.clientX, y: event.clientY, moved: false, target };
    target.setPointerCapture?.(event.pointerId);
  }

  /** @param {PointerEvent} event */
  function move(event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    if (!drag.moved) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 4) return;
      drag.moved = true;
      menu.close(false);
      /** @type {Layout} */ (layout).heat(0.3); // a drag: a graph laid out and fitted
      root.classList.add("is-dragging");
    }
    event.preventDefault();
    const [x, y] = local(event);
    const [lx, ly] = /** @type {NonNullable<typeof fit>} */ (fit).back(Math.max(4, Math.min(width - 4, x)), Math.max(4, Math.min(height - 4, y)));
    /** @type {Layout} */ (layout).pin(drag.index, lx, ly);
    run();
  }

  /** @param {PointerEvent} event */
  function up(event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    const moved = drag.moved;
    end();
    if (moved) {
      suppressClick = true;
      setTimeout(() => (suppressClick = false), 0);
      drawClosed();
    }
  }

  function cancel() {
    end();
  }

  function end() {
    if (!drag) return;
    if (drag.target?.hasPointerCapture?.(drag.pointer)) drag.target.releasePointerCapture(drag.pointer);
    if (drag.moved) /** @type {Layout} */ (layout).cool();
    root.classList.remove("is-dragging");
    drag = null;
    run();
  }

  /** @param {number} index */
  function unpin(index) {
    if (!layout || !layout.pinned(index)) return; // no layout: nothing drawn, nothing pinned
    layout.unpin(index);
    layout.heat(0.1);
    layout.cool();
    drawClosed();
    run();
  }

  /**
   * The large graph: a node is dragged from the canvas (mouse or pen; a finger scrolls).
   * @param {MouseEvent} event
   */
  function nearest(event) {
    if (!graph) return -1; // called on a large graph's canvas
    const [x, y] = local(event);
    let best = -1;
    let bestD = 12 * 12;
    for (let i = 0; i < graph.nodes.length; i += 1) {
      const d = (at[2 * i] - x) ** 2 + (at[2 * i + 1] - y) ** 2;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    }
    return best;
  }
  canvas.addEventListener("pointerdown", (event) => {
    if (!graph?.large || event.pointerType === "touch") return;
    const i = nearest(event);
    if (i >= 0) down(event, i);
  });
  canvas.addEventListener("pointermove", move);
  canvas.addEventListener("pointerup", up);
  canvas.addEventListener("pointercancel", cancel);
  canvas.addEventListener("dblclick", (event) => {
    if (!graph?.large) return;
    const i = nearest(event);
    if (i >= 0) unpin(i);
  });

  /**
   * @param {KeyboardEvent} event
   * @param {number} index the node focused
   */
  function onKey(event, index) {
    if (!graph) return; // a node of the graph drawn has the focus
    const n = graph.nodes.length;
    /** @type {Record<string, number>} */
    const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (event.key in moves || event.key === "Home" || event.key === "End") {
      event.preventDefault();
      const next = event.key === "Home" ? 0 : event.key === "End" ? n - 1 : (index + moves[event.key] + n) % n;
      focusNode(next);
      return;
    }
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      openMenu(index);
    }
  }

  /** @param {number} index */
  function focusNode(index) {
    focusIndex = index;
    const el = layers.nodes.selectAll("g.gt-node").attr("tabindex", (d) => (d.index === index ? 0 : -1)).filter((d) => d.index === index).node();
    /** @type {SVGGElement | null} */ (el)?.focus();
  }

  /**
   * The small menu of node `index`: what can be asked from it, closing it, unpinning it.
   * @param {number} index
   */
  function openMenu(index) {
    if (!graph || !layout) return; // a node of the graph drawn was pressed
    const node = graph.nodes[index];
    const name = node.name;
    const items = [];
    if (send) {
      if (graph.kind === "service") {
        items.push({
          label: fmt(t("What %(name)s depends on"), { name }),
          act: () => send("ask", { start: name, end: "", depth: 3, avoid: "", shortest: false }),
        });
        items.push({
          label: fmt(t("What stops if %(name)s stops"), { name }),
          act: () => send("run", { pattern: `MATCH (:Service {name: '${name}'})<-[:DEPENDS_ON*1..]-(d:Service) RETURN DISTINCT d.name` }),
        });
      } else {
        items.push({
          label: fmt(t("Everything within 3 edges of %(name)s"), { name }),
          act: () => send("ask", { start: name, end: "", depth: 3, avoid: "", shortest: false }),
        });
        items.push(
          closed.has(name)
            ? { label: t("Reopen every airport"), act: () => send("reopen_all", {}) }
            : { label: fmt(t("Close %(name)s"), { name }), act: () => send("close_airport", { code: name }) },
        );
      }
    }
    if (layout.pinned(index)) items.push({ label: fmt(t("Unpin %(name)s"), { name }), act: () => unpin(index) });
    if (!items.length) return;
    const opener = /** @type {HTMLElement | null} */ (layers.nodes.selectAll("g.gt-node").filter((d) => d.index === index).node());
    menu.open({
      title: name,
      items,
      // the menu is laid out in CSS pixels, over the drawing
      where: () => [at[2 * index] * scale, (at[2 * index + 1] + rad[index] + 4) * scale],
      opener,
      size: () => [width * scale, height * scale],
    });
  }

  return {
    element: root,
    setGraph,
    setMarks,
    setCuts,
    /** "small" (the course's graphs), "medium" (grown) or "large" (on a canvas). */
    size() {
      return root.dataset.size ?? "small";
    },
    /**
     * Minutes of an edge, in words, when the graph has them.
     * @param {string} from
     * @param {string} to
     */
    minutesOf(from, to) {
      const e = graph?.byEnds.get(`${from}>${to}`);
      return e && /** @type {ViewGraph} */ (graph).weighted && e.minutes != null ? minutesText(e.minutes) : "";
    },
    destroy() {
      if (frame) cancelAnimationFrame(frame);
      frame = 0;
      observer.disconnect();
      menu.destroy();
      svg.selectAll("*").interrupt();
      root.remove();
      graph = layout = null;
    },
  };
}

/**
 * Arrowheads for each kind of line, and the hatching of a closed node.
 * @param {d3.Selection<SVGDefsElement, unknown, null, undefined>} defs
 * @param {string} uid the view's, in the ids
 */
function makeDefs(defs, uid) {
  const sizes = { base: 10, grown: 12, found: 15, met: 15, end: 12, reused: 12, avoided: 12, failed: 12, answer: 17 };
  for (const [kind, size] of Object.entries(sizes)) {
    defs
      .append("marker")
      .attr("id", `${uid}-arrow-${kind}`)
      .attr("class", `gt-arrow gt-arrow-${kind}`)
      .attr("viewBox", "0 0 10 10")
      .attr("refX", 8)
      .attr("refY", 5)
      .attr("markerWidth", size)
      .attr("markerHeight", size)
      .attr("markerUnits", "userSpaceOnUse")
      .attr("orient", "auto")
      .append("path")
      .attr("d", "M0,1 L9,5 L0,9 z");
  }
  const hatch = defs
    .append("pattern")
    .attr("id", `${uid}-hatch`)
    .attr("class", "gt-hatch")
    .attr("width", 6)
    .attr("height", 6)
    .attr("patternUnits", "userSpaceOnUse")
    .attr("patternTransform", "rotate(45)");
  hatch.append("rect").attr("width", 6).attr("height", 6).attr("class", "gt-hatch-bg");
  hatch.append("line").attr("x1", 0).attr("y1", 0).attr("x2", 0).attr("y2", 6).attr("class", "gt-hatch-line");
}
