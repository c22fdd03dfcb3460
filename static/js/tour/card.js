/**
 * The tour's card: step n of N, what to do, what to notice, and its buttons. A plain
 * view: tour.js decides, this draws. Not modal: it is a region of the page with a live
 * part for the step's words, every button reachable by Tab, and Escape skips the tour.
 *
 * The section is the card's place in the layout; its body is the card. When the place
 * is scrolled out of view (the visitor went down to a table or the guide), the body
 * floats at the bottom of the viewport and the place keeps its height, so nothing moves.
 */

import { fmt, num, t } from "../i18n.js";

/**
 * One moment of the tour, as tour.js's `render` decides it.
 * @typedef {object} CardView
 * @property {number} number the step's number, from 1
 * @property {number} total how many steps
 * @property {string} say what to do
 * @property {string} status a line on who does the steps, or what happens now ("": none)
 * @property {string} notice what to notice once it is done ("" before)
 * @property {boolean} done
 * @property {boolean} last
 * @property {string | null} showMeOff why "Show me" is off, or null
 * @property {string} mode "own", "leading" (the host runs it for everyone) or "following"
 * @property {boolean} host the viewer hosts a class (may run the tour for everyone)
 */

/**
 * The card's buttons: "Show me", "Next", "Skip tour" (and Escape), "Run the tour for everyone".
 * @typedef {object} CardHandlers
 * @property {() => void} onShowMe
 * @property {() => void} onNext
 * @property {() => void} onSkip
 * @property {() => void} onLead
 */

/**
 * Build the card inside `section`; the handlers are called on the buttons.
 * @param {HTMLElement} section
 * @param {CardHandlers} handlers
 */
export function createTourCard(section, { onShowMe, onNext, onSkip, onLead }) {
  section.setAttribute("role", "region");
  section.setAttribute("aria-labelledby", "tour-title");
  const title = element("h2", "tour-title");
  title.id = "tour-title";
  title.tabIndex = -1;
  const count = element("span", "tour-count");
  const heading = element("span", "tour-heading", t("Guided tour"));
  title.append(heading, " ", count);
  const words = element("div", "tour-words");
  words.setAttribute("aria-live", "polite");
  const say = element("p", "tour-say");
  const status = element("p", "tour-status");
  status.id = "tour-status";
  const notice = element("p", "tour-notice");
  words.append(say, status, notice);
  const error = element("p", "tour-error");
  error.setAttribute("role", "alert");
  error.hidden = true;
  const why = element("p", "tour-why");
  why.id = "tour-why";
  why.hidden = true;
  const showMe = button(t("Show me"), "button tour-show-me", onShowMe);
  const next = button(t("Next"), "button tour-next", onNext);
  const lead = button(t("Run the tour for everyone"), "button button-quiet tour-lead", onLead);
  const skip = button(t("Skip tour"), "button button-quiet tour-skip", onSkip);
  const buttons = element("div", "tour-buttons");
  buttons.append(showMe, next, lead, skip);
  const body = element("div", "tour-body");
  body.append(title, words, error, why, buttons);
  section.replaceChildren(body);
  floatWhenAway(section);
  section.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    event.preventDefault();
    onSkip();
  });

  return {
    /**
     * Draw one moment of the tour (see tour.js's `render`).
     * @param {CardView} view
     */
    render(view) {
      const following = view.mode === "following";
      const newStep = section.dataset.step !== String(view.number);
      section.dataset.step = String(view.number);
      section.dataset.done = String(view.done);
      section.dataset.mode = view.mode;
      const where = { n: num(view.number), total: num(view.total) };
      setText(count, fmt(t("Step %(n)s of %(total)s"), where));
      setText(say, view.say);
      // done: what to notice takes the place of what to do (the card stays short)
      say.hidden = Boolean(view.notice);
      setText(status, view.status);
      status.hidden = !view.status;
      setText(notice, view.notice ? fmt(t("Notice: %(what)s"), { what: view.notice }) : "");
      notice.hidden = !view.notice;
      // the words keep the height a step begins with: what it showed takes the place of
      // what to do, and scrolls if longer, so nothing under the card (a phone's stage)
      // changes size while the step's animation plays (tour.css uses it under 900 px)
      if (newStep) {
        words.style.removeProperty("--words-height");
        const height = words.getBoundingClientRect().height;
        if (height > 0) words.style.setProperty("--words-height", `${Math.ceil(height)}px`);
      }
      const off = view.done ? t("This step is done.") : view.showMeOff;
      // following the host, the status line already says who does the steps
      setText(why, view.done || following || !view.showMeOff ? "" : view.showMeOff);
      why.hidden = !why.textContent;
      const reason = following && !view.done && view.showMeOff ? status.id : why.id;
      disable(showMe, off, why.hidden && reason === why.id ? null : reason);
      setText(next, view.last ? t("Finish") : t("Next"));
      next.hidden = following;
      disable(next, view.done ? null : t("Do this step first, or press “Show me”."));
      lead.hidden = !view.host;
      lead.setAttribute("aria-pressed", String(view.mode === "leading"));
      setText(skip, following ? t("Hide") : t("Skip tour"));
    },
    /** @param {string} message */
    showError(message) {
      error.textContent = fmt(t("Not done: %(message)s"), { message });
      error.hidden = false;
    },
    clearError() {
      error.hidden = true;
      error.textContent = "";
    },
    /** Move the keyboard to the card (it was opened by a click). */
    focus() {
      title.focus();
    },
    /**
     * The card's box on screen (where it floats, if it does), or null while hidden.
     * @returns {DOMRect | null}
     */
    box() {
      return section.hidden ? null : body.getBoundingClientRect();
    },
  };
}

/**
 * Mark `place` `is-floating` while it is above the viewport (scrolled past): tour.css
 * then floats the card inside it at the bottom of the viewport, and the place keeps its
 * height meanwhile, so the layout does not jump.
 * @param {HTMLElement} place
 */
function floatWhenAway(place) {
  const seen = new IntersectionObserver(([entry]) => {
    const away = !place.hidden && !entry.isIntersecting && entry.boundingClientRect.bottom <= 0;
    if (away === place.classList.contains("is-floating")) return;
    if (away) place.style.height = `${place.getBoundingClientRect().height}px`;
    else place.style.removeProperty("height");
    place.classList.toggle("is-floating", away);
  });
  seen.observe(place);
}

/**
 * Off with a reason (`aria-disabled`, so it keeps its focus and says why), or on.
 * @param {HTMLElement} target
 * @param {string | null} reason
 * @param {string | null} [describedBy] the id of what says why
 */
function disable(target, reason, describedBy = null) {
  if (reason) {
    target.setAttribute("aria-disabled", "true");
    target.title = reason;
  } else {
    target.removeAttribute("aria-disabled");
    target.removeAttribute("title");
  }
  if (describedBy) target.setAttribute("aria-describedby", describedBy);
  else target.removeAttribute("aria-describedby");
}

/**
 * A button that calls `onClick` unless it is `aria-disabled`.
 * @param {string} text
 * @param {string} className
 * @param {() => void} onClick
 */
function button(text, className, onClick) {
  const made = element("button", className, text);
  made.type = "button";
  made.addEventListener("click", () => {
    if (made.getAttribute("aria-disabled") === "true") return;
    onClick();
  });
  return made;
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} className
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
function element(tag, className, text = "") {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text) made.textContent = text;
  return made;
}

/**
 * Set `target`'s text, only when it differs from the text it has.
 * @param {HTMLElement} target
 * @param {string} text
 */
function setText(target, text) {
  if (target.textContent !== text) target.textContent = text;
}
