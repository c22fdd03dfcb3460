/**
 * The graph-traversal lab's words: the course's questions (the declaration's own labels,
 * translated by the server), what happened to an edge that was read (each outcome with a
 * mark, so it is never told by colour alone), paths, minutes and nodes in words.
 */

import { fmt, joinNames, num, t, tn } from "../../i18n.js";

/** @import { ChoiceParam, Declaration } from "../../types.js" */
/** @import { GtQuestion } from "./types.js" */

/** The outcomes of an edge read, in the order the legend lists them. */
export const OUTCOMES = ["grown", "found", "met", "seen", "reused", "avoided", "failed"];

/** Outcomes whose edge goes no further: drawn faint once their depth has passed. */
export const PRUNED = new Set(["seen", "reused", "avoided", "failed"]);

/**
 * The mark an outcome carries in the legend and on the drawing.
 * @param {string} outcome
 */
export function outcomeMark(outcome) {
  return /** @type {Record<string, string>} */ ({ grown: "→", found: "✓", met: "⋈", seen: "·", reused: "↺", avoided: "✕", failed: "✗" })[outcome] ?? "";
}

/**
 * An outcome in words, for the legend.
 * @param {string} outcome
 */
export function outcomeText(outcome) {
  /** @type {Record<string, string>} */
  const words = {
    grown: t("the path goes on"),
    found: t("completes an answer"),
    met: t("the two searches meet"),
    seen: t("reached already"),
    reused: t("relationship used already"),
    avoided: t("barred node"),
    failed: t("fails the condition"),
  };
  return words[outcome] ?? outcome;
}

/**
 * The course's questions by value, with their labels, from `course_query`'s choices.
 * @param {Declaration | null | undefined} declaration
 * @returns {{value: string, label: string}[]}
 */
export function courseQuestions(declaration) {
  const action = declaration?.actions?.find((a) => a.name === "course_query");
  // a choice parameter (its declaration, simulators/labs/graph_traversal/declaration.py)
  const param = /** @type {ChoiceParam | undefined} */ (action?.params?.find((p) => p.name === "question"));
  return (param?.choices ?? []).map((c) => ({ value: String(c.value), label: String(c.label) }));
}

/**
 * The course's patterns the declaration names (its tour's steps): question → pattern.
 * @param {Declaration | null | undefined} declaration
 * @returns {Map<string, string>}
 */
export function tourPatterns(declaration) {
  /** @type {Map<string, string>} */
  const known = new Map();
  for (const step of declaration?.tour ?? []) {
    const question = step?.show_me?.action === "course_query" ? step.show_me.args?.question : null;
    const pattern = step?.done_when?.with?.pattern;
    if (typeof question === "string" && typeof pattern === "string") known.set(question, pattern);
  }
  return known;
}

/**
 * A path's stops: "LAX → DEN → JFK".
 * @param {string[]} path
 */
export function pathText(path) {
  return path.join(" → ");
}

/**
 * Minutes: "380 min".
 * @param {number} minutes
 */
export function minutesText(minutes) {
  return fmt(t("%(n)s min"), { n: num(minutes) });
}

/**
 * A count of edges read: "7 edges read".
 * @param {number} n
 */
export function edgesRead(n) {
  return fmt(tn("%(n)s edge read", "%(n)s edges read", n), { n: num(n) });
}

/**
 * A count of rows: "8 rows".
 * @param {number} n
 */
export function rowsText(n) {
  return fmt(tn("%(n)s row", "%(n)s rows", n), { n: num(n) });
}

/**
 * A count of index lookups: "12 index lookups".
 * @param {number} n
 */
export function lookupsText(n) {
  return fmt(tn("%(n)s index lookup", "%(n)s index lookups", n), { n: num(n) });
}

/**
 * Nodes of a graph, by its kind: "8 airports", "6 services".
 * @param {string} kind "airport" or "service"
 * @param {number} n
 */
export function nodesText(kind, n) {
  return kind === "service"
    ? fmt(tn("%(n)s service", "%(n)s services", n), { n: num(n) })
    : fmt(tn("%(n)s airport", "%(n)s airports", n), { n: num(n) });
}

/**
 * Edges of a graph, by its kind: "13 routes", "6 dependencies".
 * @param {string} kind "airport" or "service"
 * @param {number} n
 */
export function edgesText(kind, n) {
  return kind === "service"
    ? fmt(tn("%(n)s dependency", "%(n)s dependencies", n), { n: num(n) })
    : fmt(tn("%(n)s route", "%(n)s routes", n), { n: num(n) });
}

/**
 * A list of names, joined as the page's language joins them, at most `most` shown.
 * @param {string[]} names
 * @param {number} [most]
 * @param {number} [total] how many there are in all (`names` may be the first of them)
 */
export function namesText(names, most = 12, total = names.length) {
  if (total <= most && names.length <= most) return joinNames(names);
  const shown = names.slice(0, most);
  return fmt(t("%(names)s and %(n)s more"), { names: joinNames(shown), n: num(total - shown.length) });
}

/**
 * Agreement of an engine with the traversal: a mark and words (never colour alone).
 * @param {boolean | null} agrees null: not finished
 */
export function agreementText(agrees) {
  return agreementParts(agrees).join(" ");
}

/**
 * Agreement as [mark, words]: a narrow strip shows the mark, and says the words only
 * to a screen reader.
 * @param {boolean | null} agrees null: not finished
 * @returns {[string, string]}
 */
export function agreementParts(agrees) {
  if (agrees === true) return ["✓", t("same answer")];
  if (agrees === false) return ["✗", t("a different answer")];
  return ["…", t("not finished")];
}

/**
 * The number of answers of a question, in words: "1 path", "7 airports".
 * @param {GtQuestion} question
 */
export function answerCount(question) {
  const mode = question.query.mode;
  if (mode === "ends") {
    return fmt(tn("%(n)s node reached", "%(n)s nodes reached", question.traversal.end_count), {
      n: num(question.traversal.end_count),
    });
  }
  return fmt(tn("%(n)s path", "%(n)s paths", question.traversal.path_count), { n: num(question.traversal.path_count) });
}
