/**
 * What the last query returned, beside or under the stage: its SQL, how many shards,
 * index lookups and ranges it took, its rows (the departures board, the flights an
 * index found, and the one it missed); and the flights written since, with whether the
 * global index has them yet.
 */

import { fmt, num, t } from "../../i18n.js";
import { ms } from "./cluster.js";
import { dataTable } from "../../data-table.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { Flight, GatherSnapshot, Query } from "./types.js" */

const COLUMNS = () => [t("Flight"), t("From"), t("To"), t("Departs"), t("Aircraft"), t("Shard")];

/** @param {HTMLElement} parent */
export function createAnswer(parent) {
  const root = document.createElement("div");
  root.className = "sg-side";
  const answer = document.createElement("section");
  answer.className = "sg-answer";
  answer.dataset.spot = "answer";
  const head = document.createElement("h2");
  head.textContent = t("The last query");
  const sql = document.createElement("pre");
  sql.className = "sg-sql";
  sql.translate = false; // SQL is code, the same in every language
  const counts = document.createElement("p");
  counts.className = "sg-counts";
  const rows = document.createElement("div");
  rows.className = "sg-rows";
  answer.append(head, sql, counts, rows);
  const written = document.createElement("section");
  written.className = "sg-written";
  const writtenHead = document.createElement("h2");
  writtenHead.textContent = t("Flights written");
  const writtenBody = document.createElement("div");
  written.append(writtenHead, writtenBody);
  root.append(answer, written);
  parent.append(root);

  /** @param {Snapshot} given the lab's snapshot */
  function update(given) {
    const snapshot = /** @type {GatherSnapshot} */ (given);
    const query = snapshot.last_query;
    sql.textContent = query?.sql ?? "";
    sql.hidden = !query;
    counts.textContent = query
      ? fmt(t("%(asked)s of %(n)s shards asked · %(lookups)s index lookups · %(ranges)s ranges read · %(rows)s rows · answer after %(time)s"), {
          asked: num(query.shards_asked),
          n: num(snapshot.shard_count),
          lookups: num(query.index_lookups),
          ranges: num(query.ranges),
          rows: num(query.rows),
          time: ms(query.latency_us),
        })
      : t("No query yet: ask one with the controls.");
    rows.replaceChildren(...rowsOf(query));
    writtenBody.replaceChildren(writtenTable(snapshot.written));
    written.hidden = !snapshot.written.length;
  }

  return {
    update,
    destroy() {
      root.remove();
    },
  };
}

/**
 * What the last query returned, as elements: a table of flights, or the flights an index
 * found, or how many position reports.
 * @param {Query | null} query
 * @returns {HTMLElement[]}
 */
function rowsOf(query) {
  if (!query) return [];
  if (query.kind === "board" && query.board) return [flightTable(query.board)];
  if (query.kind === "by_key" && query.flight) return [flightTable([{ ...query.flight, shard: query.answers[0]?.shard }])];
  if (query.kind === "index") {
    const found = document.createElement("p");
    found.textContent = fmt(t("Flights found: %(ids)s"), {
      ids: query.flight_ids.length ? query.flight_ids.map((id) => num(id)).join(", ") : "–",
    });
    const out = [found];
    if (query.missed?.length) {
      const missed = document.createElement("p");
      missed.className = "sg-missed";
      missed.textContent = fmt(t("Missed, not in the global index yet: flight %(ids)s"), {
        ids: query.missed.map((id) => num(id)).join(", "),
      });
      out.push(missed);
    }
    return out;
  }
  if (query.kind === "aircraft_history") {
    const p = document.createElement("p");
    p.textContent = fmt(t("Position reports of %(aircraft)s from %(from)s to %(to)s: %(rows)s"), {
      aircraft: query.aircraft,
      from: query.from,
      to: query.to,
      rows: num(query.rows),
    });
    return [p];
  }
  return [];
}

/**
 * @param {string[]} head
 * @param {string[][]} rows
 */
function table(head, rows) {
  return dataTable(head, rows, { wrapClass: "sg-table-wrap" });
}

/** @param {Flight[]} flights a board, or the flight a query by key found */
function flightTable(flights) {
  return table(
    COLUMNS(),
    flights.map((f) => [f.number, f.origin, f.destination, f.departure_time, f.aircraft, String(f.shard ?? "")]),
  );
}

/** @param {Flight[]} flights the flights written, with their shard */
function writtenTable(flights) {
  return table(
    [...COLUMNS(), t("In the global index")],
    flights.map((f) => [f.number, f.origin, f.destination, f.departure_time, f.aircraft, String(f.shard), f.in_global_index ? t("yes") : t("not yet")]),
  );
}
