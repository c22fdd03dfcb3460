/**
 * What each server holds, drawn beside it in the network view: a shard's rows with
 * their locks ("lock T3": the transactions holding them) and the writers queued for
 * them ("T4 waits"), its last log records; the coordinator's log, its transactions and
 * the trap; the client's last answers. Text, not colour alone, says every state.
 */

import d3 from "d3";
import { fmt, num, t, tn } from "../../i18n.js";
import { NODE_RADIUS } from "../../network/layout.js";
import { opText, outcomeText, pointText, recordText, rowName, rowValue } from "./words.js";

/** @import { NetworkView } from "../../network-view.js" */
/** @import { NetNode } from "../../network/types.js" */
/** @import { Snapshot } from "../../types.js" */
/** @import { Shard, TpSnapshot } from "./types.js" */

/**
 * A line of a server's panel: its key, its class, its text and what its right end says.
 * @typedef {{key: string, text: string, cls?: string, mark?: string, row?: string}} Line
 */

const WIDE_LINE = 16; // a wide stage's (13 px text); a phone's box keeps 15 and 12 px
const NARROW_LINE = 15;
const PAD = 7;
const SHARD_WIDTH = 340; // a shard's panel on a wide stage
const SHARD_LINES = 9; // its lines: the log, four seats (or bookings), four accounts
/** How far right of a shard's centre its panel reaches on a wide stage (units). */
export const SHARD_REACH = NODE_RADIUS + 58 + SHARD_WIDTH + 6;
/** Half a shard's panel's height, and a margin (units). */
export const SHARD_HALF = (SHARD_LINES * WIDE_LINE) / 2 + 10;

/**
 * Fill the view's node panels from the snapshot.
 * @param {NetworkView} view
 * @param {Snapshot} state the lab's snapshot
 */
export function drawPanels(view, state) {
  const snapshot = /** @type {TpSnapshot} */ (state);
  const { narrow, width, radius, positions } = view.layout;
  const step = narrow ? NARROW_LINE : WIDE_LINE;
  const shards = new Map((snapshot.shards ?? []).map((s) => [s.id, s]));
  view.panels.each(function fill(node) {
    const g = d3.select(this);
    let lines;
    let boxWidth;
    if (shards.has(node.id)) {
      lines = shardLines(/** @type {Shard} */ (shards.get(node.id)), narrow);
      boxWidth = narrow ? 176 : SHARD_WIDTH;
    } else if (node.id === "coordinator") {
      lines = coordinatorLines(snapshot, narrow);
      boxWidth = narrow ? 150 : 230;
    } else {
      lines = clientLines(snapshot);
      boxWidth = narrow ? 150 : 128;
    }
    const cx = positions.get(node.id)?.x ?? 0;
    let left;
    let top;
    if (!narrow && shards.has(node.id)) {
      // beside the shard, on the right (clear of its name), centred on its height
      left = radius + 58;
      top = -((lines.length - 1) * step) / 2;
    } else if (narrow && !shards.has(node.id)) {
      // a phone stacks the client over the coordinator over the shards: their panels go
      // beside them, on the right, or they cover the names of the servers under them
      left = Math.min(radius + 8, width - boxWidth - 4 - cx);
      top = -((lines.length - 1) * step) / 2 + 4;
    } else {
      left = Math.max(4, Math.min(width - boxWidth - 4, cx - boxWidth / 2)) - cx;
      top = radius + 18;
    }
    g.attr("data-panel", node.id);
    g.selectAll("rect.tp-panel-bg")
      .data([lines.length])
      .join("rect")
      .attr("class", "tp-panel-bg")
      .attr("x", left)
      .attr("y", top - step + 3)
      .attr("width", boxWidth)
      .attr("height", (n) => n * step + 6)
      .attr("rx", 6);
    const rows = g
      .selectAll("g.tp-line")
      .data(lines, (d) => d.key)
      .join((enter) => {
        const line = enter.append("g").attr("class", "tp-line");
        line.append("text").attr("class", "tp-left");
        line.append("text").attr("class", "tp-right");
        return line;
      })
      .attr("class", (d) => `tp-line ${d.cls ?? ""}`)
      .classed("is-narrow", narrow)
      .attr("data-row", (d) => d.row ?? null)
      .attr("transform", (d, i) => `translate(0,${top + i * step})`);
    rows
      .select("text.tp-left")
      .attr("x", left + PAD)
      .text((d) => d.text);
    rows
      .select("text.tp-right")
      .attr("x", left + boxWidth - PAD)
      .text((d) => d.mark ?? "");
  });
}

/**
 * @param {Shard} shard
 * @param {boolean} narrow
 * @returns {Line[]}
 */
