/** Small pieces of text the quorum renderer uses in several places. */

import { fmt, joinNames, num, t } from "../../i18n.js";

/** @import { KindDeclared } from "../../network/types.js" */
/** @import { Level, QuorumOp, Version } from "./types.js" */

/**
 * Message kinds: colour, shape and fill, so that no two differ by colour alone (a test
 * keeps it so). The hint's are the write's and acknowledgement's shapes, hollow.
 * @returns {Record<string, KindDeclared>}
 */
export function messageKinds() {
  return {
    write: { label: t("write"), colour: "#0072B2", shape: "circle" },
    ack: { label: t("acknowledgement"), colour: "#009E73", shape: "triangle" },
    read: { label: t("read request"), colour: "#E69F00", shape: "diamond" },
    reply: { label: t("reply with a version"), colour: "#56B4E9", shape: "square" },
    repair: { label: t("read repair"), colour: "#D55E00", shape: "hexagon" },
    hint: { label: t("hinted handoff"), colour: "#CC79A7", shape: "circle", hollow: true },
    hint_ack: { label: t("hint received"), colour: "#882255", shape: "triangle", hollow: true },
  };
}

/**
 * "QUORUM (2 of 3)" or "2 of 3".
 * @param {Level} level
 * @param {number} needed
 * @param {number} copies
 */
export function levelText(level, needed, copies) {
  /** @type {Record<string, string>} */
  const names = { ONE: t("ONE"), QUORUM: t("QUORUM"), ALL: t("ALL") };
  const count = fmt(t("%(needed)s of %(copies)s"), { needed: num(needed), copies: num(copies) });
  return names[level] ? `${names[level]} (${count})` : count;
}

/**
 * A version as the copy shows it: its timestamp and the node that wrote it.
 * @param {Version | null} version
 */
export function versionText(version) {
  if (!version) return "—";
  const [ts, by] = version;
  if (!by) return fmt(t("initial, t=%(ts)s"), { ts: num(ts) });
  return fmt(t("t=%(ts)s by %(node)s"), { ts: num(ts), node: by });
}

/**
 * Milliseconds on the virtual clock.
 * @param {number | null | undefined} ms
 */
export function msText(ms) {
  return ms === null || ms === undefined ? "—" : fmt(t("%(ms)s ms"), { ms: num(ms) });
}

/**
 * "A, B and C".
 * @param {string[]} items
 */
export function listOf(items) {
  if (!items.length) return t("none");
  if (items.length === 1) return items[0];
  return fmt(t("%(first)s and %(last)s"), {
    first: joinNames(items.slice(0, -1)),
    last: items[items.length - 1],
  });
}

/**
 * Why an operation failed, in a sentence that says what the copies kept.
 * @param {QuorumOp & {reason?: string | null}} op
 * @param {number} copies
 */
export function failureText(op, copies) {
  if (op.reason === "coordinator_stopped") {
    return fmt(t("its coordinator %(node)s stopped before enough copies answered"), {
      node: op.coordinator,
    });
  }
  if (op.kind === "write") {
    return fmt(
      t(
        "only %(got)s of %(copies)s copies confirmed; W=%(needed)s needs %(needed)s. The copies that got the write keep it.",
      ),
      { got: num(op.confirmed.length), copies: num(copies), needed: num(op.needed) },
    );
  }
  return fmt(
    t("only %(got)s of %(copies)s copies answered in time; R=%(needed)s needs %(needed)s."),
    { got: num(op.confirmed.length), copies: num(copies), needed: num(op.needed) },
  );
}
