/**
 * The history checker's verdicts on the stage: the newest operations as a time diagram
 * (history-diagram.js), the operations that break a promise outlined and numbered, and
 * one chip per promise (linearizable, monotonic reads, read your writes) with ✓, ✗ or ?
 * in words as well as marks. The snapshot's `checker` (simulators/labs/quorum/
 * histories.py) judges the newest 24 operations; the verdicts' explanations arrive as
 * English data, translated through the words the lab's hello carried.
 */

import d3 from "d3";
import { createHistoryDiagram } from "../../history-diagram.js";
import { fmt, t } from "../../i18n.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { QuorumSnapshot, Verdict } from "./types.js" */

/**
 * The promises' names, by the checker's codes.
 * @param {string} code
 */
function promiseName(code) {
  if (code === "linearizable") return t("Linearizable");
  if (code === "monotonic-reads") return t("Monotonic reads");
  if (code === "read-your-writes") return t("Read your writes");
  return code;
}

/**
 * A verdict's explanation in the page's language (a kept promise carries none).
 * @param {Verdict} verdict
 */
export function verdictText(verdict) {
  return verdict.explanation ? fmt(t(verdict.explanation), verdict.params ?? {}) : "";
}

/** @param {Verdict} verdict */
function chipText(verdict) {
  const name = promiseName(verdict.promise);
  if (verdict.ok === true) return fmt(t("✓ %(promise)s: kept"), { promise: name });
  if (verdict.ok === false) return fmt(t("✗ %(promise)s: broken"), { promise: name });
  return fmt(t("? %(promise)s: too long to check"), { promise: name });
}

/**
 * Build the verdicts inside `parent`; returns {update(snapshot)}.
 * @param {HTMLElement} parent
 */
export function createJudged(parent) {
  // a box of its own size that may scroll: reachable by keyboard, named
  const section = d3
    .select(parent)
    .append("section")
    .attr("class", "q-judged")
    .attr("data-spot", "checker")
    .attr("tabindex", 0)
    .attr("aria-label", t("Promises the history keeps"));
  const empty = section
    .append("p")
    .attr("class", "q-judged-empty")
    .text(t("Write or read: the history checker judges the newest operations here."));
  const chips = section.append("ul").attr("class", "q-promises");
  const diagram = createHistoryDiagram(/** @type {HTMLElement} */ (section.node()));
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {QuorumSnapshot} */ (state);
      const checker = snapshot.checker ?? { ops: [], verdicts: [] };
      // the box keeps its size from the first frame (stage.css): the cluster above it is
      // not resized, mid-flight, by the first operation
      empty.attr("hidden", checker.ops.length ? "" : null);
      const verdicts = checker.verdicts ?? [];
      chips
        .selectAll("li")
        .data(verdicts)
        .join("li")
        .attr("data-promise", (v) => v.promise)
        .attr("data-ok", (v) => String(v.ok))
        .attr("title", (v) => verdictText(v) || null)
        .text((v) => chipText(v));
      // the diagram shows the first broken promise's evidence, or that all held
      const shown = verdicts.find((v) => v.ok === false) ?? verdicts.find((v) => v.ok === null);
      if (!checker.ops.length) {
        diagram.update({ ops: [], verdict: null });
        return;
      }
      // rows [id, kind, value, invoke, complete, outcome] (docs/protocol.md, quorum)
      const ops = checker.ops.map(([id, kind, value, invoke, complete, outcome]) => ({
        id,
        client: t("you"),
        kind,
        value,
        invoke,
        complete,
        outcome,
      }));
      diagram.update({
        ops,
        verdict: shown
          ? { ok: shown.ok, witness: shown.witness, text: fmt(t("%(promise)s: %(why)s"), { promise: promiseName(shown.promise), why: verdictText(shown) }) }
          : { ok: true, witness: [], text: t("No order of events here breaks any of the three promises.") },
      });
    },
    destroy() {
      diagram.destroy();
      section.remove();
    },
  };
}
