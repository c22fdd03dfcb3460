/**
 * The control panel, built from a lab's declared actions: one small form per action.
 * It sends what the user typed (the server validates) and shows the server's error next
 * to the form that caused it, matched by the action's ref.
 */

import { fmt, t } from "./i18n.js";
import { fieldFor } from "./fields.js";

/** @import { Field } from "./fields.js" */
/** @import { Action, Declaration, Send, ServerError, Snapshot } from "./types.js" */

/**
 * One action's form.
 * @typedef {object} ActionForm
 * @property {HTMLFormElement} element
 * @property {Field[]} fields
 * @property {HTMLElement} error
 * @property {HTMLButtonElement} button
 * @property {Action} action
 */

/**
 * The control panel (createControls).
 * @typedef {object} Controls
 * @property {(snapshot: Snapshot) => void} refresh follow the snapshot (lists, values in force)
 * @property {(ref: string | null | undefined) => void} acknowledge the server applied `ref`
 * @property {(error: ServerError) => boolean} showError false when no form of ours sent it
 * @property {(reason: string | null) => void} setLocked off with the reason, or on with null
 * @property {(enabled: boolean) => void} setEnabled
 */

/**
 * Build the panel inside `container`; `send(action, args)` must return the ref used.
 * Actions the lab marks `primary` go to `quick` instead (a bar beside the drawing), so
 * the commonest clicks need no scrolling on a projector or a phone. Actions in the group
 * "timeline" belong to the playback bar (timeline.js) and "clock" ones to the room, so
 * neither is shown here; "drawing" actions (cut a link, stop a node, split...) are done by
 * clicking the drawing, and are offered here too, under their own heading, so that
 * everything can be done with a keyboard or a screen reader.
 * @param {HTMLElement} container
 * @param {Declaration} declaration
 * @param {Send} send
 * @param {{quick?: HTMLElement | null}} [options]
 * @returns {Controls}
 */
export function createControls(container, declaration, send, { quick = null } = {}) {
  /** @type {Map<string | null | undefined, ActionForm>} by the ref of the action it sent */
  const formsByRef = new Map();
  /** @type {string | null} */
  let locked = null; // why the controls are off (a class someone else drives), or null
  const forms = declaration.actions.filter(inPanel).map((action) => buildForm(action));
  const inQuick = (/** @type {ActionForm} */ form) => quick && form.action.primary;
  const drawing = (/** @type {ActionForm} */ form) => form.action.group === "drawing";
  const panel = forms.filter((f) => !inQuick(f));
  container.replaceChildren(
    ...group("settings", t("Settings and more"), panel.filter((f) => !drawing(f))),
    ...group("drawing", t("Faults: also by clicking the drawing"), panel.filter(drawing)),
  );
  quick?.replaceChildren(...forms.filter(inQuick).map((f) => f.element));
  if (quick) quick.hidden = !forms.some(inQuick);
  const places = [container, quick].filter((place) => place !== null);
  const notes = places.map((place) => lockNote(place));

  /**
   * @param {Action} action
   * @returns {ActionForm}
   */
  function buildForm(action) {
    const element = document.createElement("form");
    element.className = action.primary && quick ? "action-form is-quick" : "action-form";
    element.noValidate = true;
    element.dataset.action = action.name;
    const fields = action.params.map((param) => fieldFor(param, action.name));
    const button = document.createElement("button");
    button.type = "submit";
    button.className = "button";
    button.textContent = action.label;
    const error = document.createElement("p");
    error.className = "form-error";
    error.id = `error-${action.name}`;
    error.setAttribute("role", "alert");
    error.hidden = true;
    element.append(...fields.map((f) => f.element));
    element.append(button);
    if (action.help) element.append(helpText(action.help, `help-${action.name}`));
    element.append(error);
    button.setAttribute("aria-describedby", error.id);
    const form = { element, fields, error, button, action };
    element.addEventListener("submit", (event) => {
      event.preventDefault();
      submit(form);
    });
    if (isToggle(action)) makeToggle(form);
    return form;
  }

  /**
   * An action whose one argument is on/off (read repair, hinted handoff) is a switch
   * named by the action, acting when it is toggled: no separate button to press.
   */
  /** @param {ActionForm} form */
  function makeToggle(form) {
    const { element } = form;
    const input = /** @type {HTMLInputElement} */ (element.querySelector("input[type=checkbox]"));
    const label = /** @type {HTMLLabelElement} */ (element.querySelector(`label[for="${input.id}"]`));
    input.setAttribute("role", "switch");
    label.textContent = form.action.label;
    form.button.hidden = true;
    form.element.classList.add("is-toggle");
    input.addEventListener("change", () => {
      if (locked) input.checked = !input.checked; // someone else drives: undo
      else submit(form);
    });
  }

  /** @param {ActionForm} form */
  function submit(form) {
    if (locked) return;
    /** @type {Record<string, unknown>} */
    const args = {};
    for (const field of form.fields) args[field.name] = field.value();
    clearError(form);
    form.element.classList.add("is-pending");
    const ref = send(form.action.name, args);
    if (ref) formsByRef.set(ref, form);
  }

  return {
    /** Refresh inputs that offer snapshot lists (e.g. the current shards). */
    refresh(snapshot) {
      for (const form of forms) for (const field of form.fields) field.refresh?.(snapshot);
    },
    /** The server applied our action `ref`: clear that form's pending state and error. */
    acknowledge(ref) {
      const form = formsByRef.get(ref);
      if (!form) return;
      formsByRef.delete(ref);
      form.element.classList.remove("is-pending");
      // something worked: earlier refusals, of this form or another, are old news
      for (const other of forms) clearError(other);
      // applied: fields that follow the state show it again (a refused form keeps
      // what the user typed, to correct it)
      for (const field of form.fields) field.settle?.();
    },
    /** Show a server error next to the form whose action carried `error.ref`. */
    showError(error) {
      const form = formsByRef.get(error.ref);
      if (!form) return false;
      formsByRef.delete(error.ref);
      form.element.classList.remove("is-pending");
      form.error.textContent = describeError(error);
      form.error.hidden = false;
      const field = form.fields.find((f) => f.name === error.field);
      field?.markInvalid(form.error.id);
      return true;
    },
    /**
     * Show every control as off with the reason (`aria-disabled`, so each keeps its focus
     * and says why), or on again with null: a class member while someone else drives.
     */
    setLocked(reason) {
      locked = reason || null;
      for (const note of notes) {
        note.textContent = locked ?? "";
        note.hidden = !locked;
      }
      for (const form of forms) {
        form.element.classList.toggle("is-locked", Boolean(locked));
        if (locked) {
          form.button.setAttribute("aria-disabled", "true");
          const note = inQuick(form) ? notes[notes.length - 1] : notes[0];
          form.button.setAttribute("aria-describedby", `${form.error.id} ${note.id}`);
        } else {
          form.button.removeAttribute("aria-disabled");
          form.button.setAttribute("aria-describedby", form.error.id);
        }
      }
    },
    /** Disable or enable every control (e.g. while disconnected); forget pending actions. */
    setEnabled(enabled) {
      for (const form of forms) {
        form.button.disabled = !enabled;
        if (!enabled) form.element.classList.remove("is-pending");
      }
      if (!enabled) formsByRef.clear();
    },
  };
}

