/**
 * The token or partition ticks around a card's circle. Ticks that appear fade in, and
 * ticks that go fade out, each set as one group: a change to a ring of twelve shards
 * fades 176 new tokens with one opacity a frame, not 176.
 */

import d3 from "d3";
import { BAND_INNER, BAND_OUTER, TICK_OUTER, polar } from "./geometry.js";
import { ticksOf } from "./schemes.js";

/** @import { Group, HashSnapshot, Scheme } from "./types.js" */

/**
 * Ticks of `scheme` drawn into the d3 group `layer`; returns {draw}.
 * @param {Group} layer
 * @param {Scheme} scheme
 */
export function createTicks(layer, scheme) {
  const ticks = layer.append("g").attr("class", "ticks");
  const incoming = layer.append("g").attr("class", "ticks ticks-incoming");
  const outgoing = layer.append("g").attr("class", "ticks ticks-outgoing");

  /** Finish a fade still running: new ticks join the rest, old ones are gone. */
  function settle() {
    incoming.interrupt("table").style("opacity", null);
    outgoing.interrupt("table").style("opacity", null);
    // (the groups' nodes are there: createTicks appended them)
    for (const node of [.../** @type {SVGGElement} */ (incoming.node()).childNodes]) {
      /** @type {SVGGElement} */ (ticks.node()).append(node);
    }
    outgoing.selectAll("*").remove();
  }

  /**
   * Show the ticks of `snapshot`, fading the difference in `ms` after `delay`.
   * @param {HashSnapshot} snapshot
   * @param {number} delay
   * @param {number} ms
   */
  function draw(snapshot, delay, ms) {
    settle();
    const sel = ticks.selectAll("line").data(ticksOf(scheme, snapshot), (d) => d.id);
    sel.exit().each(function leave() {
      /** @type {SVGGElement} */ (outgoing.node()).append(/** @type {SVGLineElement} */ (this));
    });
    incoming
      .selectAll("line")
      .data(sel.enter().data(), (d) => d.id)
      .join("line")
      .each(function place(d) {
        const inner = polar(d.fraction, d.shard ? BAND_INNER - 2 : BAND_INNER);
        const outer = polar(d.fraction, d.shard ? TICK_OUTER : BAND_OUTER);
        d3.select(this)
          .attr("x1", inner.x)
          .attr("y1", inner.y)
          .attr("x2", outer.x)
          .attr("y2", outer.y);
      })
      .attr("class", (d) => (d.shard ? "token" : "boundary"));
    fade(incoming, 0, 1, delay, ms);
    fade(outgoing, 1, 0, delay, ms);
  }

  /**
   * Fade `group` from one opacity to another, then settle.
   * @param {Group} group
   * @param {number} from
   * @param {number} to
   * @param {number} delay
   * @param {number} ms
   */
  function fade(group, from, to, delay, ms) {
    if (!(/** @type {SVGGElement} */ (group.node()).firstChild)) return;
    group
      .style("opacity", from)
      .transition("table")
      .delay(delay)
      .duration(ms)
      .style("opacity", to)
      .on("end", settle);
  }

  return { draw };
}
