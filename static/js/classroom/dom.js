/** Small DOM helpers for the class pieces: text only, never HTML. */

import { t } from "../i18n.js";

/**
 * An element with a class, text and attributes; children are appended in order.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {{className?: string, text?: string | null, attrs?: Record<string, unknown>}} [options]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, { className = "", text = null, attrs = {} } = {}, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/**
 * A plain button (type="button").
 * @param {string} text
 * @param {string} [className]
 * @param {Record<string, unknown>} [attrs]
 */
export function button(text, className = "button", attrs = {}) {
  return el("button", { className, text, attrs: { type: "button", ...attrs } });
}

/**
 * Copy `text` to the clipboard; resolves true when it worked. Over plain http on a
 * classroom network the Clipboard API is missing, so it falls back to a selected textarea.
 * @param {string} text
 */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the old way
  }
  const area = el("textarea", { className: "visually-hidden", attrs: { readonly: true } });
  area.value = text;
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand("copy");
  } catch {
    // refused outright: done stays false
  }
  area.remove();
  return done;
}

/**
 * A "Copy" button for `getText()`, with a short spoken result beside it.
 * @param {string} label
 * @param {() => string} getText
 * @param {{onFail?: (() => void) | null}} [options] `onFail` runs when the copy was refused
 */
export function copyButton(label, getText, { onFail = null } = {}) {
  const result = el("span", { className: "copy-result", attrs: { role: "status" } });
  const trigger = button(label, "button button-quiet copy-button");
  trigger.addEventListener("click", async () => {
    const ok = await copyText(getText());
    result.textContent = ok ? t("Copied.") : t("Could not copy: select the text and copy it.");
    if (!ok) onFail?.();
    setTimeout(() => {
      result.textContent = "";
    }, 4000);
  });
  return { trigger, result };
}
