/**
 * Renderer of the rate-limit-race lab: clients A–D interleaved step by step against a
 * limit of 100 requests a minute kept in one Redis counter. On the stage, from the top:
 * the result against the limit (banner.js), a lane per client with its steps as cards
 * and the Redis box between them (arena.js), the order the steps run in, which the user
 * reorders by dragging or with the keyboard (strip.js), and, when they apply, every
 * ordering's count and the key's expiry (panels.js). What each way of counting sends
 * and the requests after the race are the side panel's (side.js).
 *
 * A frame that runs steps is played one step at a time from the state before it: the
 * command travels to the box, the counter changes, the reply comes back, the card
 * shows it; reduced motion shows the end at once. Implements the renderer interface of
 * docs/frontend.md.
 */

import { fmt, num, t } from "../i18n.js";
import { createLabRenderer } from "../lab-view.js";
import { duration } from "../motion.js";
import { createArena } from "./rate-limit-race/arena.js";
import { createBanner } from "./rate-limit-race/banner.js";
import { describeEvents } from "./rate-limit-race/describe.js";
import { createOrderings, createPitfall } from "./rate-limit-race/panels.js";
import { createSide } from "./rate-limit-race/side.js";
import { createStrip } from "./rate-limit-race/strip.js";
import { expiryText, modeNames, verb } from "./rate-limit-race/words.js";

/** @import { LabEvent, Renderer, Send, Snapshot } from "../types.js" */

/**
 * What the renderer reads of the snapshot's clients (docs/frontend.md, rate-limit-race).
 * @typedef {{ id: string, kind: string, decides?: boolean, [key: string]: any }} Step
 * @typedef {{ name: string, outcome: string, steps: Step[], [key: string]: any }} Client
 * @typedef {{ clients: Client[], [key: string]: any }} RaceState
 */

