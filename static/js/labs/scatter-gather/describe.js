/** What a scatter-gather frame's events mean, in sentences for the live region and log. */

import { fmt, num, t } from "../../i18n.js";
import { ms } from "./cluster.js";

/** @import { LabEvent } from "../../types.js" */
/** @import { MeasuredPoint } from "./types.js" */

/** @typedef {(e: LabEvent) => string | null} Sentence an event in words (null: nothing to say) */

/**
 * @param {LabEvent[]} events
 * @returns {string[]}
 */
export function describeEvents(events) {
  const out = [];
  for (const e of events) {
    const said = SENTENCES[e.type]?.(e);
    if (said) out.push(said);
  }
  return out;
}

/** @type {Record<string, Sentence>} by event type */
const SENTENCES = {
  query: (e) => QUERIES[e.kind]?.(e) ?? null,
  shards_set: (e) => fmt(t("%(n)s shards now sit behind the router."), { n: num(e.count) }),
  shard_slowed: (e) =>
    e.factor > 1
      ? fmt(t("Shard %(shard)s answers %(factor)s times slower."), { shard: e.shard, factor: num(e.factor) })
      : fmt(t("Shard %(shard)s answers at the normal speed again."), { shard: e.shard }),
  flight_written: (e) =>
    fmt(t("Flight %(number)s (%(origin)s to %(destination)s) written to shard %(shard)s and its local index; the global index gets it one operation later."), {
      number: e.flight.number,
      origin: e.flight.origin,
      destination: e.flight.destination,
      shard: e.shard,
    }),
  global_index_written: (e) =>
    fmt(t("The global index now holds flight %(ids)s."), { ids: e.flight_ids.map((/** @type {number} */ id) => num(id)).join(", ") }),
  measured: (e) => {
    const points = /** @type {MeasuredPoint[]} */ (e.points).filter((p) => p.on_ladder);
    const first = points[0];
    const last = points[points.length - 1];
    return fmt(t("%(count)s simulated queries at each N: the p99 of the gathered answer went from %(one)s with 1 shard to %(many)s with %(n)s (theory: %(a1)s and %(an)s)."), {
      count: num(e.count),
      one: ms(first.p99_us),
      many: ms(last.p99_us),
      n: num(last.shards),
      a1: ms(first.analytic_p99_us),
      an: ms(last.analytic_p99_us),
    });
  },
};

/** @type {Record<string, Sentence>} a query's event, by its kind */
const QUERIES = {
  by_key: (e) =>
    fmt(t("Flight %(id)s by its key: the router asked shard %(shard)s only, one index lookup, one answer after %(time)s."), {
      id: num(e.flight_id),
      shard: e.slowest,
      time: ms(e.latency_us),
    }),
  scatter: (e) =>
    fmt(t("No shard key: the router asked all %(n)s shards and merged %(rows)s rows when the slowest, shard %(slowest)s, answered after %(time)s."), {
      n: num(e.shards_asked),
      rows: num(e.rows),
      slowest: e.slowest,
      time: ms(e.latency_us),
    }),
  board: (e) =>
    e.shards_asked === 1
      ? fmt(t("The %(airport)s board placed by (origin, departure_time): one range on shard %(shard)s, answered after %(time)s."), {
          airport: e.airport,
          shard: e.slowest,
          time: ms(e.latency_us),
        })
      : fmt(t("The %(airport)s board placed by flight_id: every one of the %(n)s shards asked, answered after %(time)s."), {
          airport: e.airport,
          n: num(e.shards_asked),
          time: ms(e.latency_us),
        }),
  aircraft_history: (e) =>
    e.shards_asked === 1
      ? fmt(t("%(aircraft)s's last hour: one range on shard %(shard)s, %(rows)s reports."), {
          aircraft: e.aircraft,
          shard: e.slowest,
          rows: num(e.rows),
        })
      : fmt(t("%(aircraft)s's last hour, reports placed by id: all %(n)s shards asked for %(rows)s reports."), {
          aircraft: e.aircraft,
          n: num(e.shards_asked),
          rows: num(e.rows),
        }),
  index: (e) => {
    const head =
      e.index === "global"
        ? fmt(t("The global index on %(column)s: one index shard asked, %(rows)s flights found."), { column: e.column, rows: num(e.rows) })
        : fmt(t("The local indexes on %(column)s: all %(n)s shards asked, %(rows)s flights found."), {
            column: e.column,
            n: num(e.shards_asked),
            rows: num(e.rows),
          });
    if (!e.missed?.length) return head;
    return `${head} ${fmt(t("It missed flight %(ids)s, written a moment ago."), { ids: e.missed.map((/** @type {number} */ id) => num(id)).join(", ") })}`;
  },
};
