/**
 * The force simulation of a graph's layout, built from a plain description (`spec`) and
 * the d3 it is given: the same code on the page's thread (layout.js) and in the layout
 * worker (layout-worker.js), so both settle a graph to the same positions, number for
 * number. It imports nothing: a worker has no import map, so d3 comes as an argument.
 *
 * `spec` (structured-clonable, made by layout.js's `specOf`):
 *   n        the node count
 *   links    Int32Array, two node numbers per spring (each pair once, whichever way)
 *   kinds    Uint8Array, per node: 0 a tiny part's (the course's graphs), 1 medium, 2 large
 *   anchors  Float64Array, per node: the x its part is pulled towards
 *   seed     the fraction `d3.randomLcg` starts from
 *   ticks    the ticks of the first settling
 */

/**
 * The forces by the size of a node's connected part: the course's small graphs spread
 * wide (their names inside their circles), a part of up to 150 nodes closer, a large one
 * closest. `spacing` places the parts in a row (layout.js).
 */
export const FORCES = [
  { link: 120, charge: -900, collide: 46, fx: 0.02, fy: 0.14, spacing: 60 },
  { link: 40, charge: -120, collide: 14, fx: 0.08, fy: 0.2, spacing: 24 },
  { link: 22, charge: -30, collide: 0, fx: 0.04, fy: 0.09, spacing: 11 },
];
/** Graphs up to this many nodes are drawn in SVG, node by node; larger ones on a canvas. */
export const SVG_MOST = 150;
const TINY_MOST = 24; // a graph this small is drawn as the course's graphs are
const COARSE_FROM = 1000; // past this many nodes the charge is coarser and half as often

/**
 * `force` applied every other tick with twice the alpha when `halve` (the same push over
 * two ticks, for half the work), else `force` itself. `atTick(k)` says how many ticks
 * have run, so a simulation taken over from another thread keeps the beat.
 * @param {any} force
 * @param {boolean} halve
 */
function everyOther(force, halve) {
  let skip = false;
  /** @param {number} alpha */
  const halved = (alpha) => {
    if (!halve) {
      force(alpha);
      return;
    }
    skip = !skip;
    if (!skip) force(alpha * 2);
  };
  halved.initialize = (/** @type {any[]} */ nodes, /** @type {() => number} */ random) => force.initialize(nodes, random);
  /** @param {number} ticks */
  halved.atTick = (ticks) => {
    skip = ticks % 2 === 1;
  };
  return halved;
}

/**
 * The simulation `spec` describes, stopped (its ticks are run by the caller), with its
 * nodes (`{index}` each, in the spec's order) and its charge (for `atTick`).
 * @param {any} d3
 * @param {any} spec
 */
export function simulationOf(d3, spec) {
  const { n, links: pairs, kinds, anchors } = spec;
  const nodes = Array.from({ length: n }, (_, index) => ({ index }));
  const links = [];
  for (let i = 0; i < pairs.length; i += 2) links.push({ source: pairs[i], target: pairs[i + 1] });
  const forces = (/** @type {number} */ i) => FORCES[kinds[i]];
  const tiny = n <= TINY_MOST;
  const coarse = n > COARSE_FROM;
  const charge = everyOther(
    d3
      .forceManyBody()
      .strength((/** @type {any} */ d) => forces(d.index).charge)
      // past 1,000 nodes the charge is most of a tick: coarser (Barnes–Hut theta),
      // shorter-ranged, and half as often, twice as strong (docs/benchmarks.md,
      // "graph-traversal")
      .theta(coarse ? 1.5 : 0.9)
      .distanceMax(tiny ? Infinity : coarse ? 200 : 500),
    coarse,
  );
  const sim = d3
    .forceSimulation(nodes)
    .stop()
    .randomSource(d3.randomLcg(spec.seed))
    .alphaDecay(1 - Math.pow(0.001, 1 / spec.ticks))
    .force(
      "link",
      d3
        .forceLink(links)
        .distance((/** @type {any} */ l) => forces(typeof l.source === "number" ? l.source : l.source.index).link)
        .iterations(tiny ? 2 : 1),
    )
    .force("charge", charge)
    // pulled harder up and down than sideways: a layout wider than tall, as a laptop's
    // stage or a projector is (a phone turns it a quarter: layout.js's `fitOf`)
    .force("x", d3.forceX((/** @type {any} */ d) => anchors[d.index]).strength((/** @type {any} */ d) => forces(d.index).fx))
    .force("y", d3.forceY(0).strength((/** @type {any} */ d) => forces(d.index).fy));
  if (n <= SVG_MOST) sim.force("collide", d3.forceCollide((/** @type {any} */ d) => forces(d.index).collide));
  return { sim, nodes, charge };
}
