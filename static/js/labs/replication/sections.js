/**
 * The replication lab's panels: the summary over the drawing (who is primary, when a
 * commit is returned, the fix in use, what blocks commits, the last read and the last
 * failover's lost writes), and in the side panel the lag chart, the lost writes and the
 * history of operations.
 */

import d3 from "d3";
import { createLineChart } from "../../charts.js";
import { dataTable } from "../../data-table.js";
import { createHistoryDiagram } from "../../history-diagram.js";
import { decimal, fmt, joinNames, num, t, tn } from "../../i18n.js";
import { acksText, clientText, fixText, reasonText, rowText } from "./words.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { RpOp, RpSnapshot } from "./types.js" */

/**
 * A value as shown: an email as it is (data), a burst's "report N" in words.
 * @param {string | null} value
 */
function valueText(value) {
  const report = /^report (\d+)$/.exec(String(value));
  return report ? fmt(t("report %(n)s"), { n: report[1] }) : String(value);
}

/**
 * The lines over the drawing, in a box of one height from the first frame to the last
 * (stage.css): the drawing under it is never moved or shrunk by a line that comes. More
 * lines than it shows scroll inside it (reachable by keyboard, named); a line that
 * changes is scrolled into its view.
 * @param {HTMLElement} parent
 */
export function createSummary(parent) {
  const box = d3
    .select(parent)
    .append("div")
    .attr("class", "rp-summary")
    .attr("tabindex", 0)
    .attr("role", "region")
    .attr("aria-label", t("The primary, the rules and what just happened"));
  const rules = box.append("p").attr("class", "rp-rules");
  const blocked = box.append("p").attr("class", "rp-blocked").attr("role", "status");
  const read = box.append("p").attr("class", "rp-read").attr("data-spot", "last-read");
  const lost = box.append("p").attr("class", "rp-lost").attr("data-spot", "lost-writes");
  /** @type {HTMLElement[]} the lines whose words changed in this update */
  let changed = [];
  /**
   * Show `text` in `line` (a d3 selection); note the change.
   * @param {d3.Selection<HTMLParagraphElement, unknown, null, undefined>} line
   * @param {string} text
   */
  function put(line, text) {
    if (line.text() === text) return;
    line.text(text);
    if (text) changed.push(/** @type {HTMLElement} */ (line.node()));
  }
  /** The last line that changed, whole, in the box's view (the box alone scrolls). */
  function reveal() {
    const node = /** @type {HTMLElement} */ (box.node());
    const line = changed.at(-1);
    changed = [];
    if (!line || node.scrollHeight <= node.clientHeight) return;
    const top = line.offsetParent === node ? line.offsetTop : line.offsetTop - node.offsetTop;
    const bottom = top + line.offsetHeight;
    if (top < node.scrollTop) node.scrollTop = top;
    else if (bottom > node.scrollTop + node.clientHeight) node.scrollTop = Math.min(top, bottom - node.clientHeight);
  }
  return {
    /** @param {Snapshot} snap */
    update(snap) {
      const snapshot = /** @type {RpSnapshot} */ (snap);
      const primary = snapshot.primary
        ? fmt(t("Primary: %(server)s."), { server: snapshot.primary })
        : t("No primary: promote a replica.");
      const text = fmt(t("%(primary)s A commit is returned when %(acks)s. Read your writes: %(fix)s."), {
        primary,
        acks: acksText(snapshot.acks),
        fix: fixText(snapshot.read_your_writes),
      });
      put(rules, text);
      const waiting = snapshot.log.length - snapshot.log.committed;
      const blocks = snapshot.blocked_by ?? [];
      const blockText = blocks.length
        ? fmt(
            tn(
              "⏸ Every commit waits: sync replica %(servers)s is down (%(n)s waiting).",
              "⏸ Every commit waits: sync replicas %(servers)s are down (%(n)s waiting).",
              blocks.length,
            ),
            { servers: joinNames(blocks), n: num(waiting) },
          )
        : "";
      put(blocked, blockText);
      blocked.attr("hidden", blockText ? null : "");
      const lastRead = [...(snapshot.history ?? [])].reverse().find((op) => op.kind === "read");
      const readText = lastRead ? readSentence(lastRead) : "";
      put(read, readText);
      read.attr("data-stale", lastRead?.stale ? "true" : "false").attr("hidden", readText ? null : "");
      const promotion = snapshot.lost.promotion;
      let lostText = "";
      if (promotion) {
        const count = snapshot.lost.last_count;
        lostText = count
          ? fmt(
              tn(
                "✗ Failover to %(server)s: %(n)s acknowledged write is on no server: %(values)s.",
                "✗ Failover to %(server)s: %(n)s acknowledged writes are on no server: %(values)s.",
                count,
              ),
              {
                server: promotion.server,
                n: num(count),
                values: snapshot.lost.last.slice(0, 3).map((r) => valueText(r.value)).join(", ") + (count > 3 ? " …" : ""),
              },
            )
          : fmt(t("✓ Failover to %(server)s: every acknowledged write survived."), { server: promotion.server });
      }
      put(lost, lostText);
      lost.attr("data-lost", snapshot.lost.last_count ? "true" : "false").attr("hidden", lostText ? null : "");
      if (changed.length) reveal();
    },
  };
}

