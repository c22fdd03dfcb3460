/** What the replication lab's events mean, in sentences for the narrator. */

import { fmt, num, t, tn } from "../../i18n.js";
import { readSentence } from "./sections.js";
import { acksText, clientText, fixText, reasonText } from "./words.js";

/**
 * Sentences for the events of one frame: operations that ended, faults, failovers and
 * settings; routine deliveries say nothing (a playing lab sends ten frames a second).
 * @param {any[]} events
 * @returns {string[]}
 */
export function describeEvents(events) {
  const said = [];
  let commits = 0;
  for (const e of events) {
    switch (e.type) {
      case "op_completed":
        if (e.kind === "read") said.push(readSentence(e));
        else if (e.outcome === "ok")
          said.push(
            fmt(t("%(who)s's change to %(value)s was committed after %(ms)s ms."), {
              who: clientText(e.client),
              value: e.value,
              ms: num(e.complete[0] - e.invoke[0]),
            }),
          );
        else
          said.push(
            fmt(t("%(who)s's change to %(value)s: outcome unknown (%(reason)s)."), {
              who: clientText(e.client),
              value: e.value,
              reason: reasonText(e.reason),
            }),
          );
        break;
      case "reports_done":
        commits += e.ok;
        break;
      case "burst":
        said.push(fmt(t("%(n)s position reports written at once."), { n: num(e.count) }));
        break;
      case "taken_down":
        said.push(fmt(t("Replica %(server)s is down until %(ms)s ms."), { server: e.server, ms: num(e.back_at_ms) }));
        break;
      case "commits_blocked":
        said.push(fmt(t("Every commit now waits for %(servers)s."), { servers: e.by.join(", ") }));
        break;
      case "server_back":
        said.push(
          e.rolled_back
            ? fmt(
                tn(
                  "%(server)s is back and threw away %(n)s record no one else kept.",
                  "%(server)s is back and threw away %(n)s records no one else kept.",
                  e.rolled_back,
                ),
                { server: e.server, n: num(e.rolled_back) },
              )
            : fmt(t("%(server)s is back and catches up."), { server: e.server }),
        );
        break;
      case "primary_killed":
        said.push(
          fmt(
            tn(
              "Primary %(server)s died; %(n)s record was on no replica yet.",
              "Primary %(server)s died; %(n)s records were on no replica yet.",
              e.held_by_no_replica,
            ),
            { server: e.server, n: num(e.held_by_no_replica) },
          ),
        );
        break;
      case "promoted":
        said.push(
          e.lost_count
            ? fmt(
                tn(
                  "%(server)s is the primary; %(n)s acknowledged write is lost.",
                  "%(server)s is the primary; %(n)s acknowledged writes are lost.",
                  e.lost_count,
                ),
                { server: e.server, n: num(e.lost_count) },
              )
            : fmt(t("%(server)s is the primary; no acknowledged write is lost."), { server: e.server }),
        );
        break;
      case "replica_set":
        said.push(
          fmt(t("%(server)s is now %(mode)s."), { server: e.server, mode: e.mode === "sync" ? t("sync") : t("async") }),
        );
        break;
      case "acks_set":
        said.push(fmt(t("A commit is now returned when %(acks)s."), { acks: acksText(e.acks) }));
        break;
      case "read_your_writes_set":
        said.push(fmt(t("Read your writes: %(fix)s."), { fix: fixText(e.fix) }));
        break;
      case "cluster_reset":
        said.push(fmt(tn("A fresh cluster with %(n)s replica.", "A fresh cluster with %(n)s replicas.", e.replicas), { n: num(e.replicas) }));
        break;
      default:
        break;
    }
  }
  if (commits) said.push(fmt(tn("%(n)s position report committed.", "%(n)s position reports committed.", commits), { n: num(commits) }));
  return said;
}
