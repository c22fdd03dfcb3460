/**
 * The layout worker: a large graph's first settling, off the page's thread. One tick of
 * the charge force over 4,000 nodes takes longer than a frame; here it takes what it
 * takes while the page keeps drawing (docs/benchmarks.md, "graph-traversal's layout in
 * the browser").
 *
 * Asked once, with `{d3Url, spec}` (forces.js's `spec`; the worker has no import map, so
 * the page says where d3 is). It builds the same simulation as the page would and runs
 * `spec.ticks` ticks, posting the state now and then and at the end:
 *   {ticks, alpha, state}  state: Float64Array, x, y, vx, vy per node (transferred)
 * An error (d3 not loading) is posted as `{error}`; the page then settles the graph
 * itself from the last state it had.
 */

import { simulationOf } from "./forces.js";

const POST_MS = 12; // the state goes to the page at most this often (and at the end)

const scope = /** @type {any} */ (globalThis);

scope.onmessage = async (/** @type {MessageEvent} */ event) => {
  const { d3Url, spec } = event.data;
  let d3;
  try {
    d3 = (await import(d3Url)).default;
  } catch (error) {
    scope.postMessage({ error: String(error) });
    return;
  }
  const { sim, nodes } = simulationOf(d3, spec);
  const post = (/** @type {number} */ ticks) => {
    const state = new Float64Array(nodes.length * 4);
    nodes.forEach((/** @type {any} */ node, i) => {
      state[4 * i] = node.x;
      state[4 * i + 1] = node.y;
      state[4 * i + 2] = node.vx;
      state[4 * i + 3] = node.vy;
    });
    scope.postMessage({ ticks, alpha: sim.alpha(), state }, [state.buffer]);
  };
  let last = performance.now();
  for (let ticks = 1; ticks <= spec.ticks; ticks += 1) {
    sim.tick();
    const now = performance.now();
    if (ticks === spec.ticks || now - last >= POST_MS) {
      post(ticks);
      last = now;
    }
  }
};
