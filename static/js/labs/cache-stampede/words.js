/**
 * The cache-stampede lab's words and numbers: the four strategies' names (the
 * declaration's own labels, translated by the server), how a read ended, and times as the
 * lab writes them (the snapshot's times are whole microseconds).
 */

import { decimal, fmt, num, t, tn } from "../../i18n.js";

/** @import { ChoiceParam, Declaration } from "../../types.js" */
/** @import { CsRefill } from "./types.js" */

/**
 * How a kind of dot is drawn: `shape` circle, square, diamond, triangle, cross or hexagon.
 * @typedef {{label: string, colour: string, shape: string, hollow: boolean}} DotStyle
 */

export const STRATEGIES = ["plain", "lock", "xfetch", "xfetch_lock"];

/**
 * The strategies' names from the declaration's `set_strategy` choices (else our own).
 * @param {Declaration | null | undefined} declaration
 * @returns {Record<string, string>}
 */
export function strategyNames(declaration) {
  const action = declaration?.actions?.find((a) => a.name === "set_strategy");
  // a choice parameter (simulators/labs/cache_stampede/declaration.py)
  const param = /** @type {ChoiceParam | undefined} */ (action?.params?.find((p) => p.name === "strategy"));
  const names = new Map((param?.choices ?? []).map((c) => [c.value, c.label]));
  /** @type {Record<string, string>} */
  const own = {
    plain: t("Plain cache-aside"),
    lock: t("Refill lock"),
    xfetch: t("XFetch (early refresh)"),
    xfetch_lock: t("XFetch with the lock"),
  };
  return Object.fromEntries(STRATEGIES.map((s) => [s, names.get(s) ?? own[s]]));
}

/**
 * The strategies' short names, for the strips on a phone.
 * @returns {Record<string, string>}
 */
export function shortNames() {
  return { plain: t("Plain"), lock: t("Lock"), xfetch: t("XFetch"), xfetch_lock: t("XFetch + lock") };
}

/**
 * How a read is drawn: by how it ended (the simulator's outcome codes 0–5: hit, miss,
 * early refresh, waited, gave up, refused by a full queue). Shapes differ, fills differ:
 * never colour alone.
 * @returns {Record<string, DotStyle>}
 */
export function dotKinds() {
  return {
    hit: { label: t("hit"), colour: "#0072B2", shape: "circle", hollow: false },
    miss: { label: t("miss: a query"), colour: "#D55E00", shape: "square", hollow: false },
    early: { label: t("early refresh"), colour: "#009E73", shape: "diamond", hollow: false },
    waited: { label: t("waits for the lock"), colour: "#6a3d9a", shape: "triangle", hollow: true },
    gave_up: { label: t("gave up"), colour: "#a3161a", shape: "cross", hollow: false },
    busy: { label: t("refused: the queue is full"), colour: "#4a525c", shape: "hexagon", hollow: true },
  };
}

export const OUTCOME_KINDS = ["hit", "miss", "early", "waited", "gave_up", "busy"];

/**
 * A duration in microseconds as milliseconds: 20 ms, 0.5 ms.
 * @param {number} us
 */
export function ms(us) {
  const value = us / 1000;
  return fmt(t("%(ms)s ms"), { ms: Math.abs(value) >= 10 || Number.isInteger(value) ? num(value) : decimal(value) });
}

/**
 * A duration in microseconds as seconds with two decimals: 0.21 s.
 * @param {number} us
 */
export function seconds(us) {
  return fmt(t("%(s)s s"), { s: decimal(us / 1_000_000, 2) });
}

/**
 * A duration in microseconds, in the unit that reads best: 450 ms, 12.3 s.
 * @param {number} us
 */
export function duration(us) {
  if (Math.abs(us) < 1_000_000) return ms(us);
  return fmt(t("%(s)s s"), { s: decimal(us / 1_000_000, 1) });
}

/**
 * "1 query", "23 queries".
 * @param {number} n
 */
export function queries(n) {
  return fmt(tn("%(n)s query", "%(n)s queries", n), { n: num(n) });
}

/**
 * What a refill took: "23 queries", "1 query, 68 ms early".
 * @param {CsRefill | null} refill
 */
export function refillText(refill) {
  if (!refill) return t("no refill seen yet");
  const said = queries(refill.queries);
  if (!refill.early) return said;
  return fmt(t("%(queries)s, %(time)s early"), { queries: said, time: ms(refill.expiry_us - refill.started_us) });
}

/**
 * A tiny deterministic hash of a number, 0..1 (where a reader's dot flies).
 * @param {number} n
 */
export function spread(n) {
  let h = (n * 2654435761) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 2246822519) >>> 0;
  h ^= h >>> 13;
  return (h >>> 0) / 4294967296;
}