function shardLines(shard, narrow) {
  /** @type {Line[]} */
  const lines = [];
  const head = shard.up
    ? fmt(t("log writes: %(n)s"), { n: num(shard.log_writes) })
    : t("DOWN: memory lost, log kept");
  const last = shard.log.slice(narrow ? -1 : -2).map(recordText).join(" · ");
  lines.push({ key: "head", cls: shard.up ? "tp-head" : "tp-head is-down", text: head, mark: last });
  for (const row of shard.rows) {
    if (narrow && row.row.startsWith("booking:") && !row.lock && !row.queue.length && !row.value) continue;
    const marks = [];
    if (row.lock) {
      const who = row.lock.holders.map((h) => `T${h}`).join(",");
      marks.push(
        row.lock.mode === "S" && !narrow
          ? fmt(t("read lock %(who)s"), { who })
          : fmt(t("lock %(who)s"), { who }),
      );
    }
    if (row.queue.length) {
      const who = row.queue.map(([txn]) => `T${txn}`).join(",");
      marks.push(fmt(tn("%(who)s waits", "%(who)s wait", row.queue.length), { who }));
    }
    lines.push({
      key: row.row,
      row: row.row,
      cls: row.lock ? (row.queue.length ? "is-locked has-queue" : "is-locked") : "",
      text: `${rowName(row.row, narrow)}: ${rowValue(row, narrow)}`,
      mark: marks.join(" "),
    });
  }
  if (shard.prepared.length) {
    const txns = shard.prepared.map((x) => `T${x}`).join(", ");
    lines.push({
      key: "prepared",
      cls: "tp-prepared",
      text: narrow
        ? fmt(t("prepared: %(txns)s"), { txns })
        : fmt(t("prepared, waiting for the decision: %(txns)s"), { txns }),
    });
  }
  return lines;
}

/**
 * @param {TpSnapshot} snapshot
 * @param {boolean} narrow
 * @returns {Line[]}
 */
function coordinatorLines(snapshot, narrow) {
  const coord = snapshot.coordinator;
  /** @type {Line[]} */
  const lines = [];
  lines.push({
    key: "mode",
    cls: coord.up ? "tp-head" : "tp-head is-down",
    text: coord.up
      ? snapshot.mode === "2pc"
        ? t("two-phase commit")
        : t("each shard on its own")
      : narrow
        ? t("DOWN: log kept")
        : t("DOWN: it remembers only its log"),
  });
  if (snapshot.trap) {
    lines.push({
      key: "trap",
      cls: "tp-trap",
      text: narrow ? t("trap set") : fmt(t("trap: crash %(when)s"), { when: pointText(snapshot.trap) }),
    });
  }
  const log = coord.log.slice(narrow ? -1 : -2).map(recordText).join(" · ");
  lines.push({ key: "log", text: fmt(t("log: %(records)s"), { records: log || "—" }) });
  if (coord.unfinished.length) {
    lines.push({
      key: "unfinished",
      cls: "tp-prepared",
      text: fmt(narrow ? t("to send again: %(txns)s") : t("decided, not yet acknowledged: %(txns)s"), {
        txns: coord.unfinished.map((x) => `T${x}`).join(", "),
      }),
    });
  }
  for (const txn of coord.txns.slice(0, narrow ? 1 : 2)) {
    const yes = Object.values(txn.votes).filter(Boolean).length;
    lines.push({
      key: `txn-${txn.id}`,
      text: fmt(t("T%(id)s %(state)s: %(yes)s of %(n)s yes"), {
        id: txn.id,
        state: stateText(txn.state),
        yes,
        n: txn.shards.length,
      }),
    });
  }
  return lines;
}

/** @param {string} state a transaction's */
function stateText(state) {
  return (
    /** @type {Record<string, string>} */ ({
      voting: t("voting"),
      logging: t("logging its decision"),
      committed: t("committed"),
      aborted: t("aborted"),
      running: t("running"),
    })[state] ?? state
  );
}

/**
 * @param {TpSnapshot} snapshot
 * @returns {Line[]}
 */
function clientLines(snapshot) {
  const mine = (snapshot.ops ?? []).filter((op) => op.client === "you").slice(-2);
  if (!mine.length) return [{ key: "none", text: t("no answer yet") }];
  return mine.map((op) => ({
    key: `op-${op.id}`,
    cls: `is-${op.outcome ?? "pending"}`,
    text: fmt(t("T%(id)s: %(outcome)s"), { id: op.id, outcome: outcomeText(op.outcome) }),
  }));
}

/**
 * The accessible words added to a server's name.
 * @param {NetNode} node
 * @param {Snapshot | null} state the lab's snapshot
 */
export function describeServer(node, state) {
  const snapshot = /** @type {TpSnapshot | null} */ (state);
  const shard = snapshot?.shards?.find((s) => s.id === node.id);
  if (shard) {
    const locked = shard.rows.filter((r) => r.lock).map((r) => rowName(r.row));
    const waiting = shard.rows.reduce((n, r) => n + r.queue.length, 0);
    return fmt(t("Locked rows: %(rows)s. Waiting writers: %(waiting)s."), {
      rows: locked.length ? locked.join(", ") : t("none"),
      waiting: num(waiting),
    });
  }
  if (node.id === "client") {
    const last = (snapshot?.ops ?? []).filter((op) => op.client === "you").at(-1);
    return last ? fmt(t("Last: %(what)s, %(outcome)s."), { what: opText(last), outcome: outcomeText(last.outcome) }) : "";
  }
  return "";
}
