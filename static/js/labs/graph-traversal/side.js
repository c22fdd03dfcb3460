/**
 * The side panel: the question answered three ways, one column each. "Traversal": the
 * answer (the paths with their stops and minutes, or the nodes reached grouped by the
 * fewest edges to them), the edges it read, depth by depth. "Recursive SQL": the query
 * as it ran (never editable), the rows each round produced (bars), its index lookups
 * and what they cost, the rows it read without the index, whether it was stopped, and
 * whether it agrees. "networkx": the call, its answer, whether it agrees. Under them,
 * when asked: which closure cuts the most (a table and the trips it cuts) and which
 * service is most depended on.
 */

import { fmt, joinNames, num, t, tn } from "../../i18n.js";
import { dataTable } from "../../data-table.js";
import {
  agreementText,
  edgesRead,
  lookupsText,
  minutesText,
  namesText,
  OUTCOMES,
  outcomeMark,
  outcomeText,
  pathText,
  rowsText,
} from "./words.js";

/** @import { LabEvent, Snapshot } from "../../types.js" */
/** @import { GtClosures, GtQuestion, GtSnapshot, GtSql } from "./types.js" */

/** @typedef {{engine: string, plan: string[]}} RanOn where the SQL ran and its plan */

const SVG = "http://www.w3.org/2000/svg";

/** @param {HTMLElement} parent */
export function createSide(parent) {
  const root = document.createElement("div");
  root.className = "gt-side";
  const engines = document.createElement("div");
  engines.className = "gt-side-engines";
  const traversal = section("traversal", t("Traversal"));
  const sql = section("sql", t("Recursive SQL"));
  const nx = section("networkx", t("networkx"));
  engines.append(traversal.element, sql.element, nx.element);
  const closures = section("closures", t("Which closure cuts the most"));
  const dependents = section("dependents", t("Which service is most depended on"));
  root.append(engines, closures.element, dependents.element);
  parent.append(root);
  /** @type {RanOn | null} where the SQL ran and its plan, when an event said */
  let ranOn = null;

  /**
   * @param {Snapshot} snap
   * @param {LabEvent[]} [events]
   */
  function update(snap, events = []) {
    const snapshot = /** @type {GtSnapshot} */ (snap);
    for (const e of events) {
      if (e.type === "question") ranOn = e.engine ? { engine: String(e.engine), plan: (e.plan ?? []).map(String) } : null;
    }
    const q = snapshot.question;
    if (!q) {
      const none = [para(t("No question asked yet: press one of the course's questions over the drawing, or run a pattern."))];
      traversal.body.replaceChildren(...none);
      sql.body.replaceChildren();
      nx.body.replaceChildren();
      sql.element.hidden = nx.element.hidden = true;
    } else {
      sql.element.hidden = nx.element.hidden = false;
      traversal.body.replaceChildren(...traversalParts(q));
      sql.body.replaceChildren(...sqlParts(q, ranOn));
      nx.body.replaceChildren(...networkxParts(q));
    }
    closures.element.hidden = !snapshot.closures;
    if (snapshot.closures) closures.body.replaceChildren(...closureParts(snapshot));
    dependents.element.hidden = !snapshot.dependents;
    if (snapshot.dependents) dependents.body.replaceChildren(...dependentParts(snapshot.dependents));
  }

  return {
    update,
    destroy() {
      root.remove();
    },
  };
}

// ---- the traversal --------------------------------------------------------------------

/**
 * The traversal's column: its answer, its cost, its depths.
 * @param {GtQuestion} q
 */
