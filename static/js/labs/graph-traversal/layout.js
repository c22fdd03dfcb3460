/**
 * The graph as the snapshot packs it (names by spaces, edges as `a,b,minutes` by node
 * number), and its layout: d3-force, seeded, so every browser in a class draws the same
 * picture. The simulation's random source is `d3.randomLcg` from the lab's seed, its
 * nodes are in the snapshot's order (sorted by name) and it runs a fixed number of ticks
 * (never "until a time"): the result does not depend on the frame rate. A small graph
 * settles at once, before it is first drawn. A large one settles in a worker
 * (layout-worker.js) while the page draws its positions as they arrive; where there is
 * no worker, or a drag interrupts it, the page's thread runs the rest a few ticks per
 * animation frame (`advance`). The simulation is one (forces.js), and so are the ticks:
 * the settled picture is the same either way.
 *
 * Layouts are kept for the page's life (a seek or a reconnect mounts a fresh renderer,
 * which finds the graph laid out already), and so are the nodes a visitor pinned by
 * dragging them: pins are this browser's own.
 */

import d3 from "d3";
import { FORCES, SVG_MOST, simulationOf } from "./forces.js";

/** @import { GtEdge, GtGraphData, GtLayoutNode, GtNode } from "./types.js" */

/** @typedef {ReturnType<typeof parseGraph>} ParsedGraph the snapshot's graph, parsed */
/** @typedef {ReturnType<typeof makeLayout>} Layout */

export { SVG_MOST };
const TICKS = 300; // ticks to settle: alpha from 1 to d3's alphaMin (0.001)
const KEPT = 4; // layouts kept at once (the lab has six graphs; the big ones are heavy)
const STRETCH = 1.4; // a layout may be drawn this much wider than tall (or taller than wide)

/** @type {Map<string, Layout>} layouts by seed and graph */
const layouts = new Map();

/**
 * The graph of a snapshot, parsed.
 * @param {GtGraphData} g the snapshot's `graph`
 */
export function parseGraph(g) {
  const names = g.nodes ? String(g.nodes).split(" ") : [];
  /** @type {GtNode[]} */
  const nodes = names.map((name, index) => ({ name, index, out: 0, into: 0 }));
  /** @type {Map<string, GtNode>} */
  const byName = new Map(nodes.map((n) => [n.name, n]));
  /** @type {Map<string, GtEdge>} "a>b" by name → edge */
  const byEnds = new Map();
  /** @type {GtEdge[]} */
  const edges = [];
  // each node's destinations, `width` base-36 digits each; minutes 2 digits each
  // (docs/protocol.md, graph-traversal's snapshot)
  const width = Number(g.width) || 1;
  const lists = g.edges ? String(g.edges).split(" ") : [];
  const minutes = g.minutes ? String(g.minutes).split(" ") : null;
  lists.forEach((list, a) => {
    for (let i = 0; i * width < list.length; i += 1) {
      const b = parseInt(list.slice(i * width, (i + 1) * width), 36);
      const m = minutes ? parseInt(minutes[a].slice(i * 2, i * 2 + 2), 36) : null;
      const edge = { source: nodes[a], target: nodes[b], minutes: m, id: edges.length, bent: false };
      nodes[a].out += 1;
      nodes[b].into += 1;
      edges.push(edge);
      byEnds.set(`${nodes[a].name}>${nodes[b].name}`, edge);
    }
  });
  for (const edge of edges) edge.bent = byEnds.has(`${edge.target.name}>${edge.source.name}`);
  return { ...g, names, nodes, byName, byEnds, edges, large: nodes.length > SVG_MOST };
}

/**
 * The seed as the fraction `d3.randomLcg` starts from.
 * @param {number} seed
 */
function seedFraction(seed) {
  // a few rounds of an integer hash: nearby seeds give far apart fractions
  let x = (Number(seed) | 0) ^ 0x9e3779b9;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  x ^= x >>> 16;
  return (x >>> 0) / 4294967296;
}

/**
 * The layout of `graph` for the lab's seed: made once, kept.
 * @param {ParsedGraph} graph
 * @param {number} seed the snapshot's `layout_seed`
 */
export function layoutOf(graph, seed) {
  const key = `${seed}|${graph.which}|${graph.grown}|${graph.node_count}|${graph.edge_count}`;
  let layout = layouts.get(key);
  if (layout) {
    layouts.delete(key); // most recently used last
    layouts.set(key, layout);
    return layout;
  }
  layout = makeLayout(graph, seed);
  layouts.set(key, layout);
  for (const old of [...layouts.keys()].slice(0, Math.max(0, layouts.size - KEPT))) {
    /** @type {Layout} */ (layouts.get(old)).dispose(); // a key of the map: there
    layouts.delete(old);
  }
  return layout;
}

const TINY_MOST = 24; // a part this small is drawn as the course's graphs are
const OWN_PLACE = 5; // a part of at least this many nodes gets its own place in the row

/**
 * Each node's connected part (edges taken both ways), numbered by their first node.
 * @param {ParsedGraph} graph
 */
