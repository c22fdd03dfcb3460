/**
 * The HTML around the drawing: the flight and the quorum, the two clients with their
 * buttons and answers, every copy as a table row, what the copies found when they met
 * after healing (and which bookings vanished), and the operations so far.
 */

import { fmt, joinNames, num, t, tn } from "../../i18n.js";
import {
  bookingText,
  cityOf,
  modeName,
  msText,
  resultText,
  ruleName,
  serverName,
  vvText,
} from "./words.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { Client, Conflict, Meeting, Operation, PartitionSnapshot } from "./types.js" */

/**
 * A client's card: its box, and the parts written again with each snapshot.
 * @typedef {{box: HTMLElement, title: HTMLElement, who: HTMLElement, answers: HTMLElement,
 *   error: HTMLElement}} ClientCard
 */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * @param {Node} node
 * @param {string} text
 */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/**
 * The flight line, the rule and what the number of copies tolerates.
 * @param {HTMLElement} container
 */
export function createHeader(container) {
  const box = el("div", "pc-header");
  const flight = el("p", "pc-flight");
  const rule = el("p", "pc-rule");
  const quorum = el("p", "pc-quorum");
  const agree = el("p", "pc-agree");
  agree.setAttribute("role", "status");
  box.append(flight, rule, quorum, agree);
  container.append(box);
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {PartitionSnapshot} */ (state);
      const f = snapshot.flight;
      setText(
        flight,
        fmt(t("Flight %(number)s, %(origin)s → %(destination)s at %(departure)s: one seat left when the story starts."), f),
      );
      setText(rule, fmt(t("When concurrent versions meet: %(rule)s."), { rule: ruleName(snapshot.rule) }));
      const q = snapshot.quorum;
      let text = fmt(
        t("%(copies)s copies: a majority is %(majority)s, so the row survives %(tolerates)s unreachable."),
        { copies: num(q.copies), majority: num(q.majority), tolerates: num(q.tolerates) },
      );
      if (q.even) {
        text += ` ${fmt(
          t("An even count adds nothing: %(copies)s copies tolerate %(tolerates)s failure, the same as %(odd)s, and a split into two equal halves leaves no majority on either side."),
          { copies: num(q.copies), tolerates: num(q.tolerates), odd: num(q.copies - 1) },
        )}`;
      }
      setText(quorum, text);
      quorum.classList.toggle("is-even", q.even);
      setText(
        agree,
        snapshot.converged ? t("Every copy holds the same versions.") : t("The copies disagree."),
      );
      box.dataset.converged = snapshot.converged ? "yes" : "no";
    },
  };
}

/**
 * One card per client: who, which server, the buttons, and the latest answers.
 * @param {HTMLElement} container
 * @param {(action: string, args: Record<string, unknown>, box: HTMLElement) => unknown} act
 *   sends an action from a client's card (`box`)
 * @param {{readOnly?: boolean}} [options]
 */
