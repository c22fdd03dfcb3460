/**
 * The result, over the drawing: how many requests this minute were admitted against the
 * limit, in words ("101 admitted — limit 100", "1 over") and as a row of slots, one per
 * admitted request, with the limit drawn as a line: a request admitted past it sits
 * beyond the line, hatched and marked "over". The slots of the race's clients carry
 * their letters, in the order they decided.
 */

import { fmt, num, t, tn } from "../../i18n.js";
import { inkOn, shardColour } from "../../palette.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { RaceSnapshot, RaceStep } from "./types.js" */

/** @param {HTMLElement} parent */
export function createBanner(parent) {
  const root = document.createElement("div");
  root.className = "rlr-banner";
  root.setAttribute("role", "status");
  const words = document.createElement("p");
  words.className = "rlr-result";
  const big = document.createElement("strong");
  big.className = "rlr-result-big";
  const small = document.createElement("span");
  small.className = "rlr-result-small";
  words.append(big, small);
  const slots = document.createElement("ol");
  slots.className = "rlr-slots";
  root.append(words, slots);
  parent.append(root);

  /** @param {Snapshot} state the lab's snapshot, or a state on the way to it */
  function draw(state) {
    const view = /** @type {RaceSnapshot} */ (state);
    const limit = view.limit;
    const admitted = view.admitted;
    const over = Math.max(0, admitted - limit);
    root.dataset.over = String(over > 0);
    root.dataset.finished = String(Boolean(view.finished));
    big.textContent = fmt(t("%(admitted)s admitted — limit %(limit)s"), { admitted: num(admitted), limit: num(limit) });
    if (view.finished) {
      small.textContent = over
        ? `⚠ ${fmt(tn("%(n)s request over the limit", "%(n)s requests over the limit", over), { n: num(over) })}`
        : `✓ ${t("within the limit")}`;
    } else if (view.position === 0) {
      small.textContent = view.starting_admitted ? t("this minute, before the race") : t("a new minute: no key yet");
    } else {
      small.textContent = t("the race is on");
    }
    slots.replaceChildren(...slotsOf(view));
    slots.setAttribute(
      "aria-label",
      fmt(t("Requests admitted this minute: %(admitted)s; the limit is %(limit)s."), { admitted: num(admitted), limit: num(limit) }),
    );
  }

  return {
    draw,
    destroy() {
      root.remove();
    },
  };
}

/**
 * One slot per admitted request near the end of the count, and the line at the limit.
 * @param {RaceSnapshot} view
 */
function slotsOf(view) {
  const limit = view.limit;
  const before = view.starting_admitted;
  // the race's admitted clients, in the order they decided
  const decided = view.clients
    .filter((c) => c.outcome === "admitted")
    // (every program has the step that decides, and one that is done has its place, seq)
    .map((c) => ({ name: c.name, step: /** @type {RaceStep} */ (c.steps.find((s) => s.decides)) }))
    .filter(({ step }) => step?.done)
    .sort((a, b) => /** @type {number} */ (a.step.seq) - /** @type {number} */ (b.step.seq));
  const first = Math.max(1, Math.min(before - 1, limit - 1));
  const last = Math.max(before + view.clients.length, Math.min(limit + 1, first + 3));
  const out = [];
  for (let n = first; n <= last; n += 1) {
    const slot = document.createElement("li");
    slot.className = "rlr-slot";
    const raceIndex = n - before - 1;
    const who = raceIndex >= 0 ? decided[raceIndex]?.name : null;
    const filled = n <= before || Boolean(who);
    slot.dataset.filled = String(filled);
    slot.dataset.over = String(n > limit);
    if (who) {
      slot.dataset.client = who;
      slot.style.setProperty("--client", shardColour(who));
      slot.style.setProperty("--client-ink", inkOn(who));
    }
    const mark = document.createElement("span");
    mark.className = "rlr-slot-mark";
    mark.textContent = who ?? (filled ? "✓" : "");
    const number = document.createElement("span");
    number.className = "rlr-slot-n";
    number.textContent = num(n);
    slot.append(mark, number);
    if (n > limit && filled) {
      const over = document.createElement("span");
      over.className = "rlr-slot-over";
      over.textContent = t("over");
      slot.append(over);
    }
    out.push(slot);
    if (n === limit) {
      const line = document.createElement("li");
      line.className = "rlr-limit-line";
      line.setAttribute("aria-hidden", "true");
      const words = document.createElement("span");
      words.className = "rlr-limit-label";
      words.textContent = t("limit");
      line.append(words);
      out.push(line);
    }
  }
  return out;
}
