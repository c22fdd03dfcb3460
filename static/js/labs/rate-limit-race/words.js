/**
 * The rate-limit-race lab's words: the ways of counting (the declaration's own labels,
 * translated by the server), a key's expiry, a client's outcome, and a command split
 * into what is always shown and what a narrow lane leaves out (the key's name: there is
 * one key, and the Redis box names it).
 */

import { fmt, num, t } from "../../i18n.js";

/** @import { ChoiceParam, Declaration } from "../../types.js" */
/** @import { Ttl } from "./types.js" */

export const MODES = ["read_check_write", "incr", "incr_then_expire", "lua", "set_nx_then_incr"];
// the ways of counting whose lesson is the key's expiry, not the race
export const EXPIRY_MODES = new Set(["incr_then_expire", "lua", "set_nx_then_incr"]);

/**
 * The ways of counting by their codes, from `set_mode`'s choices (else our own words).
 * @param {Declaration | null | undefined} declaration
 * @returns {Record<string, string>}
 */
export function modeNames(declaration) {
  const action = declaration?.actions?.find((a) => a.name === "set_mode");
  // (`mode` is a choice)
  const param = /** @type {ChoiceParam | undefined} */ (action?.params?.find((p) => p.name === "mode"));
  const names = new Map((param?.choices ?? []).map((c) => [c.value, c.label]));
  /** @type {Record<string, string>} */
  const own = {
    read_check_write: t("Read, check, write"),
    incr: t("INCR, then compare"),
    incr_then_expire: t("INCR, then EXPIRE"),
    lua: t("A Lua script"),
    set_nx_then_incr: t("SET … NX, then INCR"),
  };
  return Object.fromEntries(MODES.map((m) => [m, names.get(m) ?? own[m]]));
}

/**
 * A number of seconds: "30 s".
 * @param {number} n
 */
export function secs(n) {
  return fmt(t("%(s)s s"), { s: num(n) });
}

/**
 * The key's expiry in words: "expires in 30 s", "no expiry", or "no key".
 * @param {{exists: boolean, ttl: Ttl}} key
 */
export function expiryText(key) {
  if (!key.exists) return t("no key");
  if (key.ttl === "none") return t("no expiry");
  return fmt(t("expires in %(time)s"), { time: secs(Number(key.ttl)) });
}

/**
 * What TTL would answer, as redis-cli shows it: -2 no key, -1 no expiry.
 * @param {{exists: boolean, ttl: Ttl}} key
 */
export function ttlReply(key) {
  if (!key.exists) return "(integer) -2";
  if (key.ttl === "none") return "(integer) -1";
  return `(integer) ${key.ttl}`;
}

/**
 * A client's outcome (a word the server sends as data: admitted, refused, pending, crashed).
 * @param {string} outcome
 */
export function outcomeText(outcome) {
  return t(outcome);
}

/**
 * The mark that goes with an outcome, so it is never told by colour alone.
 * @param {string} outcome
 */
export function outcomeMark(outcome) {
  return /** @type {Record<string, string>} */ ({ admitted: "✓", refused: "✗", crashed: "☠" })[outcome] ?? "";
}

/**
 * A command in parts: `[text, isKey]`. The key's name can be left out where a lane is
 * narrow; a Lua script's body is shortened to "…" (the side panel shows it whole).
 * @param {string} command
 * @param {string} key
 * @returns {Array<[string, boolean]>}
 */
export function commandParts(command, key) {
  let text = command;
  if (text.startsWith('EVAL "')) {
    const end = text.lastIndexOf('"');
    text = `EVAL "…"${text.slice(end + 1)}`;
  }
  /** @type {Array<[string, boolean]>} */
  const parts = [];
  let at = 0;
  for (let i = text.indexOf(key); i >= 0; i = text.indexOf(key, at)) {
    if (i > at) parts.push([text.slice(at, i), false]);
    parts.push([key, true]);
    at = i + key.length;
  }
  if (at < text.length) parts.push([text.slice(at), false]);
  return parts;
}

/**
 * The verb of a command: what a packet on its way to Redis says ("GET", "INCR", "EVAL").
 * @param {string} command
 */
export function verb(command) {
  return command.split(" ")[0];
}

/**
 * Whether a reply is a local decision (admitted / refused) rather than Redis's words.
 * @param {string | null} reply
 * @returns {reply is "admitted" | "refused"}
 */
export function isDecision(reply) {
  return reply === "admitted" || reply === "refused";
}