export function createClients(container, act, { readOnly = false } = {}) {
  const row = el("div", "pc-clients");
  container.append(row);
  /** @type {Map<string, ClientCard>} */
  const cards = new Map();

  /**
   * @param {Client} client
   * @returns {ClientCard}
   */
  function card(client) {
    const box = el("section", "pc-client");
    box.dataset.client = client.id;
    const title = el("h3");
    const who = el("p", "pc-who");
    const buttons = el("div", "pc-buttons");
    // each button says it in full, and in two words where a phone has no room for more
    // (its accessible name is the words shown)
    /**
     * @param {string} key
     * @param {string} label
     * @param {string} short
     * @param {string} action
     * @param {() => Record<string, unknown>} args
     */
    const make = (key, label, short, action, args) => {
      const button = el("button", "pc-act");
      button.append(el("span", "pc-act-long", label), el("span", "pc-act-short", short));
      // the visible words are its name (a screen reader and a voice user say what they
      // see); the full sentence is its description, and the tooltip a mouse shows
      button.title = label;
      button.type = "button";
      button.dataset.act = key;
      button.dataset.spot = `${client.id}-${key}`; // "tyo-book-anyway": for the tour
      button.addEventListener("click", () => act(action, args(), box));
      buttons.append(button);
    };
    make("book-majority", t("Book: refuse without a majority"), t("Book · majority"), "book", () => ({
      server: client.server,
      passenger: client.passenger,
      mode: "majority",
    }));
    make("book-anyway", t("Book: answer anyway"), t("Book · anyway"), "book", () => ({
      server: client.server,
      passenger: client.passenger,
      mode: "anyway",
    }));
    make("board-anyway", t("Departures board: answer anyway"), t("Board · anyway"), "board", () => ({
      node: client.server,
      mode: "anyway",
    }));
    make("board-majority", t("Departures board: majority"), t("Board · majority"), "board", () => ({
      node: client.server,
      mode: "majority",
    }));
    const error = el("p", "pc-error");
    error.setAttribute("role", "alert");
    error.hidden = true;
    buttons.hidden = readOnly; // a view that only shows offers nothing to press
    const answers = el("ol", "pc-answers");
    answers.setAttribute("aria-label", t("Answers this client received, newest first"));
    box.append(title, who, buttons, error, answers);
    row.append(box);
    return { box, title, who, answers, error };
  }

  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {PartitionSnapshot} */ (state);
      const clients = snapshot.clients ?? [];
      for (const [id, entry] of cards) {
        if (!clients.some((c) => c.id === id)) {
          entry.box.remove();
          cards.delete(id);
        }
      }
      for (const client of clients) {
        if (!cards.has(client.id)) cards.set(client.id, card(client));
        const entry = /** @type {ClientCard} */ (cards.get(client.id));
        setText(entry.title, fmt(t("Client in %(city)s"), { city: t(client.city) }));
        setText(
          entry.who,
          fmt(t("Passenger %(passenger)s, talks to server %(server)s."), {
            passenger: client.passenger,
            server: serverName(snapshot, client.server),
          }),
        );
        const mine = (snapshot.operations ?? [])
          .filter((op) => op.server === client.server)
          .slice(-4)
          .reverse();
        const items = d3items(entry.answers, mine);
        items.forEach(([li, op]) => fillAnswer(li, op));
      }
    },
    /**
     * Say a refusal on the card that sent it; false when no card did.
     * @param {unknown} box
     * @param {string} message
     */
    showError(box, message) {
      const entry = [...cards.values()].find((c) => c.box === box);
      if (!entry) return false;
      entry.error.textContent = fmt(t("Not applied: %(message)s"), { message });
      entry.error.hidden = false;
      return true;
    },
    clearErrors() {
      for (const entry of cards.values()) entry.error.hidden = true;
    },
  };
}

/**
 * Reuse list items in order; returns [li, datum] pairs.
 * @template T
 * @param {HTMLElement} list
 * @param {T[]} data
 * @param {"li" | "tr"} [tag]
 * @returns {[HTMLElement, T][]}
 */
function d3items(list, data, tag = "li") {
  // (the loops' conditions say there is a last child, and a child at each index)
  while (list.children.length > data.length) /** @type {Element} */ (list.lastElementChild).remove();
  while (list.children.length < data.length) list.append(el(tag));
  return data.map((d, i) => [/** @type {HTMLElement} */ (list.children[i]), d]);
}

/**
 * @param {HTMLElement} li
 * @param {Operation} op
 */
function fillAnswer(li, op) {
  li.dataset.op = String(op.id);
  li.dataset.result = op.result;
  li.dataset.action = op.action;
  const what =
    op.action === "book"
      ? fmt(t("#%(id)s book (%(mode)s)"), { id: op.id, mode: modeName(op.mode) })
      : fmt(t("#%(id)s board (%(mode)s)"), { id: op.id, mode: modeName(op.mode) });
  const marks = /** @type {Record<string, string>} */ ({ booked: "✓", answered: "✓", refused: "✕", failed: "✕", sold_out: "–" });
  const mark = marks[op.result] ?? "…";
  const text = `${mark} ${what}: ${resultText(op)}`;
  setText(li, text);
}

/**
 * Every copy as a row: seats, bookings, version vector, and notes.
 * @param {HTMLElement} container
 */
