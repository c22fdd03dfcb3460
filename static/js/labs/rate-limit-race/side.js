/**
 * Beside or under the stage: each step of the way the clients count now (every command
 * in full, the Lua script too), the expiry pitfall and its two fixes side by side, and
 * the requests sent after the race.
 */

import { fmt, num, t } from "../../i18n.js";
import { outcomeMark, outcomeText, secs } from "./words.js";
import { dataTable } from "../../data-table.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { RaceSnapshot } from "./types.js" */

/** @param {HTMLElement} parent */
export function createSide(parent) {
  const root = document.createElement("div");
  root.className = "rlr-side";
  const program = section(t("How each client counts"));
  const modeLine = document.createElement("p");
  modeLine.className = "rlr-side-mode";
  const steps = document.createElement("ol");
  steps.className = "rlr-program";
  program.body.append(modeLine, steps);
  const expiry = section(t("Expiry: two commands, or one step"));
  expiry.body.append(expiryTable());
  const later = section(t("Requests after the race"));
  const laterText = document.createElement("p");
  const laterTable = document.createElement("div");
  laterTable.className = "rlr-table-wrap";
  later.body.append(laterText, laterTable);
  root.append(program.element, expiry.element, later.element);
  parent.append(root);

  /**
   * @param {Snapshot} state the lab's snapshot
   * @param {Record<string, string>} modes
   */
  function update(state, modes) {
    const view = /** @type {RaceSnapshot} */ (state);
    modeLine.textContent = fmt(t("Now: %(mode)s. Client A's steps:"), { mode: modes[view.mode] ?? view.mode });
    const first = view.clients[0];
    steps.replaceChildren(
      ...first.steps.map((step) => {
        const li = document.createElement("li");
        const code = document.createElement("pre");
        code.className = "rlr-program-command";
        code.translate = false;
        code.textContent = step.command ?? "—";
        const where = document.createElement("span");
        where.className = "rlr-program-where";
        where.textContent = [
          step.kind === "local" ? t("a check in the client, no command") : t("a command to Redis"),
          step.decides ? t("admits or refuses the request") : null,
          step.condition === "if_admitted" ? t("sent only if admitted") : null,
          step.condition === "if_first" ? t("sent only if INCR replied 1") : null,
        ]
          .filter(Boolean)
          .join(" · ");
        li.append(code, where);
        return li;
      }),
    );
    const counts = view.later;
    later.element.hidden = !counts.last.length;
    laterText.textContent = fmt(t("%(admitted)s admitted, %(refused)s refused; the last ones:"), {
      admitted: num(counts.admitted),
      refused: num(counts.refused),
    });
    laterTable.replaceChildren(
      table(
        [t("At"), t("Sent and replied"), t("Counter"), t("Outcome")],
        counts.last.map((r) => [
          secs(r.at_s),
          r.sent.map((s) => `${s.command.startsWith("EVAL") ? "EVAL …" : s.command} → ${s.reply}`).join("; "),
          r.count === null ? "–" : num(r.count),
          `${outcomeMark(r.admitted ? "admitted" : "refused")} ${outcomeText(r.admitted ? "admitted" : "refused")}`,
        ]),
      ),
    );
  }

  return {
    update,
    destroy() {
      root.remove();
    },
  };
}

/**
 * A part of the side panel: its heading, and the body to fill.
 * @param {string} title
 */
function section(title) {
  const element = document.createElement("section");
  element.className = "rlr-side-part";
  const head = document.createElement("h2");
  head.textContent = title;
  const body = document.createElement("div");
  element.append(head, body);
  return { element, body };
}

/** INCR then EXPIRE, a Lua script, SET … NX then INCR: what a crash between leaves. */
function expiryTable() {
  return table(
    [t("Way"), t("Commands"), t("A client dies after its first command")],
    [
      [t("INCR, then EXPIRE"), "INCR rate:user42; EXPIRE rate:user42 60", t("the key has no expiry: it counts for ever")],
      [t("A Lua script"), "EVAL \"…INCR…EXPIRE…\" 1 rate:user42 60", t("nothing to die between: one step")],
      [t("SET … NX, then INCR"), "SET rate:user42 0 EX 60 NX; INCR rate:user42", t("the key already expires in 60 s")],
    ],
    [1],
  );
}

/**
 * @param {string[]} head
 * @param {string[][]} rows
 * @param {number[]} [codeColumns] columns that hold commands (not translated)
 */
function table(head, rows, codeColumns = [1]) {
  return dataTable(head, rows, { wrapClass: "rlr-table-wrap", codeColumns });
}
