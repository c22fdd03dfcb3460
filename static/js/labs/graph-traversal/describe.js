/**
 * What a graph-traversal frame's events mean, in sentences for the live region and the
 * log. A question is told from the snapshot it came with (the paths, the minutes): "Found
 * 1 path: LAX → DEN → JFK, 380 minutes; the traversal read 7 edges, the SQL produced 8
 * rows."
 */

import { fmt, joinNames, joinSentences, num, t, tn } from "../../i18n.js";
import { edgesText, namesText, nodesText, pathText } from "./words.js";

/** @import { LabEvent, Snapshot } from "../../types.js" */
/** @import { GtSnapshot } from "./types.js" */

/**
 * @param {LabEvent[]} events
 * @param {Snapshot | null} snapshot the snapshot the events came with (null: not known)
 * @param {Record<string, string>} graphNames the graphs by code, in words
 * @returns {string[]}
 */
export function describeEvents(events, snapshot, graphNames) {
  const out = [];
  for (const e of events) {
    const said = SENTENCES[e.type]?.(e, /** @type {GtSnapshot | null} */ (snapshot), graphNames);
    if (said) out.push(said);
  }
  return out;
}

/**
 * The cost part of a question's sentence.
 * @param {LabEvent} e a `question` event
 */
function costs(e) {
  return e.sql_stopped
    ? fmt(t("the traversal read %(read)s edges; the SQL was stopped at its work limit, its recursion with no end"), { read: num(e.touched) })
    : fmt(t("the traversal read %(read)s edges, the SQL produced %(rows)s rows"), { read: num(e.touched), rows: num(e.sql_rows) });
}

/**
 * @param {LabEvent} e a `question` event
 * @param {GtSnapshot | null} snapshot
 */
function question(e, snapshot) {
  // the same pattern: the snapshot is there
  const q = snapshot?.question?.pattern === e.pattern ? /** @type {GtSnapshot} */ (snapshot).question : null;
  const cost = costs(e);
  if (!q) return fmt(t("Asked: %(found)s found; %(cost)s."), { found: num(e.found), cost });
  const tr = q.traversal;
  if (e.mode === "ends") {
    const names = tr.ends.map(([name]) => name);
    if (!names.length) return fmt(t("Nothing reached; %(cost)s."), { cost });
    return fmt(tn("Reached %(n)s node: %(names)s; %(cost)s.", "Reached %(n)s nodes: %(names)s; %(cost)s.", tr.end_count), {
      n: num(tr.end_count),
      names: namesText(names, 10, tr.end_count),
      cost,
    });
  }
  if (!tr.path_count) return fmt(t("No path fits; %(cost)s."), { cost });
  const [stops, minutes] = tr.paths[0];
  const first =
    minutes === null || minutes === undefined
      ? pathText(stops)
      : fmt(t("%(path)s, %(minutes)s minutes"), { path: pathText(stops), minutes: num(minutes) });
  const head =
    e.mode === "shortest"
      ? fmt(tn("Fewest edges: %(path)s, %(n)s edge", "Fewest edges: %(path)s, %(n)s edges", stops.length - 1), { path: first, n: num(stops.length - 1) })
      : tr.path_count === 1
        ? fmt(t("Found 1 path: %(path)s"), { path: first })
        : fmt(t("Found %(n)s paths, the first %(path)s"), { n: num(tr.path_count), path: first });
  const sentences = [fmt(t("%(head)s; %(cost)s."), { head, cost })];
  if (q.sql.agrees === false || q.networkx.agrees === false) {
    const who = [q.sql.agrees === false && t("the SQL"), q.networkx.agrees === false && "networkx"].filter(Boolean);
    sentences.push(fmt(t("%(who)s answered otherwise."), { who: joinNames(who) }));
  }
  if (tr.revisits > 0) {
    sentences.push(
      fmt(tn("%(n)s path passes a node twice: networkx's simple paths leave it out.", "%(n)s paths pass a node twice: networkx's simple paths leave them out.", tr.revisits), {
        n: num(tr.revisits),
      }),
    );
  }
  return joinSentences(sentences);
}

/**
 * A sentence for each kind of event (null: nothing to say), by its type.
 * @type {Record<string, (e: LabEvent, snapshot: GtSnapshot | null, names: Record<string, string>) => string | null>}
 */
const SENTENCES = {
  question,
  graph: (e, snapshot, names) => {
    const kind = snapshot?.graph?.kind ?? (e.which === "services" ? "service" : "airport");
    const what = fmt(t("%(nodes)s and %(edges)s"), { nodes: nodesText(kind, e.nodes), edges: edgesText(kind, e.edges) });
    return e.grown
      ? fmt(t("The graph now: %(graph)s, grown 10× (%(what)s)."), { graph: names[e.which] ?? e.which, what })
      : fmt(t("The graph now: %(graph)s (%(what)s)."), { graph: names[e.which] ?? e.which, what });
  },
  index: (e) =>
    e.on
      ? t("The routes table has an index on its origin: each round of the SQL looks its rows up.")
      : t("No index on the routes table: each round of the SQL reads the whole table."),
  closed: (e) =>
    fmt(t("%(node)s closed: %(ends)s trips to or from it are gone, and %(through)s that had no other way."), {
      node: e.node,
      ends: num(e.ends),
      through: num(e.through),
    }),
  reopened: () => t("Every airport is open again."),
  ranked: (e) => fmt(t("Closing %(node)s cuts the most: %(n)s trips."), { node: e.top, n: num(e.lost) }),
  most_depended: (e) =>
    fmt(tn("%(name)s is the most depended on: %(n)s service stops if it stops.", "%(name)s is the most depended on: %(n)s services stop if it stops.", e.dependents), {
      name: e.name,
      n: num(e.dependents),
    }),
};
