/**
 * One input per declared parameter kind (int, choice, text, bool). Each field reports the
 * value the user chose, keeping JSON types: ints stay ints, a choice keeps its value's type.
 */

import { fmt, num, t } from "./i18n.js";

/** @import { ChoiceParam, IntParam, Param, Snapshot, TextParam } from "./types.js" */

/**
 * One parameter's field in an action's form.
 * @typedef {object} Field
 * @property {string} name the parameter's name
 * @property {HTMLElement} element
 * @property {() => unknown} value what the user chose, in its JSON type
 * @property {(snapshot: Snapshot) => void} refresh follow the snapshot (lists, the value in force)
 * @property {() => void} settle the form was sent: show the value in force again
 * @property {(errorId: string) => void} markInvalid
 * @property {() => void} markValid
 */

/**
 * The input of one kind, before its label and help are put around it.
 * @typedef {object} Input
 * @property {HTMLInputElement | HTMLSelectElement} input
 * @property {() => unknown} value
 * @property {HTMLElement | null} [extra] shown after the input (preset chips)
 * @property {((snapshot: Snapshot) => void) | null} [refresh]
 */

/**
 * A field for `param` of action `actionName`: {name, element, value(), markInvalid, ...}.
 * @param {Param} param
 * @param {string} actionName
 * @returns {Field}
 */
export function fieldFor(param, actionName) {
  const id = `field-${actionName}-${param.name}`;
  const build = BUILDERS[param.kind] ?? textField;
  const field = build(param, id);
  const wrapper = document.createElement("div");
  wrapper.className = `field field-${param.kind}`;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = param.label;
  if (param.kind === "bool") wrapper.append(field.input, label);
  else wrapper.append(label, field.input);
  if (field.extra) wrapper.append(field.extra);
  if (param.help) {
    const help = document.createElement("p");
    help.className = "help";
    help.id = `${id}-help`;
    help.textContent = param.help;
    field.input.setAttribute("aria-describedby", help.id);
    wrapper.append(help);
  }
  const follow = param.current ? followCurrent(param.current, param, field) : null;
  return {
    name: param.name,
    element: wrapper,
    value: field.value,
    refresh(snapshot) {
      field.refresh?.(snapshot);
      follow?.(snapshot);
    },
    /** The form was sent: show the value in force again from the next frame on. */
    settle() {
      delete field.input.dataset.edited;
    },
    markInvalid(errorId) {
      field.input.setAttribute("aria-invalid", "true");
      field.input.setAttribute("aria-errormessage", errorId);
    },
    markValid() {
      field.input.removeAttribute("aria-invalid");
      field.input.removeAttribute("aria-errormessage");
    },
  };
}

/**
 * A field whose parameter names `current` (a dotted path into the snapshot) shows the
 * value in force, e.g. the W and R a lab is set to, until the user changes the field;
 * sending the form (`settle`) lets it follow the snapshot again.
 * @param {string} path `param.current`
 * @param {Param} param
 * @param {Input} field
 * @returns {(snapshot: Snapshot) => void}
 */
function followCurrent(path, param, field) {
  const input = field.input;
  input.addEventListener("input", () => {
    input.dataset.edited = "1";
  });
  return (snapshot) => {
    if (input.dataset.edited || document.activeElement === input) return;
    /** @type {any} */
    let value = snapshot;
    for (const part of path.split(".")) value = value?.[part];
    if (value === undefined || value === null) return;
    if (param.kind === "choice" && input instanceof HTMLSelectElement) {
      const index = param.choices.findIndex((c) => c.value === value);
      if (index >= 0 && input.selectedIndex !== index) input.selectedIndex = index;
    } else if (param.kind === "bool" && input instanceof HTMLInputElement) {
      input.checked = Boolean(value);
    } else if (input.value !== String(value)) {
      input.value = String(value);
    }
  };
}

/**
 * @param {IntParam} param
 * @param {string} id
 * @returns {Input}
 */
function intField(param, id) {
  const input = document.createElement("input");
  input.type = "number";
  input.id = input.name = id;
  input.inputMode = "numeric";
  input.step = "1";
  if (param.min !== undefined) input.min = String(param.min);
  if (param.max !== undefined) input.max = String(param.max);
  if (param.default !== undefined) input.value = String(param.default);
  const extra = param.presets?.length ? presetChips(param.label, param.presets, input) : null;
  return { input, extra, value: () => parseTyped(input.value) };
}

/**
 * What the user typed: an integer when it reads as one, else the raw text.
 * @param {string} raw
 */
function parseTyped(raw) {
  const text = raw.trim();
  if (/^[-+]?\d+$/.test(text)) return Number.parseInt(text, 10);
  if (text !== "" && Number.isFinite(Number(text))) return Number(text);
  return text;
}

/**
 * Chips that put one of `presets` in `input` (the field labelled `label`).
 * @param {string} label
 * @param {number[]} presets
 * @param {HTMLInputElement} input
 */