/**
 * "Ana read ana.lopez@oldmail.example from C: her old address."
 * @param {RpOp} op
 */
export function readSentence(op) {
  const who = clientText(op.client);
  if (op.outcome === null) {
    return fmt(t("%(who)s's read from %(server)s is retrying (%(n)s tries so far)."), {
      who,
      server: op.server,
      n: num(op.attempts),
    });
  }
  if (op.outcome === "fail") {
    return fmt(t("%(who)s's read failed: %(reason)s."), { who, reason: reasonText(op.reason) });
  }
  const where =
    op.server === op.asked
      ? fmt(t("from %(server)s"), { server: op.server })
      : fmt(t("from %(server)s (asked %(asked)s)"), { server: op.server, asked: op.asked });
  if (op.stale) {
    return fmt(t("✗ %(who)s read %(value)s %(where)s: the old address, although her change was acknowledged."), {
      who,
      value: op.value,
      where,
    });
  }
  return fmt(t("✓ %(who)s read %(value)s %(where)s."), { who, value: op.value, where });
}

/** The lag of every replica over the last seconds: records behind, and how old the
 * oldest record it has not applied is (two charts, one measure each).
 * @param {HTMLElement} parent
 */
export function createLag(parent) {
  const section = d3.select(parent).append("section").attr("class", "rp-lag-chart").attr("data-spot", "lag");
  section.append("h2").text(t("Replication lag"));
  const note = section.append("p").attr("class", "rp-note");
  const charts = [
    { index: 1, label: t("records behind"), title: t("Records each replica has not applied") },
    { index: 2, label: t("ms behind"), title: t("How long ago the oldest record a replica lacks was written") },
  ].map((c) => {
    const holder = section.append("div").attr("class", "rp-lag-holder").node();
    const chart = createLineChart(/** @type {HTMLElement} */ (holder), {
      width: 420,
      height: 150,
      xLabel: t("time (s)"),
      yLabel: c.label,
      xFormat: (v) => decimal(v / 1000, 1),
    });
    return { ...c, chart };
  });
  return {
    /** @param {Snapshot} snap */
    update(snap) {
      const snapshot = /** @type {RpSnapshot} */ (snap);
      const lag = snapshot.lag ?? {};
      const ids = Object.keys(lag)
        .sort()
        .filter((id) => id !== snapshot.primary);
      const now = snapshot.playback.now_ms;
      const start = Math.max(0, now - 10_000);
      const replicas = (snapshot.servers ?? []).filter((s) => s.role !== "primary");
      const words = replicas
        .map((s) => fmt(t("%(server)s %(n)s records, %(ms)s ms"), { server: s.id, n: num(s.lag_records), ms: num(s.lag_ms) }))
        .join("; ");
      for (const c of charts) {
        const series = ids.map((id) => ({
          id,
          label: id,
          points: /** @type {Array<[number, number | null]>} */ (lag[id].map((p) => [p[0], p[c.index]])),
        }));
        let most = 1;
        for (const s of series) for (const p of s.points) if (p[0] >= start) most = Math.max(most, p[1] ?? 0);
        c.chart.update({
          series,
          xDomain: [start, Math.max(now, start + 1000)],
          yDomain: [0, most],
          summary: fmt(t("%(title)s, over the last 10 s. Now: %(words)s."), { title: c.title, words }),
        });
      }
      const text = fmt(t("Now: %(words)s."), { words: words || "—" });
      if (note.text() !== text) note.text(text);
    },
  };
}

/**
 * The acknowledged writes the last failover lost, and what came back rolled back.
 * @param {HTMLElement} parent
 */
