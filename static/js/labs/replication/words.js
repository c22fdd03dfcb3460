/** Small pieces of text the replication renderer uses in several places. */

import { fmt, num, t, tn } from "../../i18n.js";

/** @import { RpServer } from "./types.js" */

/** Message kinds: colour, shape and fill, so that none differ by colour alone. */
export function messageKinds() {
  return {
    wal: { label: t("log record"), colour: "#0072B2", shape: "circle" },
    wal_batch: { label: t("batch of log records"), colour: "#56B4E9", shape: "square" },
    ack: { label: t("acknowledgement"), colour: "#009E73", shape: "triangle" },
    resume: { label: t("“send me what I lack”"), colour: "#E69F00", shape: "diamond" },
  };
}

/**
 * How far a server stands from the first primary.
 * @param {string} place
 */
export function placeText(place) {
  return (
    /** @type {Record<string, string>} */ ({
      zone: t("same zone"),
      region: t("another region"),
      ocean: t("across an ocean"),
    })[place] ?? place
  );
}

/**
 * A server's role in words (never colour alone).
 * @param {RpServer} server
 */
export function roleText(server) {
  if (server.role === "primary") return t("PRIMARY");
  if (!server.up) return t("DOWN");
  return server.mode === "sync" ? t("sync replica") : t("async replica");
}

/**
 * "3 records, 84 ms behind" or "up to date".
 * @param {number} records
 * @param {number} ms
 */
export function lagText(records, ms) {
  if (!records) return t("up to date");
  return fmt(tn("%(n)s record, %(ms)s ms behind", "%(n)s records, %(ms)s ms behind", records), {
    n: num(records),
    ms: num(ms),
  });
}

/**
 * The acknowledgement rule in words.
 * @param {string} acks
 */
export function acksText(acks) {
  return acks === "majority" ? t("a majority has it (w:majority)") : t("the primary has it (w:1)");
}

/**
 * The read-your-writes fix in words.
 * @param {string} fix
 */
export function fixText(fix) {
  return (
    /** @type {Record<string, string>} */ ({
      off: t("off"),
      primary_after_write: t("the primary for 3 s after your own write"),
      retry: t("retry until the row matches"),
      current_rows_primary: t("current-row reads go to the primary"),
    })[fix] ?? fix
  );
}

/**
 * A passenger's name.
 * @param {string} client
 */
export function clientText(client) {
  return /** @type {Record<string, string>} */ ({ ana: "Ana", ben: "Ben", fleet: t("the fleet") })[client] ?? client;
}

/**
 * Why an operation failed or is unknown.
 * @param {string | null} reason
 */
export function reasonText(reason) {
  return (
    /** @type {Record<string, string>} */ ({
      no_primary: t("no primary to route it to"),
      gave_up: t("gave up: the row never matched"),
      server_down: t("its server went down"),
      primary_died: t("the primary died before the commit came back"),
    })[/** @type {string} */ (reason)] ?? "" // null finds none
  );
}

/**
 * A row's name in words: "booking QX7R2P email" → "email on booking QX7R2P".
 * @param {string} row
 */
export function rowText(row) {
  const parts = String(row).split(" ");
  if (parts[0] === "booking" && parts[2] === "email") return fmt(t("email on booking %(booking)s"), { booking: parts[1] });
  if (parts[0] === "aircraft" && parts[2] === "position") return fmt(t("position of %(aircraft)s"), { aircraft: parts[1] });
  return String(row);
}
