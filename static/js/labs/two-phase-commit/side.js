/**
 * The side panel: what a commit cost (one shard against two), the bank workload's
 * total at every read over time, and the operations as Jepsen records them.
 */

import { createLineChart } from "../../charts.js";
import { dataTable } from "../../data-table.js";
import { createHistoryDiagram } from "../../history-diagram.js";
import { decimal, fmt, num, t } from "../../i18n.js";
import { opText, outcomeText, reasonText, serverName } from "./words.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { Costs, TpOp, TpSnapshot } from "./types.js" */

const SHOWN = 16;

/**
 * A section of the side panel with its heading, appended to `root`.
 * @param {HTMLElement} root
 * @param {string} cls
 * @param {string} title
 */
function section(root, cls, title) {
  const el = document.createElement("section");
  el.className = `tp-section ${cls}`;
  const head = document.createElement("h3");
  head.textContent = title;
  el.append(head);
  root.append(el);
  return el;
}

/**
 * The cost of the last one-shard and two-shard commits, side by side.
 * @param {HTMLElement} root
 */
export function createCosts(root) {
  const el = section(root, "tp-costs", t("What a commit costs"));
  el.dataset.spot = "costs";
  const body = document.createElement("div");
  el.append(body);
  let last = "";
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {TpSnapshot} */ (state);
      const { one_shard: one, two_shard: two } = snapshot.costs;
      const key = JSON.stringify(snapshot.costs);
      if (key === last) return;
      last = key;
      /**
       * @param {Costs | null} bill
       * @param {"shards" | "log_writes" | "round_trips" | "messages" | "latency_ms"} field
       */
      // (a latency is null until the commit ends: num() writes it 0)
      const cell = (bill, field) => (bill ? num(/** @type {number} */ (bill[field])) : "—");
      const where = (/** @type {Costs | null} */ bill) =>
        bill
          ? Object.entries(bill.log_writes_by)
              .map(([server, n]) => fmt(t("%(n)s on %(server)s"), { n: num(n), server: serverName(server) }))
              .join(", ")
          : "—";
      body.replaceChildren(
        dataTable(
          [t("commit"), t("shards"), t("forced log writes"), t("round trips"), t("messages"), t("ms")],
          [
            [t("one shard"), cell(one, "shards"), cell(one, "log_writes"), cell(one, "round_trips"), cell(one, "messages"), cell(one, "latency_ms")],
            [t("two shards (2PC)"), cell(two, "shards"), cell(two, "log_writes"), cell(two, "round_trips"), cell(two, "messages"), cell(two, "latency_ms")],
          ],
          { wrapClass: "tp-table" },
        ),
      );
      const note = document.createElement("p");
      note.className = "tp-note";
      note.textContent =
        one || two
          ? fmt(t("Log writes: one shard %(one)s; two shards %(two)s. Round trips and messages count coordinator ↔ shards."), {
              one: where(one),
              two: where(two),
            })
          : t("Book a seat (two shards) and change a fare (one shard) to compare.");
      body.append(note);
    },
  };
}

/**
 * The bank: what every read added up to, over time, with the line at 100.
 * @param {HTMLElement} root
 */
export function createBank(root) {
  const el = section(root, "tp-bank", t("The bank: what each read adds up to"));
  el.dataset.spot = "bank";
  const status = document.createElement("p");
  status.className = "tp-bank-status";
  status.setAttribute("aria-live", "polite");
  const chartBox = document.createElement("div");
  el.append(status, chartBox);
  const chart = createLineChart(chartBox, {
    width: 360,
    height: 140,
    yLabel: t("total"),
    xLabel: t("virtual time (s)"),
    xFormat: (v) => decimal(v / 1000, 1),
    yTicks: 3,
  });
  let last = "";
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {TpSnapshot} */ (state);
      const bank = snapshot.bank;
      const key = `${bank.totals.length}:${bank.totals.at(-1)?.[2]}:${bank.running}:${bank.invoked}:${snapshot.mode}`;
      if (key === last) return;
      last = key;
      const totals = bank.totals;
      const values = totals.map((p) => p[1]);
      const low = Math.min(90, ...values);
      const high = Math.max(105, ...values);
      const start = totals.length ? totals[0][0] : 0;
      const end = totals.length ? Math.max(/** @type {[number, number, number]} */ (totals.at(-1))[0], start + 1) : 1;
      const off = bank.first_off;
      chart.update({
        series: [{ id: "total", label: t("reads"), points: totals.map((p) => [p[0], p[1]]), dots: true, line: false }],
        xDomain: [start, end],
        yDomain: [low, high],
        marks: [
          { y: snapshot.total, label: num(snapshot.total) },
          ...(off ? [{ x: off.at_ms, label: t("first off") }] : []),
        ],
        summary: fmt(t("%(n)s reads; %(off)s of them did not add up to 100."), {
          n: num(bank.reads_ok),
          off: num(bank.off),
        }),
      });
      const parts = [];
      parts.push(
        bank.running
          ? fmt(t("Running: %(n)s of %(limit)s operations."), { n: num(bank.invoked), limit: num(bank.limit) })
          : bank.invoked
            ? fmt(t("Done: %(n)s operations."), { n: num(bank.invoked) })
            : t("Not run yet: “Run the bank workload” starts three clients."),
      );
      parts.push(fmt(t("The accounts hold %(total)s now."), { total: num(bank.total_now) }));
      parts.push(
        off
          ? fmt(t("First read that did not add up: T%(op)s at %(ms)s ms, total %(total)s."), {
              op: off.op,
              ms: num(off.at_ms),
              total: num(off.total),
            })
          : fmt(t("Every read so far added up to %(total)s."), { total: num(snapshot.total) }),
      );
      status.textContent = parts.join(" ");
      el.classList.toggle("is-off", Boolean(off));
    },
  };
}

