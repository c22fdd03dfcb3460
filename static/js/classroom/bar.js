/**
 * The class bar above the lab, drawn from a plain view (classroom.js decides it): the
 * host's join code and QR, who drives and how many watch, "Explore on my own" (and why
 * the server refused it, right beside it), "Back to the class" in a private branch, or
 * the notice when the class is over for this page (classroom/notice.js).
 */

import { fmt, t } from "../i18n.js";
import { button, el } from "./dom.js";
import { classNotice, leftTheClass } from "./notice.js";

/** @import { Notice } from "./notice.js" */

/**
 * A class's bar, for its host or a student: the join code and link, who drives, who this
 * viewer is, how many watch, and why "Explore on my own" was refused ("" when it was not).
 * @typedef {object} ClassView
 * @property {"host" | "student"} mode
 * @property {string} code
 * @property {string} joinUrl
 * @property {string} driving
 * @property {string} you
 * @property {string} watching
 * @property {string} branchError
 */

/**
 * What the bar shows: nothing, the notice, the private branch's way back, or the class.
 * @typedef {{mode: "hidden"} | {mode: "notice", notice: Notice} | {mode: "branch"} | ClassView} BarView
 */

/**
 * The bar in `bar`: `onBranch()` sends `branch` and returns its ref (or null), `onBack()`
 * goes back to the class. `render(view)` with view.mode "hidden", "notice" ({notice}),
 * "branch", "host" or "student" ({code, joinUrl, driving, you, watching, branchError}).
 * @param {HTMLElement} bar
 * @param {{slug: string, onBranch: () => string | null, onBack: () => void}} options
 */
export function createClassBar(bar, { slug, onBranch, onBack }) {
  let compact = false; // the host folded the code away (everyone has joined)
  /** @type {BarView | null} */
  let shown = null; // the view drawn last

  /** @param {ClassView} view */
  function branchParts(view) {
    const go = button(t("Explore on my own"), "button button-quiet branch-button");
    go.title = t("A private copy of this moment: try anything, nobody else is affected.");
    if (view.branchError) go.setAttribute("aria-describedby", "branch-error");
    go.addEventListener("click", () => {
      go.disabled = true;
      if (!onBranch()) go.disabled = false;
    });
    const why = view.branchError
      ? el("p", {
          className: "form-error branch-error",
          text: view.branchError,
          attrs: { id: "branch-error", role: "alert" },
        })
      : null;
    return [go, why];
  }

  function branchView() {
    const back = button(t("Back to the class"), "button back-button");
    back.addEventListener("click", () => onBack());
    return [
      el(
        "div",
        { className: "class-bar-main" },
        el("p", {
          className: "branch-banner",
          text: t("You are exploring alone — the class continues without you."),
        }),
      ),
      el("div", { className: "class-bar-actions" }, back),
    ];
  }

  /** @param {ClassView} view */
  function hostView(view) {
    const qr = el("img", {
      className: "class-qr",
      attrs: {
        src: `/join/${encodeURIComponent(view.code)}/qr.svg`,
        alt: fmt(t("QR code of the join link %(url)s"), { url: view.joinUrl }),
        width: 132,
        height: 132,
      },
    });
    const where = new URL("/join/", location.origin).href;
    const fold = button(compact ? t("Show the code") : t("Hide the code"), "button button-quiet fold-code");
    fold.setAttribute("aria-expanded", String(!compact));
    fold.addEventListener("click", () => {
      compact = !compact;
      render(/** @type {BarView} */ (shown));
      /** @type {HTMLElement | null} */ (bar.querySelector(".fold-code"))?.focus();
    });
    const toPanel = el("a", {
      className: "jump-link",
      text: t("Class controls"),
      attrs: { href: "#class-panel" },
    });
    bar.dataset.compact = String(compact);
    return [
      el(
        "div",
        { className: "class-join" },
        qr,
        el(
          "div",
          { className: "class-join-text" },
          el("p", { className: "class-join-where", text: fmt(t("Join at %(url)s with the code"), { url: where }) }),
          el("p", { className: "class-code", text: view.code }),
        ),
      ),
      el("div", { className: "class-bar-main" }, driving(view), watching(view)),
      el("div", { className: "class-bar-actions" }, ...branchParts(view), fold, toPanel),
    ];
  }

  /** @param {ClassView} view */
  function studentView(view) {
    return [
      el("div", { className: "class-bar-main" }, driving(view), el("p", { className: "class-you", text: view.you }), watching(view)),
      el("div", { className: "class-bar-actions" }, ...branchParts(view)),
    ];
  }

  const driving = (/** @type {ClassView} */ view) => el("p", { className: "class-driving", text: view.driving });
  const watching = (/** @type {ClassView} */ view) => el("p", { className: "class-watching", text: view.watching });

  /** @param {BarView} view */
  function render(view) {
    shown = view;
    delete bar.dataset.compact;
    bar.hidden = view.mode === "hidden";
    if (view.mode === "hidden") {
      bar.replaceChildren();
      return;
    }
    if (view.mode === "notice") {
      bar.dataset.view = leftTheClass(view.notice.kind) ? "left" : "notice";
      bar.replaceChildren(...classNotice({ ...view.notice, slug }));
      return;
    }
    bar.dataset.view = view.mode;
    if (view.mode === "branch") bar.replaceChildren(...branchView());
    else bar.replaceChildren(...(view.mode === "host" ? hostView(view) : studentView(view)));
  }

  return {
    render,
    /**
     * Say again how many watch (presence comes often: only that line changes).
     * @param {string} words
     */
    watching(words) {
      // (a class's view: the others have no such line, and the extra word is harmless)
      if (shown) shown = /** @type {BarView} */ ({ ...shown, watching: words });
      const line = bar.querySelector(".class-watching");
      if (line) line.textContent = words;
    },
    /** Put the keyboard back on "Explore on my own" (after the bar was drawn again). */
    focusBranch() {
      /** @type {HTMLElement | null} */ (bar.querySelector(".branch-button"))?.focus();
    },
  };
}