function partsOf(graph) {
  const n = graph.nodes.length;
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (/** @type {number} */ i) => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  for (const edge of graph.edges) {
    const a = find(edge.source.index);
    const b = find(edge.target.index);
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  }
  const part = new Int32Array(n);
  /** @type {number[]} */
  const sizes = [];
  /** @type {Map<number, number>} */
  const numbers = new Map();
  for (let i = 0; i < n; i += 1) {
    const root = find(i);
    let k = numbers.get(root);
    if (k === undefined) {
      k = sizes.length;
      numbers.set(root, k);
      sizes.push(0);
    }
    part[i] = k;
    sizes[k] += 1;
  }
  return { part, sizes };
}

/**
 * The simulation's description (forces.js's `spec`). Each connected part is laid out as
 * its size asks (`FORCES`), around its own place in a row: a grown graph is its old part
 * beside a new one no edge joins, and the old part looks as it did before it grew.
 * @param {ParsedGraph} graph
 * @param {number} seed the snapshot's `layout_seed`
 */
export function specOf(graph, seed) {
  const n = graph.nodes.length;
  const { part, sizes } = partsOf(graph);
  const kindOf = (/** @type {number} */ size) => (size <= TINY_MOST ? 0 : size <= SVG_MOST ? 1 : 2);
  // each part's place in a row (the small leftovers go with the largest part)
  const largest = sizes.indexOf(Math.max(...sizes));
  const place = new Float64Array(sizes.length);
  let x = 0;
  let last = 0;
  sizes.forEach((size, k) => {
    if (size < OWN_PLACE) return;
    const r = FORCES[kindOf(size)].spacing * Math.sqrt(size);
    x = last ? x + last + r + 40 : 0;
    place[k] = x;
    last = r;
  });
  const middle = x / 2;
  sizes.forEach((size, k) => {
    place[k] = size < OWN_PLACE ? place[largest] - middle : place[k] - middle;
  });
  const kinds = new Uint8Array(n);
  const anchors = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    kinds[i] = kindOf(sizes[part[i]]);
    anchors[i] = place[part[i]];
  }
  // one spring per pair of nodes, whichever way its edges go
  /** @type {Set<number>} */
  const seen = new Set();
  /** @type {number[]} */
  const links = [];
  for (const edge of graph.edges) {
    const a = Math.min(edge.source.index, edge.target.index);
    const b = Math.max(edge.source.index, edge.target.index);
    if (a === b || seen.has(a * n + b)) continue;
    seen.add(a * n + b);
    links.push(a, b);
  }
  return { n, links: Int32Array.from(links), kinds, anchors, seed: seedFraction(seed), ticks: TICKS };
}

/** Where the vendored d3 is, for the worker (which has no import map), or null. */
function d3Url() {
  try {
    return import.meta.resolve("d3");
  } catch {
    return null;
  }
}

/**
 * A new layout of `graph` (`layoutOf` keeps them). A large graph's first settling runs in
 * a worker (layout-worker.js) when `worker` and the browser has workers: the page copies
 * its positions as they come. A drag during it, or a worker that fails, hands the rest
 * to the page's thread, from the state last received. Either way the settled positions
 * are the same: one simulation (forces.js), the same ticks.
 * @param {ParsedGraph} graph
 * @param {number} seed
 * @param {{worker?: boolean}} [options]
 */