function traversalParts(q) {
  const tr = q.traversal;
  /** @type {HTMLElement[]} */
  const parts = [];
  const pattern = document.createElement("p");
  pattern.className = "gt-side-pattern";
  pattern.append(code(q.pattern));
  parts.push(pattern);
  if (q.query.mode === "ends") {
    parts.push(para(fmt(tn("%(n)s node reached:", "%(n)s nodes reached:", tr.end_count), { n: num(tr.end_count) })));
    /** @type {Map<number, string[]>} */
    const byDepth = new Map();
    for (const [name, depth] of tr.ends) {
      if (!byDepth.has(depth)) byDepth.set(depth, []);
      byDepth.get(depth)?.push(name);
    }
    const list = document.createElement("ul");
    list.className = "gt-ends";
    for (const [depth, names] of [...byDepth].sort((a, b) => a[0] - b[0])) {
      const li = document.createElement("li");
      const head = document.createElement("strong");
      head.textContent = fmt(tn("%(n)s edge away:", "%(n)s edges away:", depth), { n: num(depth) });
      const which = document.createElement("span");
      which.translate = false; // names of nodes
      which.textContent = namesText([...names].sort(), 60);
      li.append(head, " ", which);
      list.append(li);
    }
    parts.push(list);
    if (tr.end_count > tr.ends.length) parts.push(para(fmt(t("and %(n)s more"), { n: num(tr.end_count - tr.ends.length) })));
  } else if (!tr.path_count) {
    parts.push(para(t("No path fits the pattern.")));
  } else {
    parts.push(para(fmt(tn("%(n)s path fits:", "%(n)s paths fit:", tr.path_count), { n: num(tr.path_count) })));
    const list = document.createElement("ol");
    list.className = "gt-paths";
    for (const [stops, minutes] of tr.paths.slice(0, 20)) {
      const li = document.createElement("li");
      const where = document.createElement("span");
      where.className = "gt-path-stops";
      where.translate = false;
      where.textContent = pathText(stops);
      li.append(where);
      if (minutes !== null && minutes !== undefined) {
        const m = document.createElement("span");
        m.className = "gt-path-minutes";
        m.textContent = minutesText(minutes);
        li.append(" ", m);
      }
      list.append(li);
    }
    parts.push(list);
    const more = tr.path_count - Math.min(20, tr.paths.length);
    if (more > 0) parts.push(para(fmt(tn("and %(n)s more path", "and %(n)s more paths", more), { n: num(more) })));
  }
  parts.push(
    para(
      fmt(t("The traversal: %(read)s, each from the list of the node it stood on, and %(lookups)s to find the named nodes."), {
        read: edgesRead(tr.touched),
        lookups: lookupsText(tr.lookups),
      }),
      "gt-side-cost",
    ),
  );
  if (tr.revisits > 0) {
    parts.push(
      para(
        fmt(
          tn(
            "%(n)s path passes a node twice: Cypher allows it (no relationship is used twice), networkx's simple paths do not.",
            "%(n)s paths pass a node twice: Cypher allows them (no relationship is used twice), networkx's simple paths do not.",
            tr.revisits,
          ),
          { n: num(tr.revisits) },
        ),
        "gt-side-note",
      ),
    );
  }
  const rows = tr.depths.map((d) => [
    d.side === "end" ? fmt(t("%(depth)s, from the end"), { depth: num(d.depth) }) : num(d.depth),
    `${num(d.frontier_size)}: ${d.frontier.slice(0, 6).join(", ")}${d.frontier_size > 6 ? " …" : ""}`,
    num(d.touched),
    joinNames(OUTCOMES.filter((o) => d.counts[o]).map((o) => `${num(d.counts[o])} ${outcomeMark(o)} ${outcomeText(o)}`)),
  ]);
  if (rows.length) {
    parts.push(dataTable([t("Depth"), t("Frontier"), t("Edges read"), t("What happened")], rows, { wrapClass: "gt-table-wrap", codeColumns: [1] }));
  }
  return parts;
}

// ---- the SQL --------------------------------------------------------------------------

/**
 * The SQL's column: whether it agrees, the query, its rounds and its cost.
 * @param {GtQuestion} q
 * @param {RanOn | null} ranOn
 */
function sqlParts(q, ranOn) {
  const s = q.sql;
  /** @type {HTMLElement[]} */
  const parts = [];
  parts.push(para(agreementText(s.agrees), `gt-side-agree${s.agrees === false ? " is-different" : ""}`));
  if (ranOn) parts.push(para(fmt(t("Ran on %(engine)s."), { engine: ranOn.engine })));
  if (!s.path_check) parts.push(para(t("Run without its path check: UNION ALL, and nothing stops a path that goes round a cycle."), "gt-side-note"));
  if (s.stopped) {
    parts.push(
      para(`⚠ ${fmt(t("Stopped at the work limit of %(limit)s rows: the recursion had no end."), { limit: num(s.limit) })}`, "gt-side-stopped"),
    );
  }
  const pre = document.createElement("pre");
  pre.className = "gt-sql";
  pre.translate = false;
  const text = document.createElement("code");
  text.textContent = s.text;
  pre.append(text);
  parts.push(pre);
  if (ranOn?.plan.length) {
    const plan = document.createElement("details");
    plan.className = "gt-plan";
    const summary = document.createElement("summary");
    summary.textContent = t("Its query plan");
    const text = document.createElement("pre");
    text.className = "gt-sql";
    text.translate = false;
    text.textContent = ranOn.plan.join("\n");
    plan.append(summary, text);
    parts.push(plan);
  }
  const rounds = s.rounds ?? s.rows_per_round.length;
  parts.push(
    para(
      fmt(t("%(rows)s in %(rounds)s, %(answers)s."), {
        rows: rowsText(s.rows),
        rounds: fmt(tn("%(n)s round", "%(n)s rounds", rounds), { n: num(rounds) }),
        answers: fmt(tn("%(n)s answer", "%(n)s answers", s.answer_count), { n: num(s.answer_count) }),
      }),
    ),
  );
  parts.push(roundsChart(s));
  if (s.index) {
    parts.push(
      para(
        fmt(t("%(lookups)s, one for each row of the round before, each into the index of the whole table: %(lookups_n)s × log₂ %(rows)s rows ≈ %(n)s comparisons."), {
          lookups: lookupsText(s.lookups),
          lookups_n: num(s.lookups),
          rows: num(q.table_rows),
          n: num(s.comparisons),
        }),
        "gt-side-cost",
      ),
    );
  } else {
    parts.push(
      para(
        fmt(t("No index on the routes' origin: every round reads the whole table of %(rows)s rows, %(read)s rows read in all."), {
          rows: num(q.table_rows),
          read: num(s.rows_read),
        }),
        "gt-side-cost",
      ),
    );
  }
  return parts;
}

