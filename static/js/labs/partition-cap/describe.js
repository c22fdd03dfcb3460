/** Sentences for the live region and the log: what the lab's events mean. */

import { fmt, joinNames, t } from "../../i18n.js";
import { modeName, resultText, ruleName, serverName, vvText } from "./words.js";

/** @import { LabEvent, Snapshot } from "../../types.js" */
/** @import { PartitionEvent, PartitionSnapshot } from "./types.js" */

/**
 * Sentences for a frame's events; the others say nothing.
 * @param {LabEvent[]} events
 * @param {Snapshot | null} state the lab's snapshot (for the servers' cities)
 * @returns {string[]}
 */
export function describeEvents(events, state) {
  const snapshot = /** @type {PartitionSnapshot | null} */ (state);
  const out = [];
  const split = events.some((e) => e.type === "split");
  // (the events worded here are PartitionEvents; the branches tell them by their type)
  for (const e of /** @type {PartitionEvent[]} */ (events)) {
    if (split && (e.type === "link_cut" || e.type === "link_healed")) continue;
    if (e.type === "op_completed") {
      const who = serverName(snapshot, e.server);
      out.push(
        e.action === "book"
          ? fmt(t("Booking through %(server)s (%(mode)s): %(result)s."), {
              server: who,
              mode: modeName(e.mode),
              result: resultText(e),
            })
          : fmt(t("Departures board from %(server)s: %(result)s."), {
              server: who,
              result: resultText(e),
            }),
      );
    } else if (e.type === "conflict") {
      out.push(
        fmt(t("Concurrent versions %(vectors)s met on %(server)s; %(rule)s applied."), {
          vectors: e.vectors.map((v) => vvText(v)).join(t(" and ")),
          server: serverName(snapshot, e.server),
          rule: ruleName(e.rule),
        }),
      );
    } else if (e.type === "booking_vanished") {
      out.push(
        fmt(t("Booking %(booking)s for %(passenger)s has vanished from every copy; no one was told."), e),
      );
    } else if (e.type === "split") {
      out.push(
        fmt(t("The network is split: %(a)s | %(b)s."), {
          a: joinNames(e.groups[0]),
          b: joinNames(e.groups[1]),
        }),
      );
    } else if (e.type === "link_cut") {
      out.push(fmt(t("Link %(link)s cut."), e));
    } else if (e.type === "link_healed") {
      out.push(fmt(t("Link %(link)s healed; its ends exchange their versions."), e));
    } else if (e.type === "node_stopped") {
      out.push(fmt(t("%(server)s stopped."), { server: serverName(snapshot, e.node) }));
    } else if (e.type === "node_restarted") {
      out.push(fmt(t("%(server)s restarted."), { server: serverName(snapshot, e.node) }));
    } else if (e.type === "clock_skewed") {
      out.push(
        fmt(t("%(server)s's clock is now %(ms)s ms off."), {
          server: serverName(snapshot, e.node),
          ms: e.skew_ms,
        }),
      );
    } else if (e.type === "rule_set") {
      out.push(fmt(t("Conflict rule: %(rule)s."), { rule: ruleName(e.rule) }));
    } else if (e.type === "reset") {
      out.push(fmt(t("Started over with %(n)s servers and one seat left."), { n: e.servers }));
    }
  }
  return out;
}
