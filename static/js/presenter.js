/**
 * Presenter mode: a lab page as a projector shows it. "Present" (a button with the
 * page's tools, the P key, or `?present=1` in the address) lets the drawing take the
 * screen, with "Just now", the playback row and the quick actions large under it; every
 * other control waits behind one button ("All controls"); Escape, or the button (then
 * "Stop presenting"), leaves. Only this page changes: in a class, the host presents and
 * the students keep their own pages. stage.css lays the mode out (`body.is-presenting`)
 * from 900 px wide; on a narrower screen there is no button and nothing changes.
 */

import { t } from "./i18n.js";

const WIDE = "(min-width: 900px)";

/**
 * Add the mode's two buttons to `tools` (the page's tools over the rail): "Present", and
 * "All controls" (shown while presenting), which opens `rail` (the controls) over the
 * screen; turn the mode on at once when the address asks for it.
 * @param {{tools: HTMLElement | null, rail: HTMLElement | null}} places
 * @returns {{set(on: boolean): void, destroy(): void}}
 */
export function createPresenter({ tools, rail }) {
  const body = document.body;
  const wide = window.matchMedia(WIDE);
  const button = document.createElement("button");
  button.type = "button";
  button.className = "button button-quiet present-toggle";
  button.setAttribute("aria-pressed", "false");
  button.setAttribute("aria-keyshortcuts", "P");
  button.title = t("Show the drawing on the whole screen, for a projector (P); Escape leaves.");
  const all = document.createElement("button");
  all.type = "button";
  all.className = "button present-controls";
  all.textContent = t("All controls");
  all.setAttribute("aria-expanded", "false");
  if (rail?.id) all.setAttribute("aria-controls", rail.id);
  tools?.querySelector(".guide-link")?.before(button);
  button.after(all);

  /** @param {boolean} open */
  function setRail(open) {
    body.classList.toggle("is-rail-open", open);
    all.setAttribute("aria-expanded", String(open));
  }

  /** @param {boolean} on */
  function set(on) {
    const now = on && wide.matches;
    body.classList.toggle("is-presenting", now);
    button.setAttribute("aria-pressed", String(now));
    button.textContent = now ? t("Stop presenting") : t("Present");
    if (!now) setRail(false);
    // the stage, the drawing's room, changes size: the renderers follow it (their
    // ResizeObservers); the page itself is not scrolled away from the stage
    if (now) window.scrollTo(0, 0);
  }

  button.addEventListener("click", () => set(!body.classList.contains("is-presenting")));
  all.addEventListener("click", () => setRail(!body.classList.contains("is-rail-open")));

  /** @param {KeyboardEvent} event */
  function onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = /** @type {HTMLElement | null} */ (event.target);
    // typing in a field, or a key a control takes for itself, is not a shortcut
    if (target?.closest("input, textarea, select, [contenteditable], dialog")) return;
    if (event.key === "Escape" && body.classList.contains("is-presenting")) {
      if (body.classList.contains("is-rail-open")) setRail(false);
      else set(false);
      event.preventDefault();
    } else if ((event.key === "p" || event.key === "P") && wide.matches) {
      set(!body.classList.contains("is-presenting"));
      event.preventDefault();
    }
  }
  document.addEventListener("keydown", onKey);
  /** a screen narrowed under 900 px leaves the mode (its layout is a wide one) */
  const onWidth = () => {
    if (!wide.matches) set(false);
  };
  wide.addEventListener("change", onWidth);

  set(new URLSearchParams(location.search).get("present") === "1");
  return {
    set,
    destroy() {
      set(false);
      document.removeEventListener("keydown", onKey);
      wide.removeEventListener("change", onWidth);
      button.remove();
      all.remove();
    },
  };
}
