/** The words two-phase-commit uses in several places: servers, rows, outcomes. */

import { fmt, num, t } from "../../i18n.js";

/** @import { KindDeclared } from "../../network/types.js" */
/** @import { LogRecord, Seat, ShardRow, TpOp } from "./types.js" */
/** @typedef {Record<string, unknown>} Fields the values of a sentence's fields */

/**
 * Message kinds: colour, shape and fill, so that no two differ by colour alone (a test
 * keeps it so).
 * @returns {Record<string, KindDeclared>}
 */
export function messageKinds() {
  return {
    begin: { label: t("transaction sent to the coordinator"), colour: "#6b7380", shape: "circle", hollow: true },
    prepare: { label: t("prepare"), colour: "#E69F00", shape: "diamond" },
    vote: { label: t("vote"), colour: "#009E73", shape: "triangle" },
    commit: { label: t("commit"), colour: "#0072B2", shape: "square" },
    abort: { label: t("abort"), colour: "#D55E00", shape: "square", hollow: true },
    ack: { label: t("acknowledgement"), colour: "#56B4E9", shape: "triangle", hollow: true },
    inquire: { label: t("what was decided?"), colour: "#CC79A7", shape: "hexagon" },
    request: { label: t("write to one shard"), colour: "#8f7300", shape: "diamond", hollow: true },
    done: { label: t("one shard's answer"), colour: "#8f7300", shape: "hexagon", hollow: true },
    reply: { label: t("answer to the client"), colour: "#000000", shape: "circle" },
  };
}

/**
 * A server's name as the drawing says it.
 * @param {string} id
 */
export function serverName(id) {
  return (
    /** @type {Record<string, string>} */ ({
      client: t("Client"),
      coordinator: t("Coordinator"),
      flights: t("Flights shard"),
      bookings: t("Bookings shard"),
    })[id] ?? id
  );
}

/**
 * A row's name: "seat 12A", "booking 12A", "account 3" (narrow: "12A", "#3").
 * @param {string} row
 * @param {boolean} [narrow]
 */
export function rowName(row, narrow = false) {
  const [kind, key] = row.split(":");
  if (kind === "seat") return narrow ? key : fmt(t("seat %(seat)s"), { seat: key });
  if (kind === "booking") {
    return fmt(narrow ? t("bk %(seat)s") : t("booking %(seat)s"), { seat: key });
  }
  return narrow ? `#${key}` : fmt(t("account %(n)s"), { n: key });
}

/**
 * A row's value in a few characters.
 * @param {ShardRow} row
 * @param {boolean} [narrow]
 * @returns {string}
 */
export function rowValue(row, narrow = false) {
  const value = row.value;
  // the row's name says what its value is: a seat, a booking's passenger, a balance
  if (row.row.startsWith("seat:")) {
    const who = /** @type {Seat} */ (value).passenger || (narrow ? "–" : t("free"));
    return narrow
      ? who
      : fmt(t("%(who)s · fare %(fare)s"), { who, fare: num(/** @type {Seat} */ (value).fare) });
  }
  if (row.row.startsWith("booking:")) return /** @type {string} */ (value) || "—";
  return num(/** @type {number} */ (value));
}

/**
 * What an operation did, in words: "book 12A for P1", "move 3 from 1 to 5".
 * @param {TpOp} op
 */
export function opText(op) {
  const v = op.value;
  // (a booking's, a fare's and a transfer's values are their words' fields)
  if (op.f === "book") return fmt(t("book %(seat)s for %(passenger)s"), /** @type {Fields} */ (v));
  if (op.f === "fare") return fmt(t("fare of %(seat)s to %(fare)s"), /** @type {Fields} */ (v));
  if (op.f === "transfer") {
    return fmt(t("move %(amount)s from account %(from)s to %(to)s"), /** @type {Fields} */ (v));
  }
  if (op.outcome === "ok" && Array.isArray(v)) {
    return fmt(t("read all accounts: total %(total)s"), {
      total: num(v.reduce((a, b) => a + b, 0)),
    });
  }
  return t("read all accounts");
}

/**
 * An outcome as Jepsen says it, with what it means.
 * @param {string | null} outcome null: no answer yet
 */
export function outcomeText(outcome) {
  if (outcome === "ok") return t("ok");
  if (outcome === "fail") return t("fail (no effect)");
  if (outcome === "info") return t("info (unknown)");
  return t("waiting");
}

/**
 * Why an operation did not end ok.
 * @param {string | null | undefined} reason
 */
export function reasonText(reason) {
  return (
    /** @type {Record<string, string>} */ ({
      coordinator_crashed: t("the coordinator crashed"),
      coordinator_down: t("the coordinator is down"),
      timeout: t("the client gave up waiting"),
      vote_no: t("a shard voted no"),
      balance: t("not enough in the account"),
      taken: t("the seat is taken"),
      busy: t("the shard's queue is full"),
      half_done: t("only the first half was committed"),
    })[/** @type {string} */ (reason)] ?? reason ?? ""
  );
}

/**
 * The trap's moment in words.
 * @param {string} point
 */
export function pointText(point) {
  return (
    /** @type {Record<string, string>} */ ({
      after_decision: t("after it logs its decision"),
      before_decision: t("before it logs its decision"),
      between_shards: t("between the two shards"),
    })[point] ?? point
  );
}

/**
 * A log record: "prepare T3", "commit T3".
 * @param {LogRecord} record
 */
export function recordText([record, txn]) {
  const word =
    /** @type {Record<string, string>} */ ({ prepare: t("prepare"), commit: t("commit"), abort: t("abort"), end: t("end") })[
      record
    ] ?? record;
  return fmt(t("%(record)s T%(txn)s"), { record: word, txn });
}
