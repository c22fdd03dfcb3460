/**
 * The host's "Who may join" card: who waits in the lobby (Let in / Turn away, or let
 * everyone in), the class's size and the "new students wait for my approval" switch,
 * and "Clear a flood": remove everyone who joined since the question opened (or in the
 * last few minutes) with their answers, confirmed in place first. Names are text only.
 */

import { fmt, num, t, tn } from "../i18n.js";
import { button, el } from "./dom.js";

/** @import { ClassInfo, Door, DoorAnswer, LobbyMember, Question, SendMessage } from "./types.js" */
/** @import { ServerError } from "../types.js" */

const SINCE_MINUTES = [2, 5, 15];

/**
 * The card; `send(type, fields)` returns the message's ref.
 * @param {SendMessage} send
 */
export function createDoorCard(send) {
  /** @type {Map<string | null | undefined, {what: string, person: LobbyMember | null}>} */
  const refs = new Map(); // ref → what it was (looked up by any message's ref)
  /** @type {LobbyMember[]} */
  let lobby = [];
  /** @type {Door} */
  let door = { size: 100, approval: false, most: 1200, version: 0 };
  /** @type {number | null} */
  let question = null; // the open question's number, if any
  let confirming = false;

  // -- the lobby ------------------------------------------------------------------------
  const lobbyTitle = el("h4", { className: "lobby-title", attrs: { id: "class-lobby-title", tabindex: "-1" } });
  const lobbyList = el("ul", { className: "lobby", attrs: { "aria-labelledby": "class-lobby-title" } });
  const everyone = button(t("Let everyone in"), "button lobby-all", { "data-role": "all" });
  everyone.addEventListener("click", () => act("approve", { all: true }, "approve"));
  const said = el("p", { className: "door-status", attrs: { role: "status" } });
  const error = el("p", { className: "form-error", attrs: { role: "alert" } });
  error.hidden = true;

  /** @param {LobbyMember} person */
  function lobbyRow(person) {
    const item = el("li", { attrs: { "data-member": person.id } });
    item.append(el("span", { className: "person-name", text: person.name }));
    if (person.flagged) {
      item.append(
        el("span", {
          className: "tag is-flagged",
          text: t("same network as someone removed"),
        }),
      );
    }
    const letIn = button(t("Let in"), "button person-approve", {
      "aria-label": fmt(t("Let %(name)s in"), { name: person.name }),
      "data-role": "approve",
    });
    const away = button(t("Turn away"), "button button-quiet person-away", {
      "aria-label": fmt(t("Turn %(name)s away"), { name: person.name }),
      "data-role": "away",
    });
    letIn.addEventListener("click", () => act("approve", { member: person.id }, "approve", person));
    away.addEventListener("click", () => act("turn_away", { member: person.id }, "away", person));
    item.append(el("span", { className: "person-actions" }, letIn, away));
    return item;
  }

  function renderLobby() {
    const active = /** @type {HTMLElement | null} */ (document.activeElement);
    const hadFocus = active && lobbyList.contains(active);
    const count = lobby.length;
    lobbyTitle.textContent =
      count === 0
        ? t("Nobody is waiting to join")
        : fmt(tn("%(n)s waiting to join", "%(n)s waiting to join", count), { n: num(count) });
    lobbyList.replaceChildren(...lobby.map(lobbyRow));
    lobbyList.hidden = count === 0;
    everyone.hidden = count < 2;
    if (hadFocus) {
      // the row that held the keyboard may be gone: the next one's "Let in", or the title
      const next = /** @type {HTMLElement | null} */ (lobbyList.querySelector('[data-role="approve"]'));
      (next ?? lobbyTitle).focus();
    }
  }

  // -- size and approval -------------------------------------------------------------------
  const sizeInput = el("input", {
    attrs: { id: "class-size", type: "number", min: 1, step: 1, inputmode: "numeric" },
  });
  const approval = el("input", { attrs: { id: "class-approval", type: "checkbox" } });
  approval.addEventListener("change", () => act("door", { approval: approval.checked }, "door"));
  const settingsForm = el(
    "form",
    { className: "door-form", attrs: { novalidate: true } },
    el(
      "div",
      { className: "field door-size" },
      el("label", { text: t("Class size (people at once)"), attrs: { for: "class-size" } }),
      el("span", { className: "door-size-row" }, sizeInput, el("button", {
        className: "button button-quiet",
        text: t("Set the size"),
        attrs: { type: "submit" },
      })),
    ),
    el(
      "div",
      { className: "mode-option" },
      approval,
      el("label", { text: t("New students wait for my approval"), attrs: { for: "class-approval" } }),
    ),
  );
  settingsForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const size = Number(sizeInput.value);
    if (!Number.isInteger(size) || size < 1 || size > door.most) {
      showError(fmt(t("The size is a whole number from 1 to %(most)s."), { most: num(door.most) }));
      sizeInput.focus();
      return;
    }
    act("door", { size }, "door");
  });

  // -- clear a flood ----------------------------------------------------------------------
  const sinceSelect = el("select", { attrs: { id: "class-clear-since" } });
  const clearButton = button(t("Remove them…"), "button button-quiet clear-button", { "data-role": "clear" });
  const confirmBox = el("div", {
    className: "person-confirm clear-confirm",
    attrs: { role: "group", tabindex: "-1", "aria-labelledby": "clear-question" },
  });
  confirmBox.hidden = true;
  clearButton.addEventListener("click", () => {
    confirming = true;
    renderClear();
    confirmBox.focus();
  });
  confirmBox.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    cancelClear();
  });
  const clearBox = el(
    "div",
    { className: "clear-flood" },
    el("h4", { text: t("Clear a flood") }),
    el("p", {
      className: "help",
      text: t("Removes everyone who joined since then, with their answers. Students you let in stay."),
    }),
    el(
      "div",
      { className: "field" },
      el("label", { text: t("Who joined"), attrs: { for: "class-clear-since" } }),
      sinceSelect,
    ),
    clearButton,
    confirmBox,
  );

  function sinceChoice() {
    const value = sinceSelect.value;
    if (value === "question") return { fields: { question }, words: t("since the question opened") };
    const minutes = Number(value);
    return {
      fields: { minutes },
      words: fmt(tn("in the last %(n)s minute", "in the last %(n)s minutes", minutes), { n: num(minutes) }),
    };
  }

  function renderSince() {
    const keep = sinceSelect.value;
    const options = [];
    if (question !== null) options.push(new Option(t("since the question opened"), "question"));
    for (const minutes of SINCE_MINUTES) {
      options.push(
        new Option(fmt(tn("in the last %(n)s minute", "in the last %(n)s minutes", minutes), { n: num(minutes) }), String(minutes)),
      );
    }
    sinceSelect.replaceChildren(...options);
    if (options.some((o) => o.value === keep)) sinceSelect.value = keep;
  }

  function renderClear() {
    clearButton.hidden = confirming;
    confirmBox.hidden = !confirming;
    if (!confirming) {
      confirmBox.replaceChildren();
      return;
    }
    const { words } = sinceChoice();
    const yes = button(t("Yes, remove them"), "button button-danger", { "data-role": "yes" });
    const no = button(t("No"), "button button-quiet", { "data-role": "no" });
    yes.addEventListener("click", () => {
      const { fields } = sinceChoice();
      confirming = false;
      renderClear();
      act("clear", fields, "clear");
      clearButton.focus();
    });
    no.addEventListener("click", cancelClear);
    confirmBox.replaceChildren(
      el("span", {
        className: "confirm-question",
        text: fmt(t("Remove everyone who joined %(since)s?"), { since: words }),
        attrs: { id: "clear-question" },
      }),
      el("span", {
        className: "confirm-warning",
        text: t("Their answers are deleted, and they cannot join again without your approval."),
      }),
      el("span", { className: "confirm-buttons" }, yes, no),
    );
  }

  function cancelClear() {
    confirming = false;
    renderClear();
    clearButton.focus();
  }

  // -- sending and answers ---------------------------------------------------------------
  /**
   * Send `type`; its answer or refusal is said as `what` ("approve", "away", "door",
   * "clear"), about `person` when it is one.
   * @param {string} type
   * @param {Record<string, unknown>} fields
   * @param {string} what
   * @param {LobbyMember | null} [person]
   */
  function act(type, fields, what, person = null) {
    error.hidden = true;
    said.textContent = "";
    const ref = send(type, fields);
    if (ref) refs.set(ref, { what, person });
  }

  /** @param {string} message */
  function showError(message) {
    error.textContent = message;
    error.hidden = false;
  }

  function reflectDoor() {
    if (document.activeElement !== sizeInput) sizeInput.value = String(door.size);
    sizeInput.max = String(door.most);
    approval.checked = Boolean(door.approval);
  }

  const element = el(
    "div",
    { className: "door-card" },
    el("h3", { text: t("Who may join") }),
    settingsForm,
    lobbyTitle,
    lobbyList,
    everyone,
    said,
    error,
    clearBox,
  );
  renderLobby();
  renderSince();
  renderClear();
  reflectDoor();

  return {
    element,
    /**
     * `hello.class` / `role.class` of a host: {lobby, door, question}.
     * @param {Partial<ClassInfo>} info
     */
    setClass(info) {
      if (info.door) door = info.door;
      if (info.lobby) lobby = info.lobby;
      question = info.question && !info.question.revealed ? info.question.number : null;
      reflectDoor();
      renderLobby();
      renderSince();
    },
    /** @param {LobbyMember[]} list */
    setLobby(list) {
      lobby = list;
      renderLobby();
    },
    /** @param {Door} next */
    setDoor(next) {
      door = next;
      reflectDoor();
      said.textContent = next.approval
        ? fmt(t("Class size %(size)s; new students wait for your approval."), { size: num(next.size) })
        : fmt(t("Class size %(size)s; anyone with the code joins."), { size: num(next.size) });
    },
    /** @param {Question} message */
    setQuestion(message) {
      const opened = !message.revealed && message.number !== question;
      question = message.revealed ? null : message.number;
      renderSince();
      if (opened) sinceSelect.value = "question"; // a new question: the likely flood
    },
    /**
     * The server's `approved`, `turned_away` or `cleared`: say what happened.
     * @param {DoorAnswer} message
     */
    done(message) {
      const asked = refs.get(message.ref);
      refs.delete(message.ref);
      if (message.type === "approved") {
        const n = message.members.length;
        said.textContent = fmt(tn("%(n)s student let in.", "%(n)s students let in.", n), { n: num(n) });
      } else if (message.type === "turned_away") {
        said.textContent = fmt(t("%(name)s was turned away."), { name: asked?.person?.name ?? "?" });
      } else if (message.type === "cleared") {
        const n = message.members.length;
        said.textContent =
          n === 0
            ? t("Nobody joined since then: nobody was removed.")
            : fmt(tn("%(n)s person removed, with their answers.", "%(n)s people removed, with their answers.", n), {
                n: num(n),
              });
      }
    },
    /**
     * A refused door, lobby or clear message: said in the card; false if not ours.
     * @param {ServerError} problem
     */
    showError(problem) {
      if (!refs.has(problem.ref)) return false;
      refs.delete(problem.ref);
      showError(fmt(t("Not applied: %(message)s"), { message: problem.message || problem.code }));
      reflectDoor();
      return true;
    },
  };
}
