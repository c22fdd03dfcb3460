/**
 * The course's questions as a row of buttons over the drawing, one per choice of
 * `course_query` (its labels as the server translated them), each marked
 * `data-spot="course-<question>"` for the tour. The one whose pattern is the question
 * asked now is pressed. The row wraps on a wide stage and scrolls sideways in its own
 * row on a phone.
 */

import { t } from "../../i18n.js";

/**
 * @param {HTMLElement} parent
 * @param {{questions: {value: string, label: string}[],
 *   send: ((action: string, args: Record<string, unknown>) => string | null) | null}} options
 *   `send` null: a view that only shows (the buttons are not drawn)
 */
export function createQuestions(parent, { questions, send }) {
  const root = document.createElement("div");
  root.className = "gt-questions";
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", t("The course's questions"));
  root.hidden = !send || !questions.length;
  /** @type {Map<string, HTMLButtonElement>} */
  const buttons = new Map();
  for (const { value, label } of questions) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "gt-question";
    button.dataset.spot = `course-${value}`;
    button.dataset.question = value;
    button.textContent = label;
    button.setAttribute("aria-pressed", "false");
    button.addEventListener("click", () => send?.("course_query", { question: value }));
    buttons.set(value, button);
    root.append(button);
  }
  parent.append(root);

  return {
    element: root,
    /** @param {string | null} current the question asked now, if it is one of the course's */
    update(current) {
      for (const [value, button] of buttons) button.setAttribute("aria-pressed", String(value === current));
    },
    destroy() {
      root.remove();
    },
  };
}