function presetChips(label, presets, input) {
  const group = document.createElement("div");
  group.className = "presets";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", fmt(t("Quick values for %(label)s"), { label }));
  const chips = presets.map((preset) => {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "chip";
    chip.textContent = num(preset);
    chip.addEventListener("click", () => {
      input.value = String(preset);
      sync();
    });
    return { chip, preset };
  });
  function sync() {
    for (const { chip, preset } of chips) {
      chip.setAttribute("aria-pressed", String(input.value === String(preset)));
    }
  }
  input.addEventListener("input", sync);
  sync();
  group.append(...chips.map((c) => c.chip));
  return group;
}

/**
 * @param {ChoiceParam} param
 * @param {string} id
 * @returns {Input}
 */
function choiceField(param, id) {
  const input = document.createElement("select");
  input.id = input.name = id;
  param.choices.forEach((choice, index) => {
    const option = new Option(choice.label, String(index));
    option.selected = choice.value === param.default;
    input.append(option);
  });
  const refresh =
    param.most || param.least
      ? (/** @type {Snapshot} */ snapshot) => offerPossible(param, input, snapshot)
      : null;
  return { input, refresh, value: () => param.choices[input.selectedIndex]?.value };
}

/**
 * The number at a dotted path of the snapshot, or null.
 * @param {Snapshot} snapshot
 * @param {string | undefined} path
 * @returns {number | null}
 */
function numberAt(snapshot, path) {
  if (!path) return null;
  /** @type {any} */
  let value = snapshot;
  for (const part of path.split(".")) value = value?.[part];
  return typeof value === "number" ? value : null;
}

/**
 * A choice whose parameter names `most` (a dotted path to a number in the snapshot)
 * offers no numeric choice above it: R of 4 or 5 is not offered while N is 3; one that
 * names `least`, none below it: M of 3 or 4 nodes is not offered while N is 5. A chosen
 * one that became impossible falls back to the first possible choice.
 * @param {ChoiceParam} param
 * @param {HTMLSelectElement} input
 * @param {Snapshot} snapshot
 */
function offerPossible(param, input, snapshot) {
  const most = numberAt(snapshot, param.most);
  const least = numberAt(snapshot, param.least);
  param.choices.forEach((choice, index) => {
    const n = choice.value;
    const impossible = typeof n === "number" && ((most !== null && n > most) || (least !== null && n < least));
    const option = input.options[index];
    option.hidden = option.disabled = impossible;
  });
  if (input.options[input.selectedIndex]?.disabled) {
    const first = [...input.options].findIndex((option) => !option.disabled);
    input.selectedIndex = Math.max(0, first);
  }
}

/**
 * @param {TextParam} param
 * @param {string} id
 * @returns {Input}
 */
function textField(param, id) {
  if (param.source) return sourcedField(param.source, id);
  const input = document.createElement("input");
  input.type = "text";
  input.id = input.name = id;
  input.autocomplete = "off";
  input.spellcheck = false;
  if (param.default !== undefined) input.value = String(param.default);
  return { input, value: () => input.value };
}

/**
 * A text parameter whose values come from a list in the snapshot, offered as a select.
 * `source` is a key ("shards") or a dotted path ("network.links"); a list of objects
 * offers each object's `id` (shown with its `label` when that differs).
 * @param {string} source `param.source`
 * @param {string} id
 * @returns {Input}
 */
function sourcedField(source, id) {
  const input = document.createElement("select");
  input.id = input.name = id;
  /** @type {string | null} */
  let shown = null;
  /** @param {Snapshot} snapshot */
  function refresh(snapshot) {
    const items = sourceItems(snapshot, source);
    const key = items.map((item) => `${item.value}\u0000${item.text}`).join("\u0001");
    if (key === shown) return; // frames arrive ten times a second: leave an open select be
    shown = key;
    const previous = input.value;
    input.replaceChildren(...items.map((item) => new Option(item.text, item.value)));
    if (items.some((item) => item.value === previous)) input.value = previous;
  }
  return { input, refresh, value: () => input.value };
}

/**
 * The options a `source` names in `snapshot`: [{value, text}].
 * @param {Snapshot} snapshot
 * @param {string} source
 * @returns {{value: string, text: string}[]}
 */
export function sourceItems(snapshot, source) {
  let list = snapshot;
  for (const part of String(source).split(".")) list = list?.[part];
  if (!Array.isArray(list)) return [];
  return list.map((item) => {
    if (item === null || typeof item !== "object")
      return { value: String(item), text: String(item) };
    const value = String(item.id);
    const label = item.label && String(item.label) !== value ? `${item.label} (${value})` : value;
    return { value, text: label };
  });
}

/**
 * @param {Param} param
 * @param {string} id
 * @returns {Input}
 */
function boolField(param, id) {
  const input = document.createElement("input");
  input.type = "checkbox";
  input.id = input.name = id;
  input.checked = Boolean(param.default);
  return { input, value: () => input.checked };
}

/** @type {Record<string, (param: any, id: string) => Input>} */
const BUILDERS = { int: intField, choice: choiceField, text: textField, bool: boolField };