/**
 * A short label for an operation's bar on the time diagram.
 * @param {TpOp} op
 */
function barLabel(op) {
  const v = op.value;
  // (read through `op`, whose `f` says what its value is)
  if (op.f === "transfer") return `${op.value.from}→${op.value.to}: ${num(op.value.amount)}`;
  if (op.f === "read") {
    return op.outcome === "ok" && Array.isArray(v) ? fmt(t("Σ %(total)s"), { total: num(v.reduce((a, b) => a + b, 0)) }) : t("Σ …");
  }
  if (op.f === "book") return `${op.value.seat} ${op.value.passenger}`;
  if (op.f === "fare") return `${op.value.seat} ${num(op.value.fare)}`;
  return "";
}

/**
 * The promise's name, by the checker's code.
 * @param {string} code
 */
function promiseName(code) {
  return code === "bank-total" ? t("Every read adds up to the total") : code;
}

/**
 * The newest operations on a time diagram, judged by Jepsen's bank checker
 * (simulators/engine/bank.py): an outcome the client cannot know runs on, dashed,
 * and a read that does not add up is numbered with the transfers that explain it.
 * @param {HTMLElement} root
 */
export function createJudged(root) {
  const el = section(root, "tp-judged", t("The history, judged"));
  el.dataset.spot = "checker";
  const note = document.createElement("p");
  note.className = "tp-note";
  note.textContent = t(
    "Each operation is a bar from the moment its client sent it to the moment it heard back; a bar still open with “?” never heard. Jepsen's bank checker reads the transfers and the reads of every account.",
  );
  const chips = document.createElement("ul");
  chips.className = "promise-chips";
  el.append(note, chips);
  const diagram = createHistoryDiagram(el);
  let last = "";
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {TpSnapshot} */ (state);
      const checker = snapshot.checker ?? { window: [], verdicts: [] };
      const byId = new Map(snapshot.ops.map((op) => [op.id, op]));
      // (the operations of the window that are still in the snapshot)
      const ops = /** @type {TpOp[]} */ (checker.window.map((id) => byId.get(id)).filter(Boolean));
      const key = JSON.stringify([ops.map((op) => [op.id, op.outcome]), checker.verdicts]);
      if (key === last) return;
      last = key;
      const verdict = checker.verdicts[0] ?? null;
      const why = verdict?.explanation ? fmt(t(verdict.explanation), verdict.params ?? {}) : "";
      chips.replaceChildren(
        ...checker.verdicts.map((v) => {
          const li = document.createElement("li");
          li.dataset.promise = v.promise;
          li.dataset.ok = String(v.ok);
          const name = promiseName(v.promise);
          li.textContent = v.ok ? fmt(t("✓ %(promise)s: kept"), { promise: name }) : fmt(t("✗ %(promise)s: broken"), { promise: name });
          return li;
        }),
      );
      diagram.update({
        ops: ops.map((op) => ({
          id: op.id,
          client: op.client === "you" ? t("you") : op.client,
          kind: op.kind,
          value: op.value,
          label: barLabel(op),
          // steps order everything the cluster did (a millisecond holds several)
          invoke: op.invoke[1],
          complete: op.outcome === "info" || !op.complete ? null : op.complete[1],
          outcome: op.outcome,
        })),
        verdict: verdict
          ? {
              ok: verdict.ok,
              witness: verdict.witness,
              text: verdict.ok ? t("Every read here added up to the total.") : fmt(t("%(promise)s: %(why)s"), { promise: promiseName(verdict.promise), why }),
            }
          : null,
      });
    },
    destroy() {
      diagram.destroy();
    },
  };
}

/**
 * The last operations, as Jepsen records them.
 * @param {HTMLElement} root
 */
export function createHistory(root) {
  const el = section(root, "tp-history", t("Operations (as Jepsen records them)"));
  el.dataset.spot = "history";
  const note = document.createElement("p");
  note.className = "tp-note";
  note.textContent = t("ok: it happened. fail: it certainly did not. info: the client cannot know; what happened later is in the last column.");
  const body = document.createElement("div");
  el.append(note, body);
  let last = "";
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {TpSnapshot} */ (state);
      const ops = snapshot.ops.slice(-SHOWN).reverse();
      const key = JSON.stringify(ops.map((op) => [op.id, op.outcome, op.resolved]));
      if (key === last) return;
      last = key;
      body.replaceChildren(
        dataTable(
          [t("T"), t("client"), t("what"), t("invoked (ms)"), t("completed (ms)"), t("outcome"), t("later")],
          ops.map((op) => [
            `T${op.id}`,
            op.client === "you" ? t("you") : op.client,
            opText(op),
            num(op.invoke[0]),
            op.complete ? num(op.complete[0]) : "…",
            [outcomeText(op.outcome), reasonText(op.reason)].filter(Boolean).join(": "),
            op.resolved ? resolvedText(op.resolved) : "",
          ]),
          { wrapClass: "tp-table tp-ops" },
        ),
      );
    },
  };
}

/** @param {string} resolved "committed" or "aborted" */
function resolvedText(resolved) {
  return resolved === "committed" ? t("committed") : t("aborted");
}