export function createLost(parent) {
  const section = d3.select(parent).append("section").attr("class", "rp-lost-list").attr("data-spot", "lost-list");
  section.append("h2").text(t("Acknowledged writes lost in the last failover"));
  const note = section.append("p").attr("class", "rp-note");
  const table = section.append("div");
  let shown = "";
  return {
    /** @param {Snapshot} snap */
    update(snap) {
      const snapshot = /** @type {RpSnapshot} */ (snap);
      const lost = snapshot.lost;
      const key = JSON.stringify([lost.last, lost.total, lost.promotion]);
      if (key === shown) return;
      shown = key;
      note.text(
        lost.promotion
          ? fmt(
              t(
                "Their commits were returned to the client, yet no running server had them when %(server)s took over. %(total)s lost in all; %(unacked)s more were never acknowledged.",
              ),
              { server: lost.promotion.server, total: num(lost.total), unacked: num(lost.unacknowledged) },
            )
          : t("No failover yet: kill the primary, then promote a replica."),
      );
      const rows = lost.last.map((r) => [
        String(r.lsn),
        rowText(r.row),
        valueText(r.value),
        fmt(t("%(ms)s ms"), { ms: num(r.committed_ms) }),
      ]);
      table
        .node()
        ?.replaceChildren(
          ...(rows.length
            ? [
                scrollable(
                  dataTable([t("Record"), t("Row"), t("Value"), t("Commit returned at")], rows, { wrapClass: "rp-table-wrap" }),
                  t("Acknowledged writes lost in the last failover"),
                ),
              ]
            : []),
        );
    },
  };
}

/**
 * A bar's label where the whole one does not fit: an email by its domain.
 * @param {RpOp} op
 */
function shortLabel(op) {
  const at = typeof op.value === "string" ? op.value.indexOf("@") : -1;
  if (at < 0) return null;
  const value = /** @type {string} */ (op.value).slice(at); // a string: `at` found its "@"
  return op.kind === "write" ? fmt(t("W %(value)s"), { value }) : fmt(t("R → %(value)s"), { value });
}

/**
 * The operations: a time diagram of the passengers' and a table of the latest.
 * @param {HTMLElement} parent
 */
export function createOperations(parent) {
  const section = d3.select(parent).append("section").attr("class", "rp-ops").attr("data-spot", "history");
  section.append("h2").text(t("Operations"));
  const note = section.append("p").attr("class", "rp-note");
  const diagram = createHistoryDiagram(/** @type {HTMLElement} */ (section.node()), {
    title: t("Ana's and Ben's operations"),
  });
  const table = section.append("div");
  let shown = "";
  return {
    /** @param {Snapshot} snap */
    update(snap) {
      const snapshot = /** @type {RpSnapshot} */ (snap);
      const history = snapshot.history ?? [];
      const key = JSON.stringify([history.at(-1), history.length, snapshot.history_total]);
      if (key === shown) return;
      shown = key;
      note.text(
        fmt(t("The last %(shown)s of %(total)s operations, as Jepsen records them."), {
          shown: num(history.length),
          total: num(snapshot.history_total),
        }),
      );
      const mine = history.filter((op) => op.client !== "fleet");
      const judged = snapshot.read_your_writes_verdict;
      diagram.update({
        ops: mine.map((op) => ({
          id: op.id,
          client: clientText(op.client),
          kind: op.kind,
          value: op.value,
          invoke: op.invoke[1],
          complete: op.complete && op.outcome !== "info" ? op.complete[1] : null,
          outcome: op.outcome ?? "ok",
          // on a phone a bar is narrower than an email: what tells the old address
          // from the new one, its domain
          short: shortLabel(op),
        })),
        // the history checker's verdict on Ana's email (simulators/engine/history.py)
        verdict: judged
          ? { ok: judged.ok, witness: judged.witness, text: fmt(t(judged.explanation), judged.params) }
          : null,
      });
      const rows = [...history]
        .reverse()
        .slice(0, 12)
        .map((op) => [
          String(op.id),
          clientText(op.client),
          op.kind === "write" ? t("write") : t("read"),
          op.value === null ? "…" : valueText(op.value),
          op.server ?? "",
          op.outcome === null ? t("pending") : op.outcome,
          op.stale ? t("✗ old address") : op.lost ? t("✗ lost in failover") : reasonText(op.reason),
        ]);
      table
        .node()
        ?.replaceChildren(
          scrollable(
            dataTable([t("Op"), t("Client"), t("Kind"), t("Value"), t("Server"), t("Outcome"), t("Note")], rows, {
              wrapClass: "rp-table-wrap",
            }),
            t("The latest operations"),
          ),
        );
    },
  };
}

/**
 * A table's scrolling wrapper made reachable by keyboard (it may scroll sideways on a
 * phone), named for screen readers.
 * @param {HTMLDivElement} wrap
 * @param {string} name
 */
function scrollable(wrap, name) {
  wrap.tabIndex = 0;
  wrap.setAttribute("role", "region");
  wrap.setAttribute("aria-label", name);
  return wrap;
}