/**
 * Rows produced by each round, as horizontal bars with their numbers (lookups beside).
 * @param {GtSql} s
 */
function roundsChart(s) {
  const values = s.rows_per_round.slice(0, 24);
  const row = 20;
  const width = 320;
  const label = 70;
  const value = 64;
  const most = Math.max(1, ...values);
  const svg = document.createElementNS(SVG, "svg");
  svg.classList.add("gt-rounds-chart");
  svg.setAttribute("viewBox", `0 0 ${width} ${values.length * row + 4}`);
  svg.setAttribute("role", "img");
  svg.setAttribute(
    "aria-label",
    fmt(t("Rows produced per round: %(values)s"), { values: values.map((v) => num(v)).join(", ") + (s.rows_per_round.length > values.length ? " …" : "") }),
  );
  values.forEach((v, i) => {
    const y = i * row + 2;
    const name = document.createElementNS(SVG, "text");
    name.setAttribute("x", "0");
    name.setAttribute("y", String(y + row / 2));
    name.setAttribute("dy", "0.35em");
    name.setAttribute("class", "gt-rounds-label");
    name.textContent = fmt(t("round %(n)s"), { n: num(i + 1) });
    const bar = document.createElementNS(SVG, "rect");
    const w = Math.max(v ? 2 : 0, (v / most) * (width - label - value));
    bar.setAttribute("x", String(label));
    bar.setAttribute("y", String(y + 3));
    bar.setAttribute("width", String(w));
    bar.setAttribute("height", String(row - 7));
    bar.setAttribute("rx", "2");
    bar.setAttribute("class", "gt-round-bar");
    const count = document.createElementNS(SVG, "text");
    count.setAttribute("x", String(label + w + 4));
    count.setAttribute("y", String(y + row / 2));
    count.setAttribute("dy", "0.35em");
    count.setAttribute("class", "gt-rounds-value");
    count.textContent = num(v);
    svg.append(name, bar, count);
  });
  const wrap = document.createElement("figure");
  wrap.className = "gt-rounds";
  const caption = document.createElement("figcaption");
  const total = s.rounds ?? s.rows_per_round.length;
  caption.textContent =
    total > values.length
      ? fmt(t("Rows each round produced (the first %(n)s of %(total)s rounds)"), { n: num(values.length), total: num(total) })
      : t("Rows each round produced");
  wrap.append(caption, svg);
  const rounds = s.rows_per_round.map((rows, i) => [
    num(i + 1),
    num(rows),
    s.index ? num(s.lookups_per_round[i] ?? 0) : "–",
    s.index ? "–" : num(s.rows_read_per_round[i] ?? 0),
  ]);
  // the rounds in numbers too, when they are few (the bars have the rest)
  if (rounds.length && rounds.length <= 12) {
    wrap.append(dataTable([t("Round"), t("Rows produced"), t("Index lookups"), t("Rows read")], rounds, { wrapClass: "gt-table-wrap" }));
  }
  return wrap;
}

// ---- networkx -------------------------------------------------------------------------

/**
 * networkx's column: whether it agrees, its call, its answer.
 * @param {GtQuestion} q
 */
