/** What a range-splits frame's events mean, in sentences for the live region and log. */

import { decimal, fmt, num, percent, t, tn } from "../../i18n.js";

/** @import { LabEvent } from "../../types.js" */
/** @import { Policy } from "./types.js" */

/**
 * A stream's keys in words, plural by count.
 * @param {string} kind the stream's kind (streams.py)
 * @param {number} count
 */
function kindWords(kind, count) {
  /** @type {Record<string, string>} */
  const words = {
    uniform: tn("passenger id", "passenger ids", count),
    timestamps: tn("timestamp", "timestamps", count),
    skewed: tn("aircraft registration", "aircraft registrations", count),
  };
  return words[kind] ?? tn("key", "keys", count);
}

/**
 * @param {LabEvent[]} events
 * @returns {string[]}
 */
export function describeEvents(events) {
  const out = [];
  /** @type {Record<Policy, { split: number, moved: number }>} */
  const counts = { size: { split: 0, moved: 0 }, load: { split: 0, moved: 0 } };
  /** @type {string | null} */
  let adding = null;
  for (const e of events) {
    if (e.type === "written")
      out.push(
        fmt(t("Wrote %(count)s %(kind)s, %(rate)s a second, from %(from)s s to %(to)s s of stream time."), {
          count: num(e.count),
          kind: kindWords(e.kind, e.count),
          rate: num(e.rate),
          from: decimal(e.from_ms / 1000),
          to: decimal(e.to_ms / 1000),
        }),
      );
    else if (e.type === "slice_split") counts[/** @type {Policy} */ (e.policy)].split += 1;
    else if (e.type === "slice_moved") counts[/** @type {Policy} */ (e.policy)].moved += 1;
    else if (e.type === "shard_added") adding = e.shard;
    else if (e.type === "hash_moved")
      out.push(
        fmt(t("Hash placement, mod N, moved %(moved)s of %(total)s keys (%(percent)s)."), {
          moved: num(e.moved),
          total: num(e.total),
          percent: percent(e.total ? e.moved / e.total : 0),
        }),
      );
    else if (e.type === "range_read") out.push(rangeSentence(e));
    else if (e.type === "thresholds_set")
      out.push(
        fmt(t("Split thresholds: %(keys)s keys, %(writes)s writes a second."), {
          keys: num(e.max_keys),
          writes: num(e.max_writes),
        }),
      );
  }
  if (adding) out.unshift(fmt(t("Shard %(shard)s added."), { shard: adding }));
  // both when both happened ("3 splits, then 2 slices moved"), else the one that did
  const both = {
    size: t("Split by size: %(splits)s, then %(moves)s."),
    load: t("Split by load: %(splits)s, then %(moves)s."),
  };
  const one = {
    size: t("Split by size: %(what)s."),
    load: t("Split by load: %(what)s."),
  };
  for (const policy of /** @type {Policy[]} */ (["size", "load"])) {
    const { split, moved } = counts[policy];
    if (!split && !moved) continue;
    const splits = fmt(tn("%(n)s split", "%(n)s splits", split), { n: num(split) });
    const moves = fmt(tn("%(n)s slice moved", "%(n)s slices moved", moved), { n: num(moved) });
    if (split && moved) out.push(fmt(both[policy], { splits, moves }));
    else out.push(fmt(one[policy], { what: split ? splits : moves }));
  }
  return out;
}

/**
 * A range read in words, the shards each placement asked.
 * @param {LabEvent} e a `range_read` event (a RangeQuery)
 */
function rangeSentence(e) {
  const shards = (/** @type {string[]} */ list) => list.join(", ");
  return fmt(
    t("Keys %(low)s to %(high)s (%(keys)s found): by size the query reads shards %(size)s; by load %(load)s; hash placement must ask every shard, %(hash)s."),
    {
      low: e.low,
      high: e.high,
      keys: num(e.keys),
      size: shards(e.shards.size),
      load: shards(e.shards.load),
      hash: shards(e.shards.hash),
    },
  );
}