const NOT_IN_PANEL = new Set(["timeline", "clock"]);

/**
 * Whether an action takes one on/off argument and nothing else.
 * @param {Action} action
 */
function isToggle(action) {
  return action.params.length === 1 && action.params[0].kind === "bool";
}

/**
 * Whether an action has a form in the panel (or the quick bar).
 * @param {Action} action
 */
function inPanel(action) {
  return !NOT_IN_PANEL.has(action.group ?? "");
}

/**
 * A collapsible group of the panel (nothing when it has no forms): open where the rail
 * has room beside the stage, closed on a phone, where the panel sits under the stage.
 * The drawing's actions (cut a link, stop a node...) have a group of their own.
 * @param {string} name
 * @param {string} title
 * @param {ActionForm[]} forms
 * @returns {HTMLElement[]}
 */
function group(name, title, forms) {
  if (!forms.length) return [];
  const details = document.createElement("details");
  details.className = "controls-group";
  details.dataset.group = name;
  details.open = window.matchMedia?.("(min-width: 900px)").matches ?? true;
  const summary = document.createElement("summary");
  summary.id = `controls-${name}-title`;
  summary.textContent = title;
  const grid = document.createElement("div");
  grid.className = "controls";
  grid.append(...forms.map((f) => f.element));
  details.append(summary, grid);
  return [details];
}

/**
 * The line that says why the controls are off, first in `place` (hidden until needed).
 * @param {HTMLElement} place
 */
function lockNote(place) {
  const note = document.createElement("p");
  note.className = "locked-note";
  note.id = `locked-note-${place.id || "panel"}`;
  note.hidden = true;
  place.prepend(note);
  return note;
}

/** @param {ActionForm} form */
function clearError(form) {
  form.error.hidden = true;
  form.error.textContent = "";
  for (const field of form.fields) field.markValid();
}

/** @param {ServerError} error */
function describeError(error) {
  const message = error.message || error.code || t("That did not work.");
  return fmt(t("Not applied: %(message)s"), { message });
}

/**
 * @param {string} text
 * @param {string} id
 */
function helpText(text, id) {
  const help = document.createElement("p");
  help.className = "help";
  help.id = id;
  help.textContent = text;
  return help;
}