function networkxParts(q) {
  const n = q.networkx;
  /** @type {HTMLElement[]} */
  const parts = [];
  parts.push(para(agreementText(n.agrees), `gt-side-agree${n.agrees === false ? " is-different" : ""}`));
  const call = document.createElement("p");
  call.append(code(n.call));
  parts.push(call);
  parts.push(
    para(
      q.query.mode === "ends"
        ? fmt(tn("It answers %(n)s node.", "It answers %(n)s nodes.", n.answer_count), { n: num(n.answer_count) })
        : fmt(tn("It answers %(n)s path.", "It answers %(n)s paths.", n.answer_count), { n: num(n.answer_count) }),
    ),
  );
  if (n.simple_only) {
    parts.push(
      para(
        q.traversal.revisits > 0
          ? t("Its paths are simple: none passes a node twice, so it leaves out the paths that do, and is compared with the traversal's simple paths.")
          : t("Its paths are simple: none passes a node twice."),
        "gt-side-note",
      ),
    );
  }
  if (n.agrees === false && n.paths?.length) {
    const list = document.createElement("ol");
    list.className = "gt-paths";
    for (const stops of n.paths.slice(0, 10)) {
      const li = document.createElement("li");
      li.translate = false;
      li.textContent = pathText(stops);
      list.append(li);
    }
    parts.push(list);
  }
  return parts;
}

// ---- closures and dependents -----------------------------------------------------------

/**
 * The closure asked about: what it cuts, the table of closures, the trips cut.
 * @param {GtSnapshot} snapshot one with `closures`
 */
function closureParts(snapshot) {
  const c = /** @type {GtClosures} */ (snapshot.closures);
  const [, ends, through] = c.rows.find((r) => r[0] === c.node) ?? [c.node, 0, 0];
  /** @type {HTMLElement[]} */
  const parts = [];
  parts.push(
    para(
      c.ranked
        ? fmt(t("Closing %(node)s cuts the most: %(ends)s trips to or from it, and %(through)s between others that had no other way."), {
            node: c.node,
            ends: num(ends),
            through: num(through),
          })
        : fmt(t("%(node)s is closed: %(ends)s trips to or from it are gone, and %(through)s between others that had no other way."), {
            node: c.node,
            ends: num(ends),
            through: num(through),
          }),
    ),
  );
  parts.push(para(t("A trip here is a direct route or one with one stop."), "gt-side-note"));
  parts.push(
    dataTable(
      [t("Node"), t("Trips to or from it"), t("Trips only through it")],
      c.rows.map((r) => [r[0], num(r[1]), num(r[2])]),
      { wrapClass: "gt-table-wrap", codeColumns: [0] },
    ),
  );
  if (c.cut_count) {
    const shown = c.cut.slice(0, 30).map(([a, b]) => `${a} → ${b}`);
    const more = c.cut_count - shown.length;
    parts.push(
      para(
        fmt(tn("The trip only %(node)s joined (dashed on the drawing): %(pairs)s", "The %(n)s trips only %(node)s joined (dashed on the drawing): %(pairs)s", c.cut_count), {
          n: num(c.cut_count),
          node: c.node,
          pairs: more > 0 ? fmt(t("%(names)s and %(n)s more"), { names: joinNames(shown), n: num(more) }) : joinNames(shown),
        }),
      ),
    );
  }
  return parts;
}

/**
 * The services most depended on: `[service, dependents, direct dependents]` rows.
 * @param {[string, number, number][]} rows
 */
function dependentParts(rows) {
  /** @type {HTMLElement[]} */
  const parts = [];
  const [first, second] = rows;
  if (first) {
    parts.push(
      para(
        fmt(tn("%(name)s is the most depended on: %(n)s service stops if it stops.", "%(name)s is the most depended on: %(n)s services stop if it stops.", first[1]), {
          name: first[0],
          n: num(first[1]),
        }),
      ),
    );
  }
  if (first && second && first[1] === second[1]) {
    parts.push(
      para(
        fmt(t("%(first)s and %(second)s both have %(n)s dependents: %(first)s comes first by its %(direct)s direct dependents, against %(other)s."), {
          first: first[0],
          second: second[0],
          n: num(first[1]),
          direct: num(first[2]),
          other: num(second[2]),
        }),
      ),
    );
  }
  parts.push(
    dataTable(
      [t("Service"), t("Dependents"), t("Direct")],
      rows.map((r) => [r[0], num(r[1]), num(r[2])]),
      { wrapClass: "gt-table-wrap", codeColumns: [0] },
    ),
  );
  return parts;
}

// ---- small builders --------------------------------------------------------------------

/**
 * A part of the side panel: a heading and a body.
 * @param {string} engine
 * @param {string} title
 */
function section(engine, title) {
  const element = document.createElement("section");
  element.className = "gt-side-part";
  element.dataset.part = engine;
  const head = document.createElement("h2");
  head.textContent = title;
  const body = document.createElement("div");
  element.append(head, body);
  return { element, body };
}

/**
 * @param {string} text
 * @param {string} [className]
 */
function para(text, className = "") {
  const p = document.createElement("p");
  if (className) p.className = className;
  p.textContent = text;
  return p;
}

/** @param {string} text code, never translated */
function code(text) {
  const c = document.createElement("code");
  c.translate = false;
  c.textContent = text;
  return c;
}
