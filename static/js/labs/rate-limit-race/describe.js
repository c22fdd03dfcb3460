/** What a rate-limit-race frame's events mean, in sentences for the live region and log. */

import { fmt, joinNames, joinSentences, num, t, tn } from "../../i18n.js";
import { expiryText, isDecision, outcomeText, secs } from "./words.js";

/** @import { LabEvent } from "../../types.js" */
/** @import { RaceEvents, StepEvent, Ttl } from "./types.js" */
/** @typedef {(e: LabEvent, modes: Record<string, string>) => string} Say */

/**
 * @param {LabEvent[]} events
 * @param {Record<string, string>} modes the ways of counting by code, in words
 * @returns {string[]}
 */
export function describeEvents(events, modes) {
  const out = [];
  const steps = /** @type {StepEvent[]} */ (events.filter((e) => e.type === "step"));
  for (const e of events) {
    // several steps at once (Run all): one sentence for them, not one each; else an
    // event's type picks its sentence, which takes that type's event
    const said =
      e.type === "step" && steps.length > 1
        ? e === steps[0]
          ? manySteps(steps)
          : null
        : /** @type {Record<string, Say | undefined>} */ (/** @type {unknown} */ (SENTENCES))[e.type]?.(e, modes);
    if (said) out.push(said);
  }
  return out;
}

/**
 * Steps run in one frame: their order, then who was admitted or refused.
 * @param {StepEvent[]} steps
 */
function manySteps(steps) {
  const decided = steps.filter((e) => e.admitted !== undefined || isDecision(e.reply));
  const head = fmt(t("Steps run in order: %(order)s."), { order: steps.map((e) => e.id).join(" ") });
  if (!decided.length) return head;
  const who = decided.map((e) =>
    fmt(t("%(client)s %(outcome)s"), {
      client: e.client,
      // (a step without `admitted` is decided when its reply is the decision)
      outcome: outcomeText(e.admitted === undefined ? /** @type {string} */ (e.reply) : e.admitted ? "admitted" : "refused"),
    }),
  );
  return joinSentences([head, fmt(t("Decided: %(who)s."), { who: joinNames(who) })]);
}

/**
 * The key after an event that carries `value` and `ttl`, in words.
 * @param {number | null | undefined} value
 * @param {Ttl} ttl
 */
function keyNow(value, ttl) {
  if (value === null || value === undefined) return t("there is no key");
  return fmt(t("the counter holds %(value)s, %(expiry)s"), {
    value: num(value),
    expiry: expiryText({ exists: true, ttl }),
  });
}

/**
 * A sentence for each kind of event; `modes`: the ways of counting by code, in words.
 * @type {{[K in keyof RaceEvents]: (e: RaceEvents[K], modes: Record<string, string>) => string}}
 */
const SENTENCES = {
  step: (e) => {
    if (e.skipped) {
      return fmt(t("%(step)s: client %(client)s sends nothing."), { step: e.id, client: e.client });
    }
    if (isDecision(e.reply)) {
      return fmt(t("%(step)s: client %(client)s checks %(check)s: %(outcome)s."), {
        step: e.id,
        client: e.client,
        check: e.command,
        outcome: outcomeText(e.reply),
      });
    }
    const said = fmt(t("%(step)s: client %(client)s sends %(command)s; Redis replies %(reply)s."), {
      step: e.id,
      client: e.client,
      command: e.command.startsWith("EVAL") ? t("the Lua script") : e.command,
      reply: e.reply,
    });
    if (e.admitted === true) return joinSentences([said, t("Admitted.")]);
    if (e.admitted === false) return joinSentences([said, t("Refused: over the limit.")]);
    return said;
  },
  race_done: (e) =>
    e.overshoot > 0
      ? fmt(t("Race over: %(admitted)s requests admitted this minute, %(over)s over the limit of %(limit)s; the counter says %(value)s."), {
          admitted: num(e.admitted),
          over: num(e.overshoot),
          limit: num(e.limit),
          value: e.value === null ? "(nil)" : num(e.value),
        })
      : fmt(t("Race over: %(admitted)s requests admitted this minute, within the limit of %(limit)s; the counter says %(value)s."), {
          admitted: num(e.admitted),
          limit: num(e.limit),
          value: e.value === null ? "(nil)" : num(e.value),
        }),
  race_reset: (e, modes) => {
    const order = e.order.join(" ");
    if (e.reason === "mode") {
      return fmt(t("Counting now with “%(mode)s”; the race starts again in the order %(order)s."), { mode: modes[e.mode] ?? e.mode, order });
    }
    if (e.reason === "clients") {
      return fmt(tn("%(n)s client races now, in the order %(order)s.", "%(n)s clients race now, in the order %(order)s.", e.clients), {
        n: num(e.clients),
        order,
      });
    }
    if (e.reason === "admitted") {
      return e.starting_admitted === 0
        ? t("The race starts a new minute: nothing admitted yet, and no counter.")
        : fmt(t("The race starts with %(n)s requests admitted this minute."), { n: num(e.starting_admitted) });
    }
    return fmt(t("Back to the start of the race, in the order %(order)s."), { order });
  },
  order_set: (e) => fmt(t("The order is now %(order)s; the race starts again."), { order: e.order.join(" ") }),
  shuffled: (e) => fmt(t("The scheduler drew the order %(order)s; the race starts again."), { order: e.order.join(" ") }),
  orderings: (e) =>
    e.overshooting > 0
      ? fmt(t("Every ordering played: %(over)s of %(n)s admit more than %(limit)s (at worst %(worst)s); %(safe)s stay within it."), {
          over: num(e.overshooting),
          n: num(e.orderings),
          limit: num(e.limit),
          worst: num(e.worst_admitted),
          safe: num(e.orderings - e.overshooting),
        })
      : fmt(t("Every ordering played: all %(n)s stay within the limit of %(limit)s."), { n: num(e.orderings), limit: num(e.limit) }),
  client_crashed: (e) => {
    const head = e.after
      ? fmt(t("Client %(client)s crashed after %(after)s: %(dropped)s will never run."), {
          client: e.client,
          after: e.after,
          dropped: joinNames(e.dropped),
        })
      : fmt(t("Client %(client)s crashed before its first step: %(dropped)s will never run."), {
          client: e.client,
          dropped: joinNames(e.dropped),
        });
    return joinSentences([head, fmt(t("Now %(key)s."), { key: keyNow(e.value, e.ttl) })]);
  },
  time_passed: (e) => {
    const head = fmt(t("%(time)s passed (the clock says %(clock)s)."), { time: secs(e.seconds), clock: secs(e.clock_s) });
    let tail;
    if (e.expired) tail = fmt(t("The key expired at %(at)s and is gone."), { at: secs(e.expired_at) });
    else if (e.value !== null && e.ttl === "none") tail = t("The key is still there: it has no expiry and never will.");
    else tail = fmt(t("Now %(key)s."), { key: keyNow(e.value, e.ttl) });
    return joinSentences([head, tail, e.locked_out && t("User42 is locked out.")]);
  },
  requests: (e) => {
    const head = fmt(tn("%(n)s more request: %(admitted)s admitted, %(refused)s refused.", "%(n)s more requests: %(admitted)s admitted, %(refused)s refused.", e.count), {
      n: num(e.count),
      admitted: num(e.admitted),
      refused: num(e.refused),
    });
    const tail = fmt(t("Now %(key)s."), { key: keyNow(e.value, e.ttl) });
    return joinSentences([head, tail, e.locked_out && t("User42 is locked out: the counter never expires.")]);
  },
};