const ONE_STEP_MS = 380; // a command's way to Redis (the reply's way back takes as long)
const ALL_STEPS_MS = 3000; // about how long a frame of many steps (Run all) plays in all

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  return createLabRenderer({
    className: "rlr-lab",
    place: "replace",
    metrics: { text: metricsText, className: "rlr-numbers" },
    drawsItself: true,
    // drawn in HTML: about a laptop's stage wide, and as tall as its parts need
    grows: { design: [880, 420] },
    mount(lab, hello) {
      const root = lab.root;
      /** @type {ReturnType<typeof createBanner>} */
      let banner;
      /** @type {ReturnType<typeof createArena>} */
      let arena;
      /** @type {ReturnType<typeof createStrip>} */
      let strip;
      /** @type {ReturnType<typeof createOrderings>} */
      let orderings;
      /** @type {ReturnType<typeof createPitfall>} */
      let pitfall;
      /** @type {ReturnType<typeof createSide> | null} */
      let side = null;
      /** @type {Record<string, string>} */
      let modes = {};
      /** @type {Snapshot | null} the snapshot drawn last, once its animation ends */
      let shown = null;
      /** @type {{cancelled: boolean, timers: number[]} | null} the steps being played */
      let playing = null;

      /**
       * Draw a state: the snapshot, or one on the way to it.
       * @param {Snapshot} view
       * @param {string | null} [running] the step under way
       */
      function drawView(view, running = null) {
        banner.draw(view);
        arena.draw(view, running);
        strip.draw(view, running);
        orderings.draw(view);
        pitfall.draw(view);
        root.dataset.panels = String(!orderings.hidden() || !pitfall.hidden());
      }

      function stop() {
        if (!playing) return;
        playing.cancelled = true;
        for (const timer of playing.timers) clearTimeout(timer);
        playing = null;
        arena?.stop();
      }

      /**
       * Play the steps of `events` from `before` to `after`, one at a time.
       * @param {any} before
       * @param {any} after
       * @param {any[]} steps the frame's `step` events
       */
      async function play(before, after, steps) {
        const run = { cancelled: false, timers: /** @type {number[]} */ ([]) };
        playing = run;
        const wait = (/** @type {number} */ ms) => new Promise((resolve) => run.timers.push(window.setTimeout(resolve, ms)));
        // a step takes about 2.3 ways (there, back, a pause): Run all lasts about 3 s
        const way = duration(steps.length > 1 ? Math.max(90, Math.min(220, ALL_STEPS_MS / (steps.length * 2.3))) : ONE_STEP_MS);
        for (let k = 0; k < steps.length; k += 1) {
          const e = steps[k];
          drawView(between(before, after, steps, k), e.id);
          if (e.skipped || kindOf(after, e.id) === "local") {
            await wait(way);
          } else {
            await arena.travel(e.id, verb(e.command), true, way);
            if (run.cancelled) return;
            // the counter has the command's effect; the card waits for the reply
            drawView(between(before, after, steps, k + 1, e.id), e.id);
            arena.flash();
            await arena.travel(e.id, shortReply(e.reply), false, way);
          }
          if (run.cancelled) return;
          drawView(between(before, after, steps, k + 1), e.id);
          await wait(way / 3);
          if (run.cancelled) return;
        }
        playing = null;
        drawView(after);
      }

      modes = modeNames(hello.declaration);
      // refused actions the drawing sent: said where they were sent from
      /** @type {Map<string, string>} */
      const sentFrom = new Map();
      const send = lab.send;
      /** @param {string} part */
      const sender = (part) =>
        send
          ? /** @type {Send} */ (action, args) => {
              const ref = send(action, args);
              if (ref) sentFrom.set(ref, part);
              if (part === "pitfall") pitfall?.clearError();
              return ref;
            }
          : null;
      banner = lab.own(createBanner(root));
      arena = lab.own(createArena(root, { send: sender("arena") }));
      // the order, and beside it on a wide stage (under it on a narrow one) the panels
      const lower = lab.element("div", "rlr-lower");
      strip = lab.own(createStrip(lower, { send: sender("strip") }));
      const panels = lab.element("div", "rlr-panels", lower);
      orderings = lab.own(createOrderings(panels, { send: sender("strip") }));
      pitfall = lab.own(createPitfall(panels, { send: sender("pitfall") }));
      side = lab.side ? lab.own(createSide(lab.side)) : null;
      lab.onError((error) => {
        const part = sentFrom.get(error.ref ?? "");
        if (!part) return false;
        sentFrom.delete(error.ref ?? "");
        const message = fmt(t("Not applied: %(message)s"), { message: error.message || error.code });
        if (part === "pitfall") pitfall.showError(message);
        else {
          strip.restore();
          strip.say(message);
        }
        return true;
      });
      lab.onDestroy(() => stop());
      shown = hello.snapshot;
      drawView(shown);
      side?.update(shown, modes);
      return {
        update(frame) {
          stop();
          const before = shown;
          const after = frame.snapshot;
          shown = after;
          side?.update(after, modes);
          lab.drawMetrics(frame.metrics, after);
          const steps = (frame.events ?? []).filter((e) => e.type === "step");
          if (before && steps.length && duration(ONE_STEP_MS) > 0) {
            play(before, after, steps);
            return;
          }
          drawView(after);
          if (before && JSON.stringify(before.key) !== JSON.stringify(after.key)) arena.flash();
          // a panel that has just been filled is brought into the stage's view (a phone's
          // stage is short, and scrolls)
          const types = new Set((frame.events ?? []).map((e) => e.type));
          if (types.has("orderings")) reveal(orderings.element);
          else if (types.has("time_passed") || types.has("requests")) reveal(pitfall.element);
        },
        describe: (events) => describeEvents(events, modes),
      };
    },
  });
}

/**
 * Scroll the stage (only the stage, never the page) so that `element` is in its view.
 * @param {HTMLElement} element
 */
