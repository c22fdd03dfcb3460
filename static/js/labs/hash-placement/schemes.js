/**
 * The three placement schemes as the drawing sees them: names and one-line explanations,
 * where a key sits on each card's circle, and which arcs of the circle each shard owns.
 * Everything is read from the server's snapshot; nothing here decides a placement.
 */

import { fmt, num, t, tn } from "../../i18n.js";
import { HASH_SPACE } from "./geometry.js";

/** @import { HashSnapshot, PartitionTable, RingTable, SampleKey, Scheme } from "./types.js" */

/**
 * An arc of the circle a shard owns, in fractions of a turn; a run of partitions says
 * which (`first` … `last`).
 * @typedef {{ id: string, start: number, end: number, shard: string, first?: number, last?: number }} Arc
 */

/** @type {Scheme[]} */
export const SCHEMES = ["mod", "partitions", "ring"];
const REDIS_SLOTS = 16384;
const MAX_TICKS = 512;

/**
 * The scheme's short name, as used in sentences ("hash mod N moved ...").
 * @param {Scheme} scheme
 */
export function schemeName(scheme) {
  return {
    mod: t("hash mod N"),
    partitions: t("fixed partitions"),
    ring: t("the ring"),
  }[scheme];
}

/**
 * The card title.
 * @param {Scheme} scheme
 * @param {HashSnapshot} snapshot
 */
export function schemeTitle(scheme, snapshot) {
  if (scheme === "partitions" && isRedis(snapshot)) return t("Redis Cluster slots");
  return {
    mod: t("hash mod N"),
    partitions: t("Fixed partitions"),
    ring: t("Consistent-hash ring"),
  }[scheme];
}

/**
 * One line that says how the scheme picks a shard.
 * @param {Scheme} scheme
 * @param {HashSnapshot} snapshot
 */
export function schemeExplanation(scheme, snapshot) {
  if (scheme === "mod") {
    return t("Shard = hash(key) mod N. Change N and almost every remainder changes.");
  }
  if (scheme === "partitions" && isRedis(snapshot)) {
    return t("Slot = CRC16(key) mod 16,384; a table deals the slots to shards.");
  }
  if (scheme === "partitions") {
    return t("The hash picks one of a fixed set of partitions; a table deals them to shards.");
  }
  return t("Each shard puts tokens on the ring; a key goes to the next token clockwise.");
}

/**
 * The words in the middle of the circle: the scheme's current parameter.
 * @param {Scheme} scheme
 * @param {HashSnapshot} snapshot
 * @returns {[string, string]}
 */
export function centreLines(scheme, snapshot) {
  const n = snapshot.shards.length;
  if (scheme === "mod") {
    return [fmt(t("mod %(n)s"), { n: num(n) }), t("no ranges, no table")];
  }
  if (scheme === "partitions") {
    const { count } = snapshot.schemes.partitions;
    const unit = isRedis(snapshot)
      ? tn("slot", "slots", count)
      : tn("partition", "partitions", count);
    return [num(count), isRedis(snapshot) ? fmt(t("%(unit)s · CRC16"), { unit }) : unit];
  }
  const { vnodes } = snapshot.schemes.ring;
  return [num(vnodes), tn("token per shard", "tokens per shard", vnodes)];
}

/**
 * True when the partitions card shows Redis Cluster's CRC16 slots.
 * @param {HashSnapshot} snapshot
 */
export function isRedis(snapshot) {
  return snapshot.schemes.partitions.hash === "crc16";
}

/**
 * Where a sample key sits on the card's circle, as a fraction of a turn (0..1).
 * @param {Scheme} scheme
 * @param {SampleKey} key
 * @param {HashSnapshot} snapshot
 */
export function fractionOf(scheme, key, snapshot) {
  if (scheme === "partitions" && isRedis(snapshot)) return key.slot / REDIS_SLOTS;
  return key.hash / HASH_SPACE;
}

/**
 * The arcs of the circle each shard owns: [{id, start, end, shard}] (fractions).
 * @param {Scheme} scheme
 * @param {HashSnapshot} snapshot
 * @returns {Arc[]}
 */
export function arcsOf(scheme, snapshot) {
  if (scheme === "partitions") return partitionArcs(snapshot.schemes.partitions);
  if (scheme === "ring") return ringArcs(snapshot.schemes.ring.tokens);
  return [];
}

/**
 * The partitions' arcs: runs of one owner, merged where they meet.
 * @param {PartitionTable} table
 */
function partitionArcs({ count, runs }) {
  /** @type {{ startIndex: number, endIndex: number, shard: string }[]} */
  const merged = [];
  for (const [start, end, shard] of runs) {
    const last = merged[merged.length - 1];
    if (last && last.shard === shard && last.endIndex === start) last.endIndex = end;
    else merged.push({ startIndex: start, endIndex: end, shard });
  }
  return merged.map((run) => ({
    id: `${run.shard}:${run.startIndex}:${run.endIndex}`,
    start: run.startIndex / count,
    end: run.endIndex / count,
    shard: run.shard,
    first: run.startIndex,
    last: run.endIndex - 1,
  }));
}

/**
 * A key belongs to the first token at or after its hash, so token i owns (token i-1, token i].
 * @param {RingTable["tokens"]} tokens
 */
function ringArcs(tokens) {
  if (tokens.length === 0) return [];
  /** @type {{ start: number, end: number, shard: string }[]} */
  const arcs = [];
  tokens.forEach(([token, shard], i) => {
    const previous = i === 0 ? tokens[tokens.length - 1][0] - HASH_SPACE : tokens[i - 1][0];
    const last = arcs[arcs.length - 1];
    if (last && last.shard === shard) last.end = token / HASH_SPACE;
    else arcs.push({ start: previous / HASH_SPACE, end: token / HASH_SPACE, shard });
  });
  return arcs.map((arc) => ({ ...arc, id: `${arc.shard}:${arc.start}:${arc.end}` }));
}

/**
 * Tick marks on the circle: ring tokens, or partition boundaries when there are few.
 * @param {Scheme} scheme
 * @param {HashSnapshot} snapshot
 * @returns {{ id: string, fraction: number, shard: string | null }[]}
 */
export function ticksOf(scheme, snapshot) {
  if (scheme === "ring") {
    const { tokens } = snapshot.schemes.ring;
    if (tokens.length > MAX_TICKS) return [];
    return tokens.map(([token, shard]) => ({
      id: `${token}`,
      fraction: token / HASH_SPACE,
      shard,
    }));
  }
  if (scheme === "partitions") {
    const { count } = snapshot.schemes.partitions;
    if (count > 256) return [];
    return Array.from({ length: count }, (_, p) => ({
      id: `${p}`,
      fraction: p / count,
      shard: null,
    }));
  }
  return [];
}
