/**
 * Renderer of the scatter-gather lab: a router in front of N shards, each answering
 * after a latency with a tail. A query by shard key goes to one shard; a query without
 * it goes to all and waits for the slowest (cluster.js draws each answer arriving and
 * the merge). The p50 and p99 of the gathered answer against N, measured and as theory
 * gives them, are drawn beside it (tail-chart.js); what the last query returned is the
 * side panel's (side.js). Implements the renderer interface of docs/frontend.md.
 */

import { fmt, num, t } from "../i18n.js";
import { createLabRenderer } from "../lab-view.js";
import { createCluster, ms } from "./scatter-gather/cluster.js";
import { describeEvents } from "./scatter-gather/describe.js";
import { createAnswer } from "./scatter-gather/side.js";
import { createTailChart } from "./scatter-gather/tail-chart.js";

/** @import { Renderer, Snapshot } from "../types.js" */

/**
 * The status line: the last query's SQL (code, never translated), then its numbers.
 * @param {Snapshot} snapshot
 */
function statusLine(snapshot) {
  const query = snapshot.last_query;
  if (!query) {
    return fmt(t("%(n)s shards, each answering in about %(median)s, one in a hundred after %(p99)s or more."), {
      n: num(snapshot.shard_count),
      median: ms(snapshot.latency_model.median_us),
      p99: ms(snapshot.latency_model.p99_us),
    });
  }
  return fmt(t("%(asked)s of %(n)s shards · answer after %(time)s"), {
    asked: num(query.shards_asked),
    n: num(snapshot.shard_count),
    time: ms(query.latency_us),
  });
}

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  return createLabRenderer({
    className: "sg-lab",
    place: "replace",
    metrics: { text: metricsText, className: "sg-numbers" },
    mount(lab) {
      const status = lab.element("p", "sg-status");
      const sql = lab.element("code", null, status);
      sql.translate = false;
      const said = lab.element("span", null, status);
      const grid = lab.element("div", "sg-grid");
      const cluster = lab.own(createCluster(grid));
      const chart = lab.own(createTailChart(grid));
      const answer = lab.side ? lab.own(createAnswer(lab.side)) : null;
      return {
        draw(snapshot, frame, metrics) {
          // a frame with a query animates its answers; a hello draws them where they are
          const animate = (frame?.events ?? []).some((e) => e.type === "query");
          sql.textContent = snapshot.last_query ? `${snapshot.last_query.sql} · ` : "";
          sql.hidden = !snapshot.last_query;
          said.textContent = statusLine(snapshot);
          cluster.update(snapshot, animate);
          chart.update(snapshot, metrics);
          answer?.update(snapshot);
        },
        describe: (events) => describeEvents(events),
      };
    },
  });
}

/**
 * The queries so far, in words.
 * @param {Record<string, any>} metrics
 */
function metricsText(metrics) {
  const q = metrics.queries;
  return fmt(t("Queries so far: %(key)s by key, %(scatter)s without it, %(board)s boards, %(history)s aircraft histories, %(index)s index queries; %(requests)s requests to shards in all."), {
    key: num(q.by_key),
    scatter: num(q.scatter),
    board: num(q.board),
    history: num(q.aircraft_history),
    index: num(q.index),
    requests: num(metrics.shard_requests),
  });
}
