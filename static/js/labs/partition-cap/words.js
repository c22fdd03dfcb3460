/** The words partition-cap uses in several places: results, rules, vectors, cities. */

import { fmt, joinNames, num, t, tn } from "../../i18n.js";

/** @import { KindDeclared } from "../../network/types.js" */
/**
 * @import { Answer, Booking, Operation, PartitionSnapshot, Version, VersionVector }
 *   from "./types.js"
 */

/**
 * Message kinds: colour, shape and fill, so that no two differ by colour alone (a test
 * keeps it so): a refusal is a hollow promise, a release a hollow commit, a read
 * request a hollow reply.
 * @returns {Record<string, KindDeclared>}
 */
export function messageKinds() {
  return {
    replicate: { label: t("new version (answer anyway)"), colour: "#0072B2", shape: "circle" },
    prepare: { label: t("asks for a promise"), colour: "#E69F00", shape: "diamond" },
    ack: { label: t("promise"), colour: "#009E73", shape: "triangle" },
    nack: { label: t("refusal"), colour: "#D55E00", shape: "triangle", hollow: true },
    commit: { label: t("commit (majority reached)"), colour: "#0072B2", shape: "square" },
    release: { label: t("release a promise"), colour: "#6b7380", shape: "square", hollow: true },
    read: { label: t("read request"), colour: "#8f7300", shape: "hexagon", hollow: true },
    read_reply: { label: t("reply with the copy"), colour: "#56B4E9", shape: "hexagon" },
    sync: {
      label: t("versions exchanged after healing"),
      colour: "#CC79A7",
      shape: "circle",
      hollow: true,
    },
  };
}

/**
 * `{A: 1, C: 1}`, or `{}` for a copy nobody has written.
 * @param {VersionVector | null | undefined} vv
 */
export function vvText(vv) {
  const keys = Object.keys(vv ?? {}).sort();
  // (there are keys only where there is a vector)
  return `{${keys.map((k) => `${k}: ${/** @type {VersionVector} */ (vv)[k]}`).join(", ")}}`;
}

/**
 * The city of a server, from the snapshot's copies (the server id when unknown).
 * @param {PartitionSnapshot | null} snapshot
 * @param {string} server
 */
export function cityOf(snapshot, server) {
  const copy = snapshot?.copies?.find((c) => c.server === server);
  return copy ? t(copy.city) : server;
}

/**
 * "Frankfurt (A)".
 * @param {PartitionSnapshot | null} snapshot
 * @param {string} server
 */
export function serverName(snapshot, server) {
  return fmt(t("%(city)s (%(server)s)"), { city: cityOf(snapshot, server), server });
}

/**
 * A conflict rule in words.
 * @param {string} rule "lww", "app" or "siblings"
 */
export function ruleName(rule) {
  return (
    /** @type {Record<string, string>} */ ({
      lww: t("last writer wins"),
      app: t("application rule"),
      siblings: t("keep both versions"),
    })[rule] ?? rule
  );
}

/**
 * How a client's server answers, in words.
 * @param {string} mode "majority" or "anyway"
 */
export function modeName(mode) {
  return mode === "majority" ? t("refuse without a majority") : t("answer anyway");
}

/** @param {number} seats */
export function seatsText(seats) {
  return fmt(tn("%(n)s seat left", "%(n)s seats left", seats), { n: num(seats) });
}

/**
 * What a client was told, in a few words.
 * @param {Operation} op
 * @returns {string}
 */
export function resultText(op) {
  if (op.result === "pending") return t("waiting for a majority…");
  if (op.result === "booked") return fmt(t("booked (%(booking)s)"), { booking: op.booking.id });
  if (op.result === "sold_out") return t("sold out");
  if (op.result === "failed") return t("failed: the server stopped");
  if (op.result === "refused") {
    if (op.reason === "no_majority") {
      return fmt(t("refused: no majority: %(reachable)s of %(copies)s copies reachable"), {
        reachable: num(op.reachable),
        copies: num(op.copies),
      });
    }
    if (op.reason === "busy") return t("refused: another booking of this seat is in progress");
    if (op.reason === "behind") return t("refused: this copy was behind; try again");
    return t("refused");
  }
  if (op.result === "answered") return boardText(op.answer);
  return op.result;
}

/**
 * The departures board as read from one copy.
 * @param {Answer} answer
 */
export function boardText(answer) {
  if (answer.conflicting) {
    const each = answer.versions.map((v) => versionSummary(v)).join(" | ");
    return fmt(t("conflicting: %(n)s versions: %(each)s"), {
      n: num(answer.versions.length),
      each,
    });
  }
  const text = answer.seats_remaining > 0 ? seatsText(answer.seats_remaining) : t("sold out");
  return answer.stale ? fmt(t("%(text)s (stale: another copy has newer writes)"), { text }) : text;
}

/**
 * One version in a line: seats, its bookings, its vector.
 * @param {Version} version
 */
export function versionSummary(version) {
  const bookings = joinNames(version.bookings.map((b) => bookingText(b)));
  return [seatsText(version.seats_remaining), bookings, vvText(version.vv)]
    .filter(Boolean)
    .join(" · ");
}

/** @param {Booking} booking */
export function bookingText(booking) {
  return booking.status === "standby"
    ? fmt(t("%(id)s for %(passenger)s, standby"), booking)
    : fmt(t("%(id)s for %(passenger)s, confirmed"), booking);
}

/** @param {number} ms */
export function msText(ms) {
  return fmt(t("t = %(ms)s ms"), { ms: num(ms) });
}
