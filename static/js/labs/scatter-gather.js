/**
 * Renderer of the scatter-gather lab: a router in front of N shards, each answering
 * after a latency with a tail. A query by shard key goes to one shard; a query without
 * it goes to all and waits for the slowest (cluster.js draws each answer arriving and
 * the merge). The p50 and p99 of the gathered answer against N, measured and as theory
 * gives them, are drawn beside it (tail-chart.js); what the last query returned is the
 * side panel's (side.js). Implements the renderer interface of docs/frontend.md.
 */

import { fmt, num, t } from "../i18n.js";
import { createCluster, ms } from "./scatter-gather/cluster.js";
import { describeEvents } from "./scatter-gather/describe.js";
import { createAnswer } from "./scatter-gather/side.js";
import { createTailChart } from "./scatter-gather/tail-chart.js";

/** @import { Hello, Renderer, RendererSlots } from "../types.js" */

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  let root = null;
  let status = null;
  let sql = null;
  let said = null;
  let cluster = null;
  let chart = null;
  let answer = null;
  let numbers = null;

  /** The status line: the last query's SQL (code, never translated), then its numbers. */
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

  function draw(snapshot, metrics, animate) {
    sql.textContent = snapshot.last_query ? `${snapshot.last_query.sql} · ` : "";
    sql.hidden = !snapshot.last_query;
    said.textContent = statusLine(snapshot);
    cluster.update(snapshot, animate);
    chart.update(snapshot, metrics);
    answer?.update(snapshot);
    if (numbers) numbers.textContent = metricsText(metrics);
  }

  return {
    /**
     * @param {HTMLElement} el
     * @param {Hello} hello
     * @param {Partial<RendererSlots>} [slots]
     */
    mount(el, hello, slots = {}) {
      root = document.createElement("div");
      root.className = "sg-lab";
      status = document.createElement("p");
      status.className = "sg-status";
      sql = document.createElement("code");
      sql.translate = false;
      said = document.createElement("span");
      status.append(sql, said);
      const grid = document.createElement("div");
      grid.className = "sg-grid";
      root.append(status, grid);
      el.replaceChildren(root);
      cluster = createCluster(grid);
      chart = createTailChart(grid);
      answer = slots.side ? createAnswer(slots.side) : null;
      if (slots.metrics) {
        numbers = document.createElement("p");
        numbers.className = "sg-numbers";
        slots.metrics.append(numbers);
      }
      draw(hello.snapshot, hello.metrics, false);
    },

    update(frame) {
      const asked = (frame.events ?? []).some((e) => e.type === "query");
      draw(frame.snapshot, frame.metrics, asked);
    },

    describe(events) {
      return describeEvents(events);
    },

    destroy() {
      cluster?.destroy();
      chart?.destroy();
      answer?.destroy();
      numbers?.remove();
      root?.remove();
      root = status = sql = said = cluster = chart = answer = numbers = null;
    },
  };
}

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
