/** Sentences for the live region and the log: what the lab's events mean. */

import { fmt, num, t } from "../../i18n.js";
import { opText, outcomeText, pointText, reasonText, serverName } from "./words.js";

/** @import { LabEvent } from "../../types.js" */
/** @import { TpEvent } from "./types.js" */

/**
 * Sentences for a frame's events; the others say nothing.
 * @param {LabEvent[]} events
 * @returns {string[]}
 */
export function describeEvents(events) {
  const out = [];
  // (the events worded here are TpEvents; the branches tell them by their type)
  for (const e of /** @type {TpEvent[]} */ (events)) {
    if (e.type === "op_completed" && e.client === "you") {
      // the workload's own operations are its chart and table, not sentences
      out.push(
        fmt(t("T%(id)s, %(what)s: %(outcome)s%(why)s."), {
          id: e.id,
          what: opText(e),
          outcome: outcomeText(e.outcome),
          why: e.reason ? ` (${reasonText(e.reason)})` : "",
        }),
      );
    } else if (e.type === "trap_set") {
      out.push(fmt(t("Trap set: the coordinator will crash %(when)s of the next transaction on both shards."), { when: pointText(e.point) }));
    } else if (e.type === "trap_sprung") {
      out.push(fmt(t("The coordinator crashed %(when)s of T%(txn)s."), { when: pointText(e.point), txn: e.txn }));
    } else if (e.type === "crashed") {
      out.push(fmt(t("%(server)s crashed: what it held in memory is gone."), { server: serverName(e.node) }));
    } else if (e.type === "recovered") {
      const carried = e.resent?.length
        ? fmt(t(" It sends its logged decisions again: %(txns)s."), { txns: e.resent.map((x) => `T${x}`).join(", ") })
        : e.prepared?.length
          ? fmt(t(" Still prepared from its log: %(txns)s; it asks the coordinator."), {
              txns: e.prepared.map((x) => `T${x}`).join(", "),
            })
          : "";
      out.push(fmt(t("%(server)s recovered from its log."), { server: serverName(e.node) }) + carried);
    } else if (e.type === "decided" && e.decision === "abort") {
      out.push(fmt(t("The coordinator aborted T%(txn)s (%(why)s)."), { txn: e.txn, why: reasonText(e.reason) || e.reason }));
    } else if (e.type === "inquiry_answered" && e.presumed) {
      out.push(fmt(t("The coordinator has no decision for T%(txn)s: abort (presumed)."), e));
    } else if (e.type === "resolved") {
      out.push(fmt(t("T%(op)s, whose client never heard, was %(what)s."), { op: e.op, what: e.resolved === "committed" ? t("committed") : t("aborted") }));
    } else if (e.type === "total_off") {
      out.push(fmt(t("A read added up to %(total)s, not 100, at %(ms)s ms."), { total: num(e.total), ms: num(e.at_ms) }));
    } else if (e.type === "bank_started") {
      out.push(t("The bank workload started: three clients, transfers and reads."));
    } else if (e.type === "bank_done" || e.type === "bank_stopped") {
      out.push(t("The bank workload stopped."));
    } else if (e.type === "mode_set") {
      out.push(e.mode === "2pc" ? t("Transactions across shards now use two-phase commit.") : t("Each shard now commits its half on its own."));
    }
  }
  return out;
}
