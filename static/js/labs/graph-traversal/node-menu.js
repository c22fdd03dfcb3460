/**
 * The small menu a node of the drawing opens (a click, or Enter or Space on it): a few
 * buttons under the node. Escape, a click elsewhere or a choice closes it, and the focus
 * goes back to the node it came from. Tab moves through its buttons.
 */

import { t } from "../../i18n.js";

/**
 * @param {HTMLElement} parent the drawing's box (positioned)
 */
export function createNodeMenu(parent) {
  const root = document.createElement("div");
  root.className = "gt-menu";
  root.setAttribute("role", "group");
  root.hidden = true;
  const title = document.createElement("p");
  title.className = "gt-menu-title";
  title.translate = false; // a node's name
  title.id = `gt-menu-title-${Math.random().toString(36).slice(2, 8)}`;
  root.setAttribute("aria-labelledby", title.id);
  const list = document.createElement("div");
  list.className = "gt-menu-items";
  const close = document.createElement("button");
  close.type = "button";
  close.className = "gt-menu-close";
  close.textContent = t("Close the menu");
  root.append(title, list, close);
  parent.append(root);
  /** @type {any} */
  let shown = null;

  function hide(refocus = true) {
    if (!shown) return;
    const opener = shown.opener;
    shown = null;
    root.hidden = true;
    document.removeEventListener("pointerdown", outside, true);
    if (refocus) opener?.focus?.();
  }

  /** @param {PointerEvent} event */
  function outside(event) {
    if (!root.contains(/** @type {Node} */ (event.target))) hide(false);
  }

  close.addEventListener("click", () => hide());
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      hide();
    }
  });

  /** Put the menu under its node, inside the drawing. */
  function follow() {
    if (!shown) return;
    const [x, y] = shown.where();
    const [w, h] = shown.size();
    const mw = root.offsetWidth;
    const mh = root.offsetHeight;
    const left = Math.max(4, Math.min(w - mw - 4, x - mw / 2));
    const top = y + mh > h - 4 ? Math.max(4, y - mh - 2 * 24) : y;
    root.style.transform = `translate(${Math.round(left)}px, ${Math.round(top)}px)`;
  }

  return {
    /**
     * @param {{title: string, items: {label: string, act: () => void}[], where: () => number[],
     *   size: () => number[], opener: HTMLElement | null}} what
     */
    open(what) {
      hide(false);
      shown = what;
      title.textContent = what.title;
      list.replaceChildren(
        ...what.items.map((item) => {
          const button = document.createElement("button");
          button.type = "button";
          button.className = "gt-menu-item";
          button.textContent = item.label;
          button.addEventListener("click", () => {
            hide();
            item.act();
          });
          return button;
        }),
      );
      root.hidden = false;
      follow();
      document.addEventListener("pointerdown", outside, true);
      /** @type {HTMLElement | null} */ (list.firstElementChild)?.focus();
    },
    close: hide,
    follow,
    destroy() {
      hide(false);
      root.remove();
    },
  };
}
