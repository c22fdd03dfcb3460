/**
 * The interleaving as a row of step chips, in the order they run, the next one marked.
 * A chip can be moved: dragged (pointer events, so a finger works too) or, focused, with
 * Alt+← / Alt+→ (one place, sent at once) or picked up with Space or Enter, moved with
 * the arrows and put down with Space or Enter (Escape puts it back). The new order is
 * sent as `set_order`; the server checks it and starts the race again.
 *
 * A client runs its own steps in their order, and the server refuses an order that
 * breaks it: here a chip simply cannot pass its client's step before or after it (A2
 * stops right after A1), and the note under the row says why. Only one chip is in the
 * Tab order; the arrows move between them.
 */

import { fmt, num, t, tn } from "../../i18n.js";
import { inkOn, shardColour } from "../../palette.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { RaceSnapshot } from "./types.js" */

const DRAG_PX = 6; // a press that moves less than this is a click, not a drag

/**
 * @param {HTMLElement} parent
 * @param {{send: ((action: string, args?: Record<string, unknown>) => string | null) | null}} options
 *   `send` null: a view that only shows (chips cannot be moved)
 */
export function createStrip(parent, { send }) {
  const root = document.createElement("section");
  root.className = "rlr-strip";
  root.dataset.spot = "order";
  const head = document.createElement("div");
  head.className = "rlr-strip-head";
  const title = document.createElement("h3");
  title.className = "rlr-strip-title";
  title.id = "rlr-strip-title";
  const where = document.createElement("span");
  where.className = "rlr-strip-where";
  const hint = document.createElement("span");
  hint.className = "rlr-strip-hint";
  hint.id = "rlr-strip-hint";
  head.append(title, where, hint);
  const row = document.createElement("div");
  row.className = "rlr-chips";
  row.setAttribute("role", send ? "toolbar" : "list");
  row.setAttribute("aria-labelledby", title.id);
  const mark = document.createElement("span");
  mark.className = "rlr-drop-mark";
  mark.hidden = true;
  row.append(mark);
  const note = document.createElement("p");
  note.className = "rlr-strip-note";
  note.setAttribute("role", "status");
  root.append(head, row, note);
  parent.append(root);

  /** @type {Map<string, HTMLElement>} */
  const chips = new Map();
  /** @type {string[]} the order as drawn */
  let order = [];
  /** @type {string[]} the order as the server last said */
  let served = [];
  /** @type {Map<string, string>} each step's state: done, next, waiting, dropped */
  let states = new Map();
  /** @type {string | null} */
  let focusId = null; // the chip in the Tab order
  /** @type {{id: string, from: string[]} | null} a chip picked up with the keyboard */
  let grabbed = null;
  /** @type {any} a chip being dragged */
  let drag = null;

  /**
   * @param {Snapshot} state the lab's snapshot, or a state on the way to it
   * @param {string | null} running the step being run
   */
  function draw(state, running = null) {
    const view = /** @type {RaceSnapshot} */ (state);
    title.textContent = t("Order");
    hint.textContent = send ? t("Drag a step to move it, or focus it and press Alt+← or Alt+→.") : "";
    hint.hidden = !send;
    states = new Map();
    for (const client of view.clients) {
      for (const step of client.steps) {
        const state = step.dropped ? "dropped" : step.done ? "done" : view.next === step.id ? "next" : "waiting";
        states.set(step.id, state);
      }
    }
    served = view.order_text.split(" ").filter(Boolean);
    if (!drag && !grabbed) order = [...served];
    const total = view.order.length;
    const progress = view.finished
      ? t("every step has run")
      : fmt(t("step %(n)s of %(total)s next"), { n: num(view.position + 1), total: num(total) });
    const possible = fmt(tn("the only possible order", "one of %(n)s possible orders", view.orderings_possible), {
      n: num(view.orderings_possible),
    });
    where.textContent = fmt(t("%(progress)s · %(possible)s"), { progress, possible });
    for (const [id, chip] of chips) {
      if (!states.has(id)) {
        chip.remove();
        chips.delete(id);
      }
    }
    for (const id of order) {
      let chip = chips.get(id);
      if (!chip) {
        chip = makeChip(id);
        chips.set(id, chip);
      }
      chip.classList.toggle("is-running", running === id);
    }
    if (!focusId || !chips.has(focusId)) focusId = order[0] ?? null;
    place();
  }

  /** @param {string} id */
  function makeChip(id) {
    const chip = document.createElement(send ? "button" : "span");
    chip.className = "rlr-chip";
    chip.dataset.step = id;
    chip.style.setProperty("--client", shardColour(id[0]));
    chip.style.setProperty("--client-ink", inkOn(id[0]));
    const label = document.createElement("span");
    label.className = "rlr-chip-id";
    label.textContent = id;
    chip.append(label);
    if (send && chip instanceof HTMLButtonElement) {
      chip.type = "button";
      chip.setAttribute("aria-describedby", hint.id);
      chip.addEventListener("keydown", (event) => onKey(event, id));
      chip.addEventListener("pointerdown", (event) => onDown(event, id));
      chip.addEventListener("pointermove", onMove);
      chip.addEventListener("pointerup", onUp);
      chip.addEventListener("pointercancel", cancelDrag);
      chip.addEventListener("lostpointercapture", cancelDrag);
      chip.addEventListener("focus", () => {
        focusId = id;
        for (const [other, el] of chips) el.tabIndex = other === id ? 0 : -1;
      });
    } else {
      chip.setAttribute("role", "listitem");
    }
    return chip;
  }

  /** Put the chips in `order`, each with its state and name; keep the focus where it was. */
  function place() {
    const focused = /** @type {HTMLElement | null} */ (document.activeElement);
    const keep = focused && focused.classList.contains("rlr-chip") && row.contains(focused) ? focused : null;
    order.forEach((id, i) => {
      const chip = /** @type {HTMLElement} */ (chips.get(id));
      if (row.children[i] !== chip) row.insertBefore(chip, row.children[i] ?? mark);
      const state = states.get(id) ?? "waiting";
      chip.dataset.state = state;
      chip.classList.toggle("is-grabbed", grabbed?.id === id);
      chip.classList.toggle("is-moved", order.join(" ") !== served.join(" "));
      if (send) {
        chip.tabIndex = id === focusId ? 0 : -1;
        chip.setAttribute("aria-pressed", String(grabbed?.id === id));
      }
      chip.setAttribute("aria-label", chipName(id, i, order.length, state));
    });
    row.append(mark);
    if (keep && document.activeElement !== keep) keep.focus({ preventScroll: true });
  }

  /**
   * @param {string} id
   * @param {number} i its place, from 0
   * @param {number} total
   * @param {string} state done, next, waiting or dropped
   */
  function chipName(id, i, total, state) {
    const said = /** @type {Record<string, string>} */ ({
      done: t("has run"),
      next: t("runs next"),
      waiting: t("not run yet"),
      dropped: t("never runs: its client crashed"),
    })[state];
    return fmt(t("%(step)s, place %(n)s of %(total)s, %(state)s"), {
      step: id,
      n: num(i + 1),
      total: num(total),
      state: said,
    });
  }

  // ---- the rule the server keeps: a client's steps in their own order ----------------

  /**
   * Where `id` may go among `others` (the order without it): [lowest, highest] index.
   * @param {string} id
   * @param {string[]} others
   * @returns {[number, number]}
   */
  function range(id, others) {
    const client = id[0];
    const n = Number(id.slice(1));
    const before = others.indexOf(`${client}${n - 1}`);
    const after = others.indexOf(`${client}${n + 1}`);
    return [before + 1, after < 0 ? others.length : after];
  }

  /**
   * Why `id` cannot go further that way, in words.
   * @param {string} id
   * @param {boolean} forward
   */
  function blockedText(id, forward) {
    const client = id[0];
    const n = Number(id.slice(1));
    const other = `${client}${forward ? n + 1 : n - 1}`;
    return forward
      ? fmt(t("%(step)s stays before %(other)s: a client runs its own steps in their order."), { step: id, other })
      : fmt(t("%(step)s stays after %(other)s: a client runs its own steps in their order."), { step: id, other });
  }

  /** @param {string} text */
  function say(text) {
    note.textContent = text;
  }

  /**
   * Send the order drawn, if it is not the one in force.
   * @param {string} movedId
   */
  function commit(movedId) {
    if (!send) return;
    const text = order.join(" ");
    if (text === served.join(" ")) {
      place();
      return;
    }
    say(
      fmt(t("%(step)s moved to place %(n)s of %(total)s. Order sent: %(order)s."), {
        step: movedId,
        n: num(order.indexOf(movedId) + 1),
        total: num(order.length),
        order: text,
      }),
    );
    place();
    send("set_order", { order: text });
  }

  /**
   * Move `id` one place (`delta` ±1) in the order drawn; false when its client's own
   * order forbids it (said in the note).
   * @param {string} id
   * @param {number} delta
   */
  function shift(id, delta) {
    const from = order.indexOf(id);
    const others = order.filter((s) => s !== id);
    const to = from + delta;
    const [lo, hi] = range(id, others);
    if (to < 0 || to > others.length) return false;
    if (to < lo || to > hi) {
      say(blockedText(id, delta > 0));
      return false;
    }
    order = [...others.slice(0, to), id, ...others.slice(to)];
    return true;
  }

  // ---- keyboard ----------------------------------------------------------------------

  /**
   * @param {KeyboardEvent} event
   * @param {string} id
   */
  function onKey(event, id) {
    const back = event.key === "ArrowLeft" || event.key === "ArrowUp";
    const forward = event.key === "ArrowRight" || event.key === "ArrowDown";
    if ((back || forward) && (event.altKey || grabbed)) {
      event.preventDefault();
      if (shift(id, forward ? 1 : -1)) {
        if (grabbed) {
          place();
          say(fmt(t("%(step)s at place %(n)s of %(total)s."), { step: id, n: num(order.indexOf(id) + 1), total: num(order.length) }));
        } else {
          commit(id);
        }
      }
      return;
    }
    if (back || forward || event.key === "Home" || event.key === "End") {
      event.preventDefault();
      const i = order.indexOf(id);
      const j = event.key === "Home" ? 0 : event.key === "End" ? order.length - 1 : i + (forward ? 1 : -1);
      const next = chips.get(order[Math.max(0, Math.min(order.length - 1, j))]);
      next?.focus();
      return;
    }
    if (event.key === " " || event.key === "Enter") {
      event.preventDefault();
      if (grabbed) {
        grabbed = null;
        commit(id);
      } else {
        grabbed = { id, from: [...order] };
        place();
        say(fmt(t("%(step)s picked up: move it with the arrow keys, put it down with Space or Enter, or press Escape."), { step: id }));
      }
      return;
    }
    if (event.key === "Escape" && grabbed) {
      event.preventDefault();
      event.stopPropagation();
      order = grabbed.from;
      grabbed = null;
      place();
      say(fmt(t("%(step)s put back where it was."), { step: id }));
    }
  }

  // ---- pointer: drag a chip ------------------------------------------------------------

  /**
   * @param {PointerEvent} event
   * @param {string} id
   */
  function onDown(event, id) {
    if (event.button !== 0 || grabbed) return;
    const chip = /** @type {HTMLElement} */ (chips.get(id));
    drag = { id, chip, pointer: event.pointerId, x: event.clientX, y: event.clientY, started: false, index: order.indexOf(id) };
    chip.setPointerCapture(event.pointerId);
  }

  /** @param {PointerEvent} event */
  function onMove(event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.started) {
      if (Math.hypot(dx, dy) < DRAG_PX) return;
      drag.started = true;
      drag.others = order.filter((s) => s !== drag.id);
      drag.rects = drag.others.map((/** @type {string} */ s) => /** @type {HTMLElement} */ (chips.get(s)).getBoundingClientRect());
      drag.box = row.getBoundingClientRect();
      drag.chip.classList.add("is-dragging");
    }
    event.preventDefault();
    drag.chip.style.transform = `translate(${dx}px, ${dy}px)`;
    const after = (/** @type {DOMRect} */ r) => event.clientY > r.bottom || (event.clientY >= r.top && event.clientX > r.left + r.width / 2);
    const wanted = drag.rects.filter(after).length;
    const [lo, hi] = range(drag.id, drag.others);
    const index = Math.max(lo, Math.min(hi, wanted));
    drag.index = index;
    say(index !== wanted ? blockedText(drag.id, wanted > hi) : "");
    showMark(index);
  }

  /**
   * The line where the dragged chip would go: before `others[index]`, or after the last.
   * @param {number} index
   */
  function showMark(index) {
    const rects = drag.rects;
    const box = drag.box;
    const r = rects[Math.min(index, rects.length - 1)];
    if (!r) return;
    const x = index < rects.length ? r.left - 4 : r.right + 3;
    mark.style.transform = `translate(${x - box.left + row.scrollLeft}px, ${r.top - box.top}px)`;
    mark.style.height = `${r.height}px`;
    mark.hidden = false;
  }

  /** @param {PointerEvent} event */
  function onUp(event) {
    if (!drag || event.pointerId !== drag.pointer) return;
    const { id, started, others, index } = drag;
    endDrag();
    if (!started) return;
    order = [...others.slice(0, index), id, ...others.slice(index)];
    focusId = id;
    commit(id);
  }

  function endDrag() {
    if (!drag) return;
    drag.chip.classList.remove("is-dragging");
    drag.chip.style.transform = "";
    if (drag.chip.hasPointerCapture?.(drag.pointer)) drag.chip.releasePointerCapture(drag.pointer);
    drag = null;
    mark.hidden = true;
  }

  function cancelDrag() {
    if (!drag) return;
    endDrag();
    place();
  }

  return {
    draw,
    /** The server refused the order: draw the one in force again. */
    restore() {
      order = [...served];
      grabbed = null;
      place();
    },
    say,
    element: root,
    destroy() {
      endDrag();
      root.remove();
    },
  };
}
