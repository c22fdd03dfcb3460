/**
 * The host's list of who is in the class: names (as text), the host and driving tags,
 * and "Remove" beside each student, confirmed in place ("Remove Ana? Yes, remove / No",
 * Escape cancels) before `remove_member` is sent. Rows are keyed by member id and only
 * a row that changed is drawn again, so a roster arriving mid-confirmation keeps the
 * keyboard where it was.
 */

import { fmt, num, t, tn } from "../i18n.js";
import { button, el } from "./dom.js";

/** @import { Member, Removed, SendMessage } from "./types.js" */
/** @import { ServerError } from "../types.js" */

/**
 * The list; `send(type, fields)` returns the message's ref.
 * @param {SendMessage} send
 */
export function createPeopleList(send) {
  const title = el("h3", { attrs: { id: "class-people-title", tabindex: "-1" } });
  const list = el("ul", { className: "people", attrs: { "aria-labelledby": "class-people-title" } });
  const said = el("p", { className: "people-status", attrs: { role: "status" } });
  const error = el("p", { className: "form-error", attrs: { role: "alert" } });
  error.hidden = true;
  /** @type {Map<string, HTMLLIElement>} */
  const rows = new Map(); // member id → its <li>
  /** @type {Map<string | null | undefined, Member>} */
  const removing = new Map(); // ref → the member being removed (looked up by any message's ref)
  /** @type {Member[]} */
  let members = [];
  /** @type {string | null | undefined} */
  let driver = null; // the driving student's id, if one drives
  /** @type {string | null} */
  let confirming = null; // the id whose removal waits for "Yes"

  const pending = (/** @type {string} */ id) => [...removing.values()].some((m) => m.id === id);

  /** @param {Member} member */
  function state(member) {
    if (pending(member.id)) return "removing";
    return confirming === member.id ? "confirming" : "idle";
  }

  /** @param {Member} member */
  function actions(member) {
    if (member.role === "host") return null;
    const name = member.name;
    if (state(member) === "removing") {
      return el("span", { className: "person-actions help", text: fmt(t("Removing %(name)s…"), { name }) });
    }
    if (state(member) === "idle") {
      const remove = button(t("Remove"), "button button-quiet person-remove", {
        "aria-label": fmt(t("Remove %(name)s"), { name }),
        "data-role": "remove",
      });
      remove.addEventListener("click", () => ask(member.id));
      return el("span", { className: "person-actions" }, remove);
    }
    const id = `remove-${member.id.replace(/[^\w-]/g, "")}`;
    const question = el("span", {
      className: "confirm-question",
      text: fmt(t("Remove %(name)s?"), { name }),
      attrs: { id: `${id}-question` },
    });
    const warning = el("span", {
      className: "confirm-warning",
      text: t("Their answers are deleted and they cannot join again."),
      attrs: { id: `${id}-warning` },
    });
    const yes = button(t("Yes, remove"), "button button-danger person-yes", {
      "aria-label": fmt(t("Yes, remove %(name)s"), { name }),
      "data-role": "yes",
    });
    const no = button(t("No"), "button button-quiet person-no", {
      "aria-label": fmt(t("No, keep %(name)s"), { name }),
      "data-role": "no",
    });
    yes.addEventListener("click", () => remove(member));
    no.addEventListener("click", () => cancel(member.id));
    const group = el(
      "span",
      {
        className: "person-actions person-confirm",
        attrs: {
          role: "group",
          tabindex: "-1",
          "aria-labelledby": question.id,
          "aria-describedby": warning.id,
          "data-role": "confirm",
        },
      },
      question,
      warning,
      el("span", { className: "confirm-buttons" }, yes, no),
    );
    group.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      cancel(member.id);
    });
    return group;
  }

  /**
   * @param {HTMLLIElement} item
   * @param {Member} member
   */
  function fill(item, member) {
    item.replaceChildren(el("span", { className: "person-name", text: member.name }));
    if (member.role === "host") item.append(el("span", { className: "tag", text: t("host") }));
    if (driver === member.id) item.append(el("span", { className: "tag is-driving", text: t("driving") }));
    const parts = actions(member);
    if (parts) item.append(parts);
  }

  /** Draw the rows that changed; focus `target` (a data-role in a member's row) after. */
  /**
   * Draw the list; `target` ([member id, data-role]) is the control to focus after.
   * @param {[string, string] | null} [target]
   */
  function render(target = null) {
    const active = /** @type {HTMLElement | null} */ (document.activeElement);
    const count = members.length;
    title.textContent = fmt(tn("%(n)s person here", "%(n)s people here", count), { n: num(count) });
    const wanted = new Set(members.map((m) => m.id));
    for (const [id, item] of rows) {
      if (wanted.has(id)) continue;
      item.remove();
      rows.delete(id);
    }
    members.forEach((member, index) => {
      let item = rows.get(member.id);
      if (!item) {
        item = el("li");
        item.dataset.member = member.id;
        rows.set(member.id, item);
      }
      const key = JSON.stringify([member.name, member.role, driver === member.id, state(member)]);
      if (item.dataset.key !== key) {
        const role = active && item.contains(active) ? active.dataset.role : null;
        item.dataset.key = key;
        fill(item, member);
        if (role) /** @type {HTMLElement | null} */ (item.querySelector(`[data-role="${role}"]`))?.focus();
      }
      if (list.children[index] !== item) list.insertBefore(item, list.children[index] ?? null);
    });
    if (target) {
      const [id, role] = target;
      (
        /** @type {HTMLElement | null | undefined} */ (rows.get(id)?.querySelector(`[data-role="${role}"]`)) ??
        title
      ).focus();
    } else if (active && !active.isConnected) {
      title.focus(); // the row that held the keyboard left
    } else if (active && document.activeElement !== active && list.contains(active)) {
      active.focus(); // a row moved under the keyboard
    }
  }

  /** @param {string} id */
  function ask(id) {
    confirming = id;
    error.hidden = true;
    render([id, "confirm"]);
  }

  /** @param {string} id */
  function cancel(id) {
    confirming = null;
    render([id, "remove"]);
  }

  /** @param {Member} member */
  function remove(member) {
    confirming = null;
    const ref = send("remove_member", { member: member.id });
    if (ref) removing.set(ref, member);
    said.textContent = "";
    render();
    title.focus(); // the row says "Removing…" and soon leaves: keep the keyboard in the card
  }

  return {
    element: el("div", { className: "people-card" }, title, list, said, error),
    /**
     * Show `next` (the roster, without anyone removed); `driving` is the driver's id.
     * @param {Member[]} next
     * @param {string | null | undefined} driving
     */
    update(next, driving) {
      members = next;
      driver = driving;
      if (confirming && !next.some((m) => m.id === confirming)) confirming = null;
      render();
    },
    /**
     * The server's `removed`: say so (the roster without them follows).
     * @param {Removed} message
     */
    removed(message) {
      const member = removing.get(message.ref) ?? members.find((m) => m.id === message.member);
      removing.delete(message.ref);
      said.textContent = fmt(t("%(name)s was removed from the class; their answers no longer count."), {
        name: member?.name ?? "?",
      });
    },
    /**
     * A refused removal: say why beside the list; false when the error is not ours.
     * @param {ServerError} problem
     */
    showError(problem) {
      const member = removing.get(problem.ref);
      if (!member) return false;
      removing.delete(problem.ref);
      error.textContent = fmt(t("Not removed: %(message)s"), {
        message: problem.message || problem.code,
      });
      error.hidden = false;
      render();
      return true;
    },
  };
}
