/**
 * How a page enters a room: the room in `?room=`, a display name (from `?name=` or this
 * tab's sessionStorage, else a small form), and a host secret in `#host=`, which is kept
 * in sessionStorage and taken out of the address bar at once, so that it never ends up in
 * a link the host shares or a screen the class sees.
 */

import { t } from "../i18n.js";

const NAME_KEY = "playground:name";
const SECRET_PREFIX = "playground:host:";
const MAX_NAME = 40;

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage blocked: everything still works for this page's life
  }
}

/**
 * Keep `value` in this tab's sessionStorage under `key` (null: forget it).
 * @param {string} key
 * @param {string | null} value
 */
export function remember(key, value) {
  try {
    if (value === null) storage()?.removeItem(key);
    else storage()?.setItem(key, value);
  } catch {
    // a full or blocked storage only costs a retyped name after a reload
  }
}

/**
 * What this tab's sessionStorage holds under `key`, or null.
 * @param {string} key
 * @returns {string | null}
 */
export function recall(key) {
  try {
    return storage()?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

/**
 * Read and tidy the address: {room, name, secret}. Removes `name` and `#host=`.
 * @returns {{room: string | null, name: string, secret: string | null}}
 */
export function readEntry() {
  const url = new URL(location.href);
  const room = url.searchParams.get("room") || null;
  const named = url.searchParams.get("name");
  if (named !== null) {
    if (named.trim()) remember(NAME_KEY, named.trim().slice(0, MAX_NAME));
    url.searchParams.delete("name");
  }
  const fragment = new URLSearchParams(url.hash.replace(/^#/, ""));
  const fromHash = fragment.get("host");
  if (fromHash !== null) {
    if (room && fromHash) remember(SECRET_PREFIX + room, fromHash);
    url.hash = "";
  }
  if (named !== null || fromHash !== null) {
    history.replaceState(history.state, "", `${url.pathname}${url.search}`);
  }
  return { room, name: recall(NAME_KEY) ?? "", secret: room ? hostSecret(room) : null };
}

/**
 * The host secret this tab keeps for `room`, or null.
 * @param {string | null} room
 */
export function hostSecret(room) {
  return recall(SECRET_PREFIX + room);
}

/** @param {string | null} room */
export function forgetHostSecret(room) {
  remember(SECRET_PREFIX + room, null);
}

/**
 * @param {string} room
 * @param {string} secret
 */
export function rememberHostSecret(room, secret) {
  remember(SECRET_PREFIX + room, secret);
}

/** @param {string} name */
export function rememberName(name) {
  remember(NAME_KEY, name);
}

export function forgetName() {
  remember(NAME_KEY, null);
}

/**
 * Show the page's name form and resolve with the name typed; `problem` is a message
 * to show first (the server refused the last name).
 * @param {HTMLFormElement} form the page's name form: an input and a `.form-error` line
 * @param {string} [problem]
 * @returns {Promise<string>}
 */
export function askName(form, problem = "") {
  const input = /** @type {HTMLInputElement} */ (form.querySelector("input"));
  const error = /** @type {HTMLElement} */ (form.querySelector(".form-error"));
  form.hidden = false;
  /** @param {string} message */
  const show = (message) => {
    error.textContent = message;
    error.hidden = !message;
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  };
  show(problem);
  input.value = recall(NAME_KEY) ?? "";
  input.focus();
  return new Promise((resolve) => {
    /** @param {SubmitEvent} event */
    const onSubmit = (event) => {
      event.preventDefault();
      const name = input.value.normalize("NFC").trim();
      if (!name) {
        show(t("Type a name for the class to see (a first name or a nickname)."));
        input.focus();
        return;
      }
      if (name.length > MAX_NAME) {
        show(t("A name is at most 40 characters."));
        input.focus();
        return;
      }
      show("");
      form.removeEventListener("submit", onSubmit);
      form.hidden = true;
      rememberName(name);
      resolve(name);
    };
    form.addEventListener("submit", onSubmit);
  });
}