export function createCopies(container) {
  const wrap = el("div", "pc-copies-wrap");
  const table = el("table", "pc-copies");
  const caption = el("caption", "", t("The copies of flight 7's row"));
  const head = el("thead");
  const headRow = el("tr");
  for (const label of [t("Server"), t("Seats left"), t("Bookings"), t("Version vector"), t("Notes")]) {
    const th = el("th", "", label);
    th.scope = "col";
    headRow.append(th);
  }
  head.append(headRow);
  const body = el("tbody");
  table.append(caption, head, body);
  wrap.append(table);
  container.append(wrap);
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {PartitionSnapshot} */ (state);
      const rows = d3items(body, snapshot.copies, "tr");
      for (const [tr, copy] of rows) {
        tr.dataset.server = copy.server;
        tr.dataset.seats = String(copy.seats_remaining);
        tr.classList.toggle("is-down", !copy.up);
        tr.classList.toggle("is-conflicting", copy.conflicting);
        const bookings = copy.versions.map((v, i) => {
          const list = v.bookings.map((b) => bookingText(b)).join("; ") || t("none");
          return copy.versions.length > 1
            ? fmt(t("version %(n)s %(vv)s: %(list)s"), { n: i + 1, vv: vvText(v.vv), list })
            : list;
        });
        const notes = [];
        if (!copy.up) notes.push(t("stopped (its copy is kept on disk)"));
        if (copy.conflicting) {
          notes.push(fmt(t("%(n)s versions, marked conflicting"), { n: num(copy.versions.length) }));
        }
        if (copy.behind) notes.push(t("behind: another copy has writes this one has not seen"));
        if (copy.promised_to) notes.push(fmt(t("promised to booking #%(op)s"), { op: copy.promised_to }));
        const cells = [
          `${copy.server} · ${t(copy.city)}`,
          num(copy.seats_remaining),
          bookings.join(" / "),
          vvText(copy.vv),
          notes.join("; ") || "—",
        ];
        if (tr.children.length !== cells.length) {
          tr.innerHTML = "";
          const th = el("th");
          th.scope = "row";
          tr.append(th, ...cells.slice(1).map(() => el("td")));
        }
        cells.forEach((text, i) => setText(tr.children[i], text));
      }
    },
  };
}

/**
 * What the copies found when they met, the conflict verdicts, and vanished bookings.
 * @param {HTMLElement} container
 */
export function createVerdicts(container) {
  const box = el("section", "pc-verdicts");
  box.dataset.spot = "verdicts"; // a tour step points here (tour/spotlight.js)
  box.setAttribute("aria-label", t("After healing"));
  const title = el("h3", "", t("When the copies meet"));
  const vanished = el("div", "pc-vanished");
  vanished.hidden = true;
  const vanishedTitle = el("h4", "", t("Vanished bookings"));
  const vanishedList = el("ul");
  vanished.append(vanishedTitle, vanishedList);
  const conflicts = el("ul", "pc-conflicts");
  const meetings = el("ol", "pc-meetings");
  meetings.setAttribute("aria-label", t("Latest comparisons of version vectors"));
  const empty = el("p", "pc-empty", t("Nothing to compare yet: the copies compare their version vectors when a cut link heals or a stopped server restarts."));
  box.append(title, vanished, conflicts, meetings, empty);
  container.append(box);

  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {PartitionSnapshot} */ (state);
      const lost = snapshot.vanished ?? [];
      vanished.hidden = lost.length === 0;
      for (const [li, v] of d3items(vanishedList, lost)) {
        li.dataset.booking = v.booking;
        li.innerHTML = "";
        const tag = el("strong", "pc-vanished-tag", t("VANISHED"));
        const id = el("s", "pc-vanished-id", v.booking);
        const text = el(
          "span",
          "",
          fmt(
            t("%(passenger)s was told “booked” by %(server)s at %(booked)s. No copy holds this booking any more, and nobody was told: %(rule)s dropped it at %(at)s."),
            {
              passenger: v.passenger,
              server: serverName(snapshot, v.server),
              booked: msText(v.booked_ms),
              rule: ruleName(v.rule),
              at: msText(v.at_ms),
            },
          ),
        );
        li.append(tag, " ", id, " ", text);
      }
      for (const [li, c] of d3items(conflicts, snapshot.conflicts ?? [])) {
        li.dataset.verdict = c.verdict;
        li.dataset.rule = c.rule;
        setText(li, conflictText(snapshot, c));
      }
      const latest = (snapshot.meetings ?? []).slice(-6).reverse();
      for (const [li, m] of d3items(meetings, latest)) {
        li.dataset.verdict = m.verdict;
        setText(li, meetingText(snapshot, m));
      }
      empty.hidden = latest.length > 0 || (snapshot.conflicts ?? []).length > 0;
    },
  };
}