function reveal(element) {
  const stage = element.closest(".stage");
  if (!stage || element.hidden) return;
  const room = stage.getBoundingClientRect();
  const box = element.getBoundingClientRect();
  const below = box.bottom - room.bottom;
  const above = box.top - room.top;
  const by = below > 0 ? Math.min(below + 6, above) : 0;
  if (by > 0) stage.scrollBy({ top: by, behavior: duration(1) ? "smooth" : "auto" });
}

/**
 * Whether step `id` is a command to Redis or the client's own check.
 * @param {RaceState} snapshot
 * @param {string} id
 */
function kindOf(snapshot, id) {
  for (const client of snapshot.clients) {
    const step = client.steps.find((s) => s.id === id);
    if (step) return step.kind;
  }
  return "redis";
}

/**
 * A reply as short as a travelling label can be: "99", 100, OK, (nil).
 * @param {string} reply
 */
function shortReply(reply) {
  return reply.replace(/^\(integer\) /, "");
}

/**
 * The state after the first `revealed` of `steps` (a frame's `step` events): `after`,
 * with the steps not yet revealed (and the decisions they make) as they were `before`;
 * `held`, a step whose reply is still on its way, is drawn as before too.
 * @param {RaceState} before
 * @param {RaceState} after
 * @param {LabEvent[]} steps
 * @param {number} revealed
 * @param {string | null} [held]
 * @returns {Snapshot}
 */
function between(before, after, steps, revealed, held = null) {
  const future = new Set(steps.slice(revealed).map((e) => e.id));
  if (held) future.add(held);
  const beforeSteps = new Map(before.clients.flatMap((c) => c.steps.map((s) => [s.id, s])));
  const beforeOutcome = new Map(before.clients.map((c) => [c.name, c.outcome]));
  const clients = after.clients.map((client) => {
    const decides = client.steps.find((s) => s.decides);
    return {
      ...client,
      outcome: decides && future.has(decides.id) ? (beforeOutcome.get(client.name) ?? "pending") : client.outcome,
      steps: client.steps.map((s) => (future.has(s.id) ? (beforeSteps.get(s.id) ?? s) : s)),
    };
  });
  const last = steps[revealed - 1];
  const key = last
    ? { ...after.key, exists: last.value_after !== null, value: last.value_after, ttl: last.ttl_after }
    : before.key;
  const admitted = before.admitted + steps.slice(0, revealed).filter((e) => e.admitted === true && e.id !== held).length;
  const position = before.position + revealed;
  const done = revealed === steps.length;
  return {
    ...after,
    clients,
    key,
    admitted,
    overshoot: Math.max(0, admitted - after.limit),
    position,
    next: done ? after.next : (after.order[position] ?? null),
    finished: done ? after.finished : false,
  };
}

/**
 * The race's numbers in words.
 * @param {Record<string, any>} metrics
 */
function metricsText(metrics) {
  const parts = [
    fmt(t("Admitted this minute: %(admitted)s (limit %(limit)s)"), { admitted: num(metrics.admitted), limit: num(metrics.limit) }),
    metrics.counter === null
      ? t("no counter")
      : fmt(t("counter %(value)s, %(expiry)s"), {
          value: num(metrics.counter),
          expiry: expiryText({ exists: true, ttl: metrics.ttl }),
        }),
    fmt(t("steps run: %(run)s, left: %(left)s"), { run: num(metrics.steps_run), left: num(metrics.steps_left) }),
  ];
  if (metrics.orderings !== null) {
    parts.push(fmt(t("orderings that overshoot: %(over)s of %(n)s"), { over: num(metrics.overshooting_orderings), n: num(metrics.orderings) }));
  }
  if (metrics.later_admitted || metrics.later_refused) {
    parts.push(fmt(t("later requests: %(admitted)s admitted, %(refused)s refused"), { admitted: num(metrics.later_admitted), refused: num(metrics.later_refused) }));
  }
  return parts.join(" · ");
}
