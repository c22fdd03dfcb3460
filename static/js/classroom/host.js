/**
 * The host's class panel: who drives (the host, everyone, or one student), who is
 * watching (names as text, each student removable: classroom/people.js), who may join
 * (the lobby, the class's size, clearing a flood: classroom/door.js), the links
 * (join link; host link with a warning), and the form that asks the class a question.
 */

import { fmt, t } from "../i18n.js";
import { copyButton, el } from "./dom.js";
import { createDoorCard } from "./door.js";
import { createPeopleList } from "./people.js";

/** @import { ClassInfo, Control, Door, DoorAnswer, LobbyMember, Member, Question, Removed, SendMessage } from "./types.js" */
/** @import { ServerError } from "../types.js" */

const MIN_CHOICES = 2;
const MAX_CHOICES = 8;

/**
 * Build the panel in `container`; `send(type, fields)` returns the message's ref.
 * @param {HTMLElement} container
 * @param {SendMessage} send
 */
export function createHostPanel(container, send) {
  /** @type {Map<string | null | undefined, HTMLElement>} */
  const refs = new Map(); // ref → the part whose error it is (looked up by any error's ref)
  /** @type {Member[]} */
  let members = [];
  /** @type {Set<string>} */
  const gone = new Set(); // members the host removed: the server refuses them for good
  /** @type {Control} */
  let control = { mode: "host", driver: null, driver_name: null };
  let links = { join: "", host: "" };

  // -- who drives -------------------------------------------------------------------
  const modeError = errorLine();
  const studentSelect = el("select", { attrs: { id: "class-driver" } });
  /** @type {Record<string, HTMLInputElement>} */
  const radios = {};
  const modeField = el("fieldset", { className: "mode-switch" });
  /** @type {{mode: Control["mode"], ref: string} | null} a choice sent, not yet answered */
  let pendingMode = null;
  modeField.append(el("legend", { text: t("Who drives") }));
  for (const [mode, words] of /** @type {[Control["mode"], string][]} */ ([
    ["host", t("I drive; students watch")],
    ["everyone", t("Everyone drives")],
    ["student", t("One student drives:")],
  ])) {
    const id = `class-mode-${mode}`;
    const input = el("input", { attrs: { type: "radio", name: "class-mode", id, value: mode } });
    input.addEventListener("change", () => choose(mode));
    radios[mode] = input;
    modeField.append(
      el("div", { className: "mode-option" }, input, el("label", { text: words, attrs: { for: id } })),
    );
  }
  const studentLabel = el("label", {
    className: "visually-hidden",
    text: t("The student who drives"),
    attrs: { for: "class-driver" },
  });
  const lastOption = /** @type {HTMLElement} */ (modeField.lastChild);
  lastOption.append(studentLabel, studentSelect);
  studentSelect.addEventListener("change", () => {
    if (radios.student.checked) choose("student");
  });
  modeField.append(modeError);

  /** @param {Control["mode"]} mode */
  function choose(mode) {
    pendingMode = null;
    let driver = null;
    if (mode === "student") {
      driver = studentSelect.value || null;
      if (!driver) {
        showError(modeError, t("Nobody has joined yet: wait for a student first."));
        reflect();
        return;
      }
    }
    modeError.hidden = true;
    const ref = send("control", { mode, driver });
    if (!ref) return;
    refs.set(ref, modeError);
    // the choice stays shown until the server answers it: a list of members arriving
    // meanwhile (a student joining) must not put the old mode back under the click
    pendingMode = { mode, ref };
  }

  // -- people, and who may join -----------------------------------------------------------
  const people = createPeopleList(send);
  const doorCard = createDoorCard(send);

  // -- links ---------------------------------------------------------------------------
  const joinText = el("code", { className: "link-text" });
  const joinCopy = copyButton(t("Copy the join link"), () => links.join);
  const hostField = el("input", {
    className: "host-link-field",
    attrs: { type: "text", readonly: true, "aria-label": t("Host link") },
  });
  hostField.hidden = true;
  const hostCopy = copyButton(t("Copy the host link"), () => links.host, {
    onFail() {
      hostField.value = links.host;
      hostField.hidden = false;
      hostField.select();
    },
  });
  const linksBox = el(
    "div",
    { className: "class-links" },
    el("h3", { text: t("Links") }),
    el("p", { className: "link-row" }, joinText),
    el("p", { className: "link-row" }, joinCopy.trigger, joinCopy.result),
    el(
      "details",
      { className: "host-link" },
      el("summary", { text: t("Host link (to run the class from another device)") }),
      el("p", {
        className: "warning",
        text: t(
          "Anyone with this link can run the class: keep it to yourself, never show it on the projector or send it to students.",
        ),
      }),
      el("p", { className: "link-row" }, hostCopy.trigger, hostCopy.result),
      hostField,
    ),
  );

  // -- ask ------------------------------------------------------------------------------
  const askError = errorLine();
  const askText = el("input", {
    attrs: { id: "ask-text", type: "text", maxlength: 300, autocomplete: "off" },
  });
  const kindChoice = el("input", { attrs: { type: "radio", name: "ask-kind", id: "ask-kind-choice", value: "choice", checked: true } });
  const kindNumber = el("input", { attrs: { type: "radio", name: "ask-kind", id: "ask-kind-number", value: "number" } });
  const choicesArea = el("textarea", { attrs: { id: "ask-choices", rows: 4 } });
  const choicesField = el(
    "div",
    { className: "field" },
    el("label", { text: t("Choices, one per line (2 to 8)"), attrs: { for: "ask-choices" } }),
    choicesArea,
  );
  const syncKind = () => {
    choicesField.hidden = kindNumber.checked;
  };
  kindChoice.addEventListener("change", syncKind);
  kindNumber.addEventListener("change", syncKind);
  const askForm = el(
    "form",
    { className: "ask-form", attrs: { novalidate: true } },
    el("h3", { text: t("Predict, then run") }),
    el(
      "p",
      { className: "help" },
      t("Ask before you act: students answer on their screens, then you show the answers beside what happened."),
    ),
    el(
      "div",
      { className: "field" },
      el("label", { text: t("Question"), attrs: { for: "ask-text" } }),
      askText,
    ),
    el(
      "fieldset",
      { className: "ask-kind" },
      el("legend", { text: t("Answers are") }),
      el("div", { className: "mode-option" }, kindChoice, el("label", { text: t("choices"), attrs: { for: "ask-kind-choice" } })),
      el("div", { className: "mode-option" }, kindNumber, el("label", { text: t("a number"), attrs: { for: "ask-kind-number" } })),
    ),
    choicesField,
    el("button", { className: "button", text: t("Ask the class"), attrs: { type: "submit" } }),
    askError,
  );
  askForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = askText.value.trim();
    if (!text) {
      showError(askError, t("Type the question first."));
      askText.focus();
      return;
    }
    let choices = null;
    if (kindChoice.checked) {
      choices = choicesArea.value
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
      if (choices.length < MIN_CHOICES || choices.length > MAX_CHOICES) {
        showError(askError, t("Give 2 to 8 choices, one per line."));
        choicesArea.focus();
        return;
      }
    }
    askError.hidden = true;
    const ref = send("ask", { text, choices });
    if (ref) refs.set(ref, askError);
  });

  container.replaceChildren(
    el("h2", { text: t("Run the class") }),
    el(
      "div",
      { className: "class-panel-grid" },
      el("div", { className: "class-card" }, modeField),
      el("div", { className: "class-card" }, askForm),
      el("div", { className: "class-card" }, people.element),
      el("div", { className: "class-card" }, doorCard.element),
      el("div", { className: "class-card" }, linksBox),
    ),
  );

  function reflect() {
    const shown = pendingMode?.mode ?? control.mode;
    for (const [mode, input] of Object.entries(radios)) input.checked = shown === mode;
    const students = members.filter((m) => m.role !== "host");
    const options = students.map((m) => new Option(m.name, m.id));
    if (control.mode === "student" && control.driver && !students.some((m) => m.id === control.driver)) {
      options.unshift(new Option(fmt(t("%(name)s (left)"), { name: control.driver_name ?? "?" }), control.driver));
    }
    const keep = control.mode === "student" ? control.driver : studentSelect.value;
    studentSelect.replaceChildren(...options);
    if (keep && options.some((o) => o.value === keep)) studentSelect.value = keep;
    studentSelect.disabled = options.length === 0;
  }

  function renderPeople() {
    people.update(members, control.mode === "student" ? control.driver : null);
  }

  const present = (/** @type {Member[]} */ list) => list.filter((m) => !gone.has(m.id));

  return {
    /**
     * The class as `role.class` or a host's `hello.class` describes it.
     * @param {Partial<ClassInfo>} info
     * @param {{joinUrl: string, hostUrl: string}} urls
     */
    setClass(info, { joinUrl, hostUrl }) {
      links = { join: joinUrl, host: hostUrl };
      joinText.textContent = joinUrl;
      hostField.value = "";
      hostField.hidden = true;
      if (info.control) {
        control = info.control;
        pendingMode = null; // a hello or a role: the server's state, whatever was sent
      }
      if (info.members) members = present(info.members);
      doorCard.setClass(info);
      reflect();
      renderPeople();
    },
    /** Who waits in the lobby (`lobby`), the size and switch (`door`), the question. */
    setLobby: (/** @type {LobbyMember[]} */ list) => doorCard.setLobby(list),
    setDoor: (/** @type {Door} */ door) => doorCard.setDoor(door),
    setQuestion: (/** @type {Question} */ question) => doorCard.setQuestion(question),
    /** `approved`, `turned_away` or `cleared`: the card says what happened. */
    done: (/** @type {DoorAnswer} */ message) => doorCard.done(message),
    /** @param {Control} next */
    setControl(next) {
      control = next;
      // the answer to our choice; one for an earlier choice (the server answers in
      // order) leaves ours shown until its own answer comes
      if (pendingMode?.mode === next.mode) pendingMode = null;
      reflect();
      renderPeople();
    },
    /** @param {Member[]} list */
    setMembers(list) {
      members = present(list);
      reflect();
      renderPeople();
    },
    /**
     * The server removed a member at our request (`removed`): off the list at once.
     * @param {Removed} message
     */
    removed(message) {
      gone.add(message.member);
      people.removed(message);
      members = present(members);
      reflect();
      renderPeople();
    },
    /** A question went out: clear the form for the next one. */
    asked() {
      askText.value = "";
      choicesArea.value = "";
    },
    /**
     * A refused class message of the panel's: said beside its part; false if not ours.
     * @param {ServerError} problem
     */
    showError(problem) {
      if (people.showError(problem) || doorCard.showError(problem)) return true;
      const line = refs.get(problem.ref);
      if (!line) return false;
      refs.delete(problem.ref);
      if (pendingMode?.ref === problem.ref) {
        pendingMode = null; // refused: the mode the server has is shown again
        reflect();
      }
      showError(line, fmt(t("Not applied: %(message)s"), { message: problem.message || problem.code }));
      return true;
    },
  };
}

function errorLine() {
  const line = el("p", { className: "form-error", attrs: { role: "alert" } });
  line.hidden = true;
  return line;
}

/**
 * @param {HTMLElement} line
 * @param {string} message
 */
function showError(line, message) {
  line.textContent = message;
  line.hidden = false;
}