export function makeLayout(graph, seed, { worker = true } = {}) {
  const spec = specOf(graph, seed);
  const { sim, nodes: simNodes, charge } = simulationOf(d3, spec);
  const nodes = /** @type {GtLayoutNode[]} */ (simNodes); // given their name and tiny here
  for (const node of nodes) {
    node.name = graph.nodes[node.index].name;
    node.tiny = spec.kinds[node.index] === 0;
  }
  /** @type {Worker | null} */
  let helper = null;

  /**
   * A state of the same simulation, `ticks` into its settling (the worker's), copied
   * into the page's: positions, velocities, alpha and the charge's beat.
   * @param {{ticks: number, alpha: number, state: Float64Array}} data
   */
  function receive(data) {
    const { state } = data;
    for (let i = 0; i < nodes.length; i += 1) {
      const node = nodes[i];
      node.x = state[4 * i];
      node.y = state[4 * i + 1];
      node.vx = state[4 * i + 2];
      node.vy = state[4 * i + 3];
    }
    sim.alpha(data.alpha);
    layout.ticks = data.ticks;
    charge.atTick(data.ticks);
    layout.version += 1;
    if (layout.settled()) stopHelper();
  }

  function stopHelper() {
    helper?.terminate();
    helper = null;
  }

  const layout = {
    nodes,
    sim,
    ticks: 0, // ticks run towards the first settling
    version: 0, // states received from the worker
    large: graph.nodes.length > SVG_MOST,
    /** Whether the first settling runs in a worker now. */
    inWorker() {
      return helper !== null;
    },
    /** Whether the first settling is done (pins and drags heat it up again later). */
    settled() {
      return layout.ticks >= TICKS;
    },
    /** Whether the simulation still moves (settling, or heated by a drag). */
    moving() {
      return !layout.settled() || sim.alpha() >= sim.alphaMin() || sim.alphaTarget() > 0;
    },
    /**
     * Run ticks for at most `budgetMs` (at least one): the first settling's fixed count
     * (unless the worker runs it), then whatever a drag heated.
     * @param {number} budgetMs
     */
    advance(budgetMs) {
      if (helper) return;
      const start = performance.now();
      do {
        if (!layout.settled()) {
          sim.tick();
          layout.ticks += 1;
        } else if (sim.alpha() >= sim.alphaMin() || sim.alphaTarget() > 0) {
          sim.tick();
        } else {
          return;
        }
      } while (performance.now() - start < budgetMs);
    },
    /** Settle now, all of it (a small graph, before it is drawn). */
    settle() {
      stopHelper();
      while (!layout.settled()) {
        sim.tick();
        layout.ticks += 1;
      }
    },
    /** Heat the simulation up (a drag starts): it moves again until it cools. */
    heat(target = 0.3) {
      stopHelper();
      sim.alphaTarget(target);
      if (sim.alpha() < target) sim.alpha(target);
    },
    cool() {
      sim.alphaTarget(0);
    },
    /**
     * Pin node `i` where it is dropped (layout coordinates).
     * @param {number} i
     * @param {number} x
     * @param {number} y
     */
    pin(i, x, y) {
      stopHelper();
      nodes[i].fx = x;
      nodes[i].fy = y;
    },
    /** @param {number} i */
    unpin(i) {
      stopHelper();
      nodes[i].fx = null;
      nodes[i].fy = null;
    },
    /** @param {number} i */
    pinned(i) {
      return nodes[i].fx !== null && nodes[i].fx !== undefined;
    },
    adopt: receive,
    /** Stop the worker, if it runs (the layout is dropped). */
    dispose() {
      stopHelper();
    },
  };

  const url = worker && layout.large && typeof Worker === "function" ? d3Url() : null;
  if (url) {
    try {
      helper = new Worker(new URL("./layout-worker.js", import.meta.url), { type: "module", name: "graph layout" });
      helper.onmessage = (event) => {
        if (event.data.error) stopHelper();
        else receive(event.data);
      };
      helper.onerror = () => stopHelper();
      helper.postMessage({ d3Url: url, spec });
    } catch {
      helper = null; // the page settles it
    }
  }
  return layout;
}

/**
 * Where the layout goes in a box `width` × `height` (pixels): scaled to fit with a
 * margin, turned a quarter when the box is tall and the layout wide (a phone), or the
 * other way round, and stretched at most `STRETCH` times more one way than the other
 * to use a box of another shape. `place(i)` → [x, y]; `back(x, y)` → layout
 * coordinates; `k` the smaller scale.
 * @param {{nodes: GtLayoutNode[]}} layout
 * @param {number} width
 * @param {number} height
 * @param {{margin: number, most: number}} options `most`: the largest scale
 */
export function fitOf(layout, width, height, { margin, most }) {
  let x0 = Infinity;
  let x1 = -Infinity;
  let y0 = Infinity;
  let y1 = -Infinity;
  for (const node of layout.nodes) {
    if (node.x < x0) x0 = node.x;
    if (node.x > x1) x1 = node.x;
    if (node.y < y0) y0 = node.y;
    if (node.y > y1) y1 = node.y;
  }
  if (!Number.isFinite(x0)) x0 = x1 = y0 = y1 = 0;
  const w = Math.max(1, x1 - x0);
  const h = Math.max(1, y1 - y0);
  // a quarter turn when the box and the layout lie different ways, markedly
  const turn = (width / height > 1.15 && h / w > 1.3) || (height / width > 1.15 && w / h > 1.3);
  const [lw, lh] = turn ? [h, w] : [w, h];
  // the scales across and down the box
  let ka = Math.min(most, Math.max(0.01, (width - 2 * margin) / lw));
  let kd = Math.min(most, Math.max(0.01, (height - 2 * margin) / lh));
  const k = Math.min(ka, kd);
  ka = Math.min(ka, k * STRETCH);
  kd = Math.min(kd, k * STRETCH);
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  return {
    k,
    turn,
    /**
     * @param {number} i
     * @returns {[number, number]}
     */
    place(i) {
      const node = layout.nodes[i];
      const dx = node.x - cx;
      const dy = node.y - cy;
      return turn ? [width / 2 - dy * ka, height / 2 + dx * kd] : [width / 2 + dx * ka, height / 2 + dy * kd];
    },
    /**
     * @param {number} x
     * @param {number} y
     * @returns {[number, number]}
     */
    back(x, y) {
      const dx = x - width / 2;
      const dy = y - height / 2;
      return turn ? [cx + dy / kd, cy - dx / ka] : [cx + dx / ka, cy + dy / kd];
    },
  };
}