/**
 * @param {PartitionSnapshot} snapshot
 * @param {Conflict} c
 */
function conflictText(snapshot, c) {
  const vectors = c.vectors.map((v) => vvText(v)).join(t(" and "));
  const head = fmt(
    t("Conflict found on %(server)s: %(vectors)s are concurrent — neither copy had seen the other's write, so no order exists between them."),
    { server: serverName(snapshot, c.server), vectors },
  );
  let outcome;
  if (c.rule === "lww") {
    outcome = fmt(t("Last writer wins kept %(kept)s (the later timestamp; a tie goes to the later server letter) and dropped %(dropped)s, without an error to anyone."), {
      kept: joinNames(c.confirmed) || "—",
      dropped: joinNames(c.dropped) || "—",
    });
  } else if (c.rule === "app") {
    outcome = fmt(t("Application rule: both bookings kept; %(kept)s keeps the seat (booked first by its server's clock), %(standby)s goes to standby."), {
      kept: joinNames(c.confirmed) || "—",
      standby: joinNames(c.standby) || "—",
    });
  } else {
    outcome = fmt(t("Both versions kept as siblings: the next reader receives %(n)s versions, marked conflicting."), {
      n: num(c.siblings),
    });
  }
  return `${head} ${outcome}`;
}

/**
 * @param {PartitionSnapshot} snapshot
 * @param {Meeting} m
 */
function meetingText(snapshot, m) {
  const values = {
    at: msText(m.at_ms),
    server: cityOf(snapshot, m.server),
    other: cityOf(snapshot, m.from),
    mine: vvText(m.local),
    theirs: vvText(m.incoming),
  };
  if (m.verdict === "concurrent") {
    return fmt(t("%(at)s: %(server)s %(mine)s met %(other)s %(theirs)s: concurrent."), values);
  }
  if (m.verdict === "equal") {
    return fmt(t("%(at)s: %(server)s %(mine)s met %(other)s %(theirs)s: equal, nothing to do."), values);
  }
  return fmt(t("%(at)s: %(server)s %(mine)s met %(other)s %(theirs)s: ordered, %(newer)s is newer."), {
    ...values,
    newer: cityOf(snapshot, m.newer),
  });
}

/**
 * Every operation so far (the latest few), newest first.
 * @param {HTMLElement} container
 */
export function createOperations(container) {
  const box = el("section", "pc-ops");
  const title = el("h3", "", t("What the clients were told"));
  const list = el("ol", "pc-op-list");
  const more = el("p", "pc-more");
  box.append(title, list, more);
  container.append(box);
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {PartitionSnapshot} */ (state);
      const ops = (snapshot.operations ?? []).slice(-12).reverse();
      for (const [li, op] of d3items(list, ops)) {
        li.dataset.op = String(op.id);
        li.dataset.result = op.result;
        const when =
          op.complete_ms === null
            ? fmt(t("asked at %(at)s"), { at: msText(op.invoke_ms) })
            : fmt(t("%(invoke)s → %(complete)s"), {
                invoke: num(op.invoke_ms),
                complete: msText(op.complete_ms),
              });
        const who = serverName(snapshot, op.server);
        const what =
          op.action === "book"
            ? fmt(t("#%(id)s %(passenger)s books via %(server)s (%(mode)s)"), {
                id: op.id,
                passenger: op.passenger,
                server: who,
                mode: modeName(op.mode),
              })
            : fmt(t("#%(id)s departures board from %(server)s (%(mode)s)"), {
                id: op.id,
                server: who,
                mode: modeName(op.mode),
              });
        setText(li, `${what}, ${when}: ${resultText(op)}`);
      }
      const hidden = (snapshot.operation_count ?? 0) - ops.length;
      setText(
        more,
        hidden > 0 ? fmt(tn("and %(n)s earlier operation", "and %(n)s earlier operations", hidden), { n: num(hidden) }) : "",
      );
    },
  };
}
