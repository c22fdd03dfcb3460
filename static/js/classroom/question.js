/**
 * "Predict, then run": the current question for everyone in a class. Students answer
 * (once, and may change it until the reveal); the host sees how many answered and reveals;
 * then everyone sees the distribution: a bar per choice, or the numbers as a sorted dot
 * strip, right above the drawing, so the class compares it with what the simulation shows.
 */

import { decimal, fmt, num, percent, t, tn } from "../i18n.js";
import { button, el } from "./dom.js";
import { recall, remember } from "./entry.js";

/** @import { AnswerCount, Question, SendMessage } from "./types.js" */
/** @import { ServerError } from "../types.js" */

/**
 * The question card in `container`; `send(type, fields)` returns the message's ref.
 * @param {HTMLElement} container
 * @param {SendMessage} send
 */
export function createQuestionCard(container, send) {
  /** @type {Question | null} */
  let question = null;
  let role = "student";
  let room = "";
  /** @type {number | null} */
  let mine = null; // this student's answer to the current question
  /** @type {Set<string | null | undefined>} */
  const refs = new Set(); // (looked up by any error's ref)

  const heading = el("h2", { className: "question-eyebrow", text: t("Predict, then run") });
  heading.id = "class-question-title";
  const text = el("p", { className: "question-text" });
  const body = el("div", { className: "question-body" });
  const status = el("p", { className: "question-status", attrs: { role: "status" } });
  const error = el("p", { className: "form-error", attrs: { role: "alert" } });
  error.hidden = true;
  container.setAttribute("aria-labelledby", heading.id);
  container.replaceChildren(heading, text, body, status, error);

  const storeKey = () => `playground:answer:${room}:${question?.number}`;
  // the card's parts are drawn (and their buttons pressed) only while it shows a question
  const shown = () => /** @type {Question} */ (question);

  /**
   * @param {string} type
   * @param {Record<string, unknown>} fields
   */
  function act(type, fields) {
    error.hidden = true;
    const ref = send(type, fields);
    if (ref) refs.add(ref);
    return ref;
  }

  function render() {
    container.hidden = !question;
    if (!question) return;
    container.dataset.kind = question.kind;
    container.dataset.revealed = String(Boolean(question.revealed));
    text.textContent = question.text;
    const parts = [];
    if (question.revealed) parts.push(results());
    else if (role === "host") parts.push(hostWaiting());
    else parts.push(question.kind === "choice" ? choiceButtons() : numberForm());
    body.replaceChildren(...parts);
    status.textContent = statusText();
  }

  function statusText() {
    if (shown().revealed) {
      // distinct people (one answer each), from the server; older servers sent only answered
      const voters = shown().voters ?? shown().answered ?? 0;
      return fmt(tn("%(n)s person answered.", "%(n)s people answered.", voters), { n: num(voters) });
    }
    if (role === "host") return "";
    if (mine === null) return t("Answer before the host runs it.");
    return fmt(t("Your answer: %(answer)s. You can change it until the answers are shown."), {
      answer: label(mine),
    });
  }

  /** @param {number} value */
  function label(value) {
    if (shown().kind === "choice") return shown().choices[value] ?? String(value);
    return decimal(value, Number.isInteger(value) ? 0 : 2);
  }

  function choiceButtons() {
    const list = el("div", { className: "answer-choices", attrs: { role: "group" } });
    list.setAttribute("aria-labelledby", "class-question-title");
    shown().choices.forEach((choice, index) => {
      const pick = button(choice, "button answer-choice", {
        "aria-pressed": String(mine === index),
        "data-choice": index,
      });
      pick.addEventListener("click", () => answer(index));
      list.append(pick);
    });
    return list;
  }

  function numberForm() {
    const form = el("form", { className: "answer-number", attrs: { novalidate: true } });
    const id = `answer-number-${shown().number}`;
    const input = el("input", {
      attrs: { id, type: "text", inputmode: "decimal", autocomplete: "off" },
    });
    if (mine !== null) input.value = String(mine);
    const field = el(
      "div",
      { className: "field" },
      el("label", { text: t("Your prediction (a number)"), attrs: { for: id } }),
      input,
    );
    const submit = el("button", {
      className: "button",
      text: mine === null ? t("Send my answer") : t("Change my answer"),
      attrs: { type: "submit" },
    });
    form.append(field, submit);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const value = Number(input.value.replace(",", ".").replace(/[\s%]/g, ""));
      if (!input.value.trim() || !Number.isFinite(value)) {
        error.textContent = t("Type a number, for example 25 or 0.8.");
        error.hidden = false;
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      input.removeAttribute("aria-invalid");
      answer(value);
    });
    return form;
  }

  /** @param {number} value */
  function answer(value) {
    mine = value;
    remember(storeKey(), JSON.stringify(value));
    act("answer", { question: shown().number, value });
    render();
  }

  function hostWaiting() {
    const count = el("p", { className: "answered-count" });
    count.textContent = fmt(t("Answered: %(n)s"), { n: num(shown().answered ?? 0) });
    const reveal = button(t("Show the answers"), "button reveal-button");
    reveal.addEventListener("click", () => act("reveal", { question: shown().number }));
    const hint = el("p", {
      className: "help",
      text: t("Now run it in the lab, then show the answers next to what happened."),
    });
    const choices =
      shown().kind === "choice"
        ? el("ol", { className: "choice-list" }, ...shown().choices.map((c) => el("li", { text: c })))
        : el("p", { className: "help", text: t("Students answer with a number.") });
    return el("div", { className: "question-host" }, choices, count, reveal, hint);
  }

  function results() {
    const rows = shown().distribution ?? [];
    const chart = shown().kind === "choice" ? choiceBars(rows) : dotStrip(rows);
    const note = el("p", {
      className: "help",
      text: t("Compare with what the simulation shows below."),
    });
    return el("div", { className: "question-results" }, chart, note);
  }

  /** @param {AnswerCount[]} rows */
  function choiceBars(rows) {
    const total = rows.reduce((sum, r) => sum + r.count, 0);
    const most = Math.max(1, ...rows.map((r) => r.count));
    const list = el("ol", { className: "answer-bars" });
    for (const row of rows) {
      const share = total ? row.count / total : 0;
      const fill = el("span", { className: "answer-bar-fill" });
      fill.style.width = `${(row.count / most) * 100}%`;
      const item = el(
        "li",
        { className: mine === row.value && role !== "host" ? "is-mine" : "" },
        el("span", { className: "answer-bar-label", text: shown().choices[row.value] ?? "?" }),
        el("span", { className: "answer-bar-track", attrs: { "aria-hidden": "true" } }, fill),
        el("span", {
          className: "answer-bar-value",
          text: fmt(t("%(count)s (%(share)s)"), {
            count: num(row.count),
            share: percent(share, 0),
          }),
        }),
      );
      if (mine === row.value && role !== "host") {
        item.append(el("span", { className: "mine-tag", text: t("your answer") }));
      }
      list.append(item);
    }
    return list;
  }

  /** @param {AnswerCount[]} rows */
  function dotStrip(rows) {
    const values = rows.flatMap((r) => Array(r.count).fill(r.value));
    const figure = el("figure", { className: "dot-strip" });
    if (!values.length) {
      figure.append(el("p", { className: "help", text: t("Nobody answered.") }));
      return figure;
    }
    const lo = values[0];
    const hi = values[values.length - 1];
    const median = values[Math.floor((values.length - 1) / 2)];
    // drawn at the card's own width, so its text keeps its size on a phone
    const width = Math.max(280, Math.min(720, Math.round(body.clientWidth || 600)));
    const r = 9;
    const span = hi - lo || 1;
    const x = (/** @type {number} */ v) => (hi === lo ? width / 2 : 30 + ((v - lo) / span) * (width - 60));
    const tallest = Math.max(...rows.map((row) => row.count));
    const top = 30; // room for the median's label
    const height = Math.min(300, top + 34 + tallest * (2 * r + 2));
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("role", "img");
    const summary = fmt(t("%(n)s answers from %(lo)s to %(hi)s; the middle one is %(median)s."), {
      n: num(values.length),
      lo: label(lo),
      hi: label(hi),
      median: label(median),
    });
    svg.setAttribute("aria-label", summary);
    const axisY = height - 30;
    svg.append(svgEl("line", { x1: 12, x2: width - 12, y1: axisY, y2: axisY, class: "dot-axis" }));
    const mid = x(median);
    svg.append(svgEl("line", { x1: mid, x2: mid, y1: top - 6, y2: axisY, class: "dot-median" }));
    const midLabel = svgEl("text", {
      x: mid,
      y: top - 12,
      class: "dot-tick is-median",
      "text-anchor": anchor(mid, width),
    });
    midLabel.textContent = fmt(t("middle %(v)s"), { v: label(median) });
    svg.append(midLabel);
    for (const row of rows) {
      const step = Math.min(2 * r + 2, (axisY - top - r) / Math.max(1, row.count));
      for (let i = 0; i < row.count; i += 1) {
        const dot = svgEl("circle", {
          cx: x(row.value),
          cy: axisY - r - 3 - i * step,
          r,
          class: mine === row.value && role !== "host" ? "dot is-mine" : "dot",
        });
        svg.append(dot);
      }
    }
    for (const value of hi === lo ? [lo] : [lo, hi]) {
      const tick = svgEl("text", {
        x: x(value),
        y: height - 8,
        class: "dot-tick",
        "text-anchor": hi === lo ? "middle" : value === lo ? "start" : "end",
      });
      tick.textContent = label(value);
      svg.append(tick);
    }
    const caption = el("figcaption", { className: "help", text: summary });
    if (mine !== null && role !== "host") {
      caption.append(
        " ",
        fmt(t("Yours is %(v)s (the dot outlined in black)."), { v: label(mine) }),
      );
    }
    figure.append(svg, caption);
    return figure;
  }

  return {
    /**
     * Show `q` (or nothing): `as` is the viewer's role, `inRoom` the class room's id.
     * @param {Question | null | undefined} q
     * @param {{as?: string, inRoom?: string}} [options]
     */
    set(q, { as = role, inRoom = room } = {}) {
      const changed = q?.number !== question?.number || inRoom !== room;
      question = q ?? null;
      role = as;
      room = inRoom;
      if (changed) {
        const saved = question ? recall(storeKey()) : null;
        mine = saved === null ? null : JSON.parse(saved);
        error.hidden = true;
      }
      render();
    },
    /**
     * The host's live count of answers.
     * @param {{number: number, answered: number}} message
     */
    answers(message) {
      if (!question || message.number !== question.number) return;
      question.answered = message.answered;
      const count = body.querySelector(".answered-count");
      if (count) count.textContent = fmt(t("Answered: %(n)s"), { n: num(message.answered) });
    },
    /**
     * Our answer was stored.
     * @param {{question: number}} message
     */
    answered(message) {
      if (question && message.question === question.number) status.textContent = statusText();
    },
    /**
     * Show a refused answer or reveal; false when the error is not ours.
     * @param {ServerError} problem
     */
    showError(problem) {
      if (!refs.delete(problem.ref)) return false;
      error.textContent = fmt(t("Not sent: %(message)s"), {
        message: problem.message || problem.code,
      });
      error.hidden = false;
      return true;
    },
    hide() {
      question = null;
      render();
    },
  };
}

/**
 * Where a label at `x` hangs so that it stays inside a drawing `width` wide.
 * @param {number} x
 * @param {number} width
 */
function anchor(x, width) {
  if (x < width * 0.2) return "start";
  if (x > width * 0.8) return "end";
  return "middle";
}

/**
 * An SVG element with attributes.
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 */
function svgEl(tag, attrs) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}
