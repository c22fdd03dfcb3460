/**
 * The clients and the counter: one lane per client with its steps as cards in program
 * order (the command as Redis shows it, the reply once run, the decision), and the Redis
 * box with the counter and its expiry. Wide, the box stands between the lanes (A and B
 * at its left, C and D at its right); narrow, it is a row over them and the lanes leave
 * out the key's name (the box names it). `travel(stepId, text, toRedis)` moves a small
 * label between a card and the box: the command going, the reply coming back.
 *
 * Nothing is told by colour alone: a step that has run carries its reply and its place
 * in the order (#3), the next one is marked "next", a dropped one is struck through
 * and says so, an outcome carries a mark and a word, and a key without expiry says "no
 * expiry" in a dashed, hatched box.
 */

import { fmt, num, t } from "../../i18n.js";
import { inkOn, shardColour } from "../../palette.js";
import { commandParts, expiryText, isDecision, outcomeMark, outcomeText, secs, ttlReply } from "./words.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { RaceClient, RaceSnapshot, RaceStep } from "./types.js" */

const NARROW_LANE_PX = 230; // a lane narrower than this leaves out the key's name
const TINY_LANE_PX = 130; // and narrower than this, puts its outcome under its name

/**
 * @param {HTMLElement} parent
 * @param {{send: ((action: string, args?: Record<string, unknown>) => string | null) | null}} options
 *   `send` null: a view that only shows (no Crash buttons)
 */
export function createArena(parent, { send }) {
  const root = document.createElement("div");
  root.className = "rlr-arena";
  const redis = redisBox();
  const packets = document.createElement("div");
  packets.className = "rlr-packets";
  packets.setAttribute("aria-hidden", "true");
  root.append(redis.element, packets);
  parent.append(root);
  /** @type {Map<string, ReturnType<typeof lane>>} */
  const lanes = new Map();
  /** @type {Map<string, HTMLElement>} the cards by step id */
  const cards = new Map();
  let shape = "";
  let clientCount = 0;
  /** @type {Animation[]} */
  let flights = [];

  const observer = new ResizeObserver(() => layout());
  observer.observe(root);

  /** Wide: the box between the lanes; narrow: a row over them, the key's name left out. */
  function layout() {
    const width = root.clientWidth;
    if (!width || !clientCount) return;
    const wide = width >= 150 * clientCount + 170;
    // the lanes are a fraction each, the box 0.9 of one (at least 150 px), 8 px between
    const gaps = 8 * (wide ? clientCount : clientCount - 1);
    const laneWidth = wide ? Math.min((width - gaps) / (clientCount + 0.9), (width - gaps - 150) / clientCount) : (width - gaps) / clientCount;
    const next = `${wide ? "wide" : "narrow"} ${laneWidth < NARROW_LANE_PX ? "short" : "full"} ${laneWidth < TINY_LANE_PX}`;
    if (next === shape) return;
    shape = next;
    root.dataset.layout = wide ? "wide" : "narrow";
    root.dataset.commands = laneWidth < NARROW_LANE_PX ? "short" : "full";
    root.dataset.lanes = laneWidth < TINY_LANE_PX ? "tiny" : "roomy";
    const left = Math.ceil(clientCount / 2);
    root.style.gridTemplateColumns = wide
      ? `repeat(${left}, minmax(0, 1fr)) minmax(150px, 0.9fr) repeat(${clientCount - left}, minmax(0, 1fr))`
      : `repeat(${clientCount}, minmax(0, 1fr))`;
    let i = 0;
    for (const one of lanes.values()) {
      one.element.style.gridColumn = String(wide && i >= left ? i + 2 : i + 1);
      one.element.style.gridRow = wide ? "1" : "2";
      i += 1;
    }
    redis.element.style.gridColumn = wide ? String(left + 1) : "1 / -1";
    redis.element.style.gridRow = "1";
  }

  /**
   * Draw `view` (a snapshot, or one between two: see the renderer).
   * @param {Snapshot} state
   * @param {string | null} running the step being run, marked
   */
  function draw(state, running = null) {
    const view = /** @type {RaceSnapshot} */ (state);
    const names = view.clients.map((c) => c.name);
    for (const [name, one] of lanes) {
      if (!names.includes(name)) {
        one.element.remove();
        lanes.delete(name);
      }
    }
    for (const client of view.clients) {
      let one = lanes.get(client.name);
      if (!one) {
        one = lane(client.name, send);
        lanes.set(client.name, one);
      }
      root.insertBefore(one.element, packets);
      one.update(client, view, running);
    }
    cards.clear();
    for (const one of lanes.values()) for (const [id, card] of one.cards) cards.set(id, card);
    redis.update(view);
    if (clientCount !== view.clients.length) {
      clientCount = view.clients.length;
      root.dataset.clients = String(clientCount);
      shape = "";
    }
    layout();
  }

  /**
   * A label travelling between a step's card and the Redis box; resolves when it lands
   * (at once when there is nothing to move: the caller checks motion first).
   * @param {string} stepId
   * @param {string} text
   * @param {boolean} toRedis
   * @param {number} ms
   */
  function travel(stepId, text, toRedis, ms) {
    const card = cards.get(stepId);
    if (!card || !ms) return Promise.resolve();
    const box = root.getBoundingClientRect();
    const from = card.getBoundingClientRect();
    const to = redis.counter.getBoundingClientRect();
    const packet = document.createElement("span");
    packet.className = `rlr-packet ${toRedis ? "is-command" : "is-reply"}`;
    packet.textContent = text;
    packets.append(packet);
    const size = packet.getBoundingClientRect();
    // the boxes are in the screen's pixels; a translate inside a grown drawing (its CSS
    // zoom, stage-fit.js) is in the drawing's own
    const zoom = packets.currentCSSZoom || 1;
    const centre = (/** @type {DOMRect} */ r) => ({
      x: (r.left + r.width / 2 - box.left - size.width / 2) / zoom,
      y: (r.top + r.height / 2 - box.top - size.height / 2) / zoom,
    });
    const a = centre(from);
    const b = centre(to);
    const [start, end] = toRedis ? [a, b] : [b, a];
    const flight = packet.animate(
      [
        { transform: `translate(${start.x}px, ${start.y}px)`, opacity: 0.2 },
        { transform: `translate(${start.x}px, ${start.y}px)`, opacity: 1, offset: 0.15 },
        { transform: `translate(${end.x}px, ${end.y}px)`, opacity: 1 },
      ],
      { duration: ms, easing: "ease-in-out", fill: "forwards" },
    );
    flights.push(flight);
    return flight.finished.then(
      () => packet.remove(),
      () => packet.remove(),
    );
  }

  /** The counter changed: a short flash on the box (a class; CSS does the rest). */
  function flash() {
    redis.element.classList.remove("is-changed");
    void redis.element.offsetWidth; // restart the animation
    redis.element.classList.add("is-changed");
  }

  function stop() {
    for (const flight of flights) flight.cancel();
    flights = [];
    packets.replaceChildren();
  }

  return {
    draw,
    travel,
    flash,
    stop,
    redisElement: redis.element,
    destroy() {
      stop();
      observer.disconnect();
      root.remove();
    },
  };
}

/**
 * One client's lane: its name, its outcome, a Crash button, its steps.
 * @param {string} name
 * @param {((action: string, args?: Record<string, unknown>) => string | null) | null} send
 */
function lane(name, send) {
  const element = document.createElement("section");
  element.className = "rlr-lane";
  element.dataset.client = name;
  element.style.setProperty("--client", shardColour(name));
  element.style.setProperty("--client-ink", inkOn(name));
  const head = document.createElement("header");
  head.className = "rlr-lane-head";
  const badge = document.createElement("span");
  badge.className = "rlr-badge";
  badge.textContent = name;
  badge.setAttribute("aria-hidden", "true");
  const title = document.createElement("h3");
  title.className = "rlr-lane-title";
  const label = document.createElement("span");
  label.className = "rlr-lane-name";
  const outcome = document.createElement("span");
  outcome.className = "rlr-outcome";
  title.append(label, outcome);
  head.append(badge, title);
  /** @type {HTMLButtonElement | null} */
  let crash = null;
  if (send) {
    crash = document.createElement("button");
    crash.type = "button";
    crash.className = "rlr-crash";
    const icon = document.createElement("span");
    icon.setAttribute("aria-hidden", "true");
    icon.textContent = "☠";
    crash.append(icon, document.createElement("span"));
    crash.addEventListener("click", () => send("crash_client", { client: name }));
    head.append(crash);
  }
  const list = document.createElement("ol");
  list.className = "rlr-steps";
  element.append(head, list);
  /** @type {Map<string, HTMLElement>} */
  const cards = new Map();

  /**
   * @param {RaceClient} client
   * @param {RaceSnapshot} view
   * @param {string | null} running
   */
  function update(client, view, running) {
    element.dataset.outcome = client.outcome;
    label.textContent = fmt(t("Client %(name)s"), { name });
    outcome.textContent = `${outcomeMark(client.outcome)} ${outcomeText(client.outcome)}`.trim();
    outcome.dataset.outcome = client.outcome;
    if (crash) {
      /** @type {HTMLElement} */ (crash.lastElementChild).textContent = t("Crash");
      crash.setAttribute("aria-label", fmt(t("Crash client %(name)s"), { name }));
      crash.hidden = !view.crashable.includes(name);
    }
    const ids = client.steps.map((s) => s.id);
    for (const [id, card] of cards) {
      if (!ids.includes(id)) {
        card.remove();
        cards.delete(id);
      }
    }
    for (const step of client.steps) {
      let card = cards.get(step.id);
      if (!card) {
        card = document.createElement("li");
        card.className = "rlr-step";
        card.dataset.step = step.id;
        cards.set(step.id, card);
      }
      list.append(card);
      drawStep(card, step, view, running === step.id);
    }
  }

  return { element, cards, update };
}

/**
 * One step's card.
 * @param {HTMLElement} card
 * @param {RaceStep} step
 * @param {RaceSnapshot} view
 * @param {boolean} running
 */
function drawStep(card, step, view, running) {
  const state = step.dropped
    ? "dropped"
    : step.done
    ? step.skipped
      ? "skipped"
      : "done"
    : view.next === step.id
    ? "next"
    : "waiting";
  card.dataset.state = state;
  card.dataset.kind = step.kind;
  card.classList.toggle("is-running", running);
  // two lines: the step and its tags; the command and what came of it
  const top = document.createElement("div");
  top.className = "rlr-step-top";
  top.append(span("rlr-step-id", step.id));
  if (step.done && step.seq) top.append(span("rlr-step-seq", fmt(t("#%(n)s"), { n: num(step.seq) })));
  if (state === "next") top.append(span("rlr-step-tag", t("next")));
  if (step.kind === "local") top.append(span("rlr-step-where", t("in the client")));
  if (state === "next" || state === "waiting") {
    if (step.condition === "if_admitted") top.append(span("rlr-step-where", t("only if admitted")));
    if (step.condition === "if_first") top.append(span("rlr-step-where", t("only if INCR replied 1")));
  }
  const body = document.createElement("div");
  body.className = "rlr-step-body";
  if (step.command) {
    const code = document.createElement("code");
    code.className = "rlr-command";
    code.translate = false;
    for (const [text, isKey] of commandParts(step.command, view.key.name)) {
      if (isKey) code.append(span("rlr-key", text));
      else code.append(text);
    }
    body.append(code);
  }
  if (state === "done") {
    const reply = document.createElement("span");
    reply.className = "rlr-reply";
    if (isDecision(step.reply)) {
      reply.dataset.decision = step.reply;
      reply.textContent = `${outcomeMark(step.reply)} ${outcomeText(step.reply)}`;
    } else {
      const code = document.createElement("code");
      code.translate = false;
      code.textContent = step.reply;
      reply.append("→ ", code);
    }
    body.append(reply);
  } else if (state === "skipped") {
    body.append(note(step.condition === "if_first" ? t("sent nothing: its INCR did not make the key") : t("sent nothing: refused, so no write")));
  } else if (state === "dropped") {
    body.append(note(t("never sent: the client crashed")));
  }
  const parts = body.childElementCount ? [top, body] : [top];
  card.replaceChildren(...parts);
  card.setAttribute("aria-label", stepLabel(step, state));
}

/**
 * A step's card's accessible name: the step, its command, what came of it.
 * @param {RaceStep} step
 * @param {string} state done, skipped, dropped, next or waiting
 */
function stepLabel(step, state) {
  const what = step.command ?? "";
  const said = /** @type {Record<string, string>} */ ({
    done: isDecision(step.reply) ? outcomeText(step.reply) : fmt(t("replied %(reply)s"), { reply: step.reply }),
    skipped: t("sent nothing"),
    dropped: t("never sent: the client crashed"),
    next: t("runs next"),
    waiting: t("not run yet"),
  })[state];
  return fmt(t("%(step)s: %(command)s, %(state)s"), { step: step.id, command: what, state: said });
}

/**
 * @param {string} className
 * @param {string} text
 */
function span(className, text) {
  const el = document.createElement("span");
  el.className = className;
  el.textContent = text;
  return el;
}

/** @param {string} text */
function note(text) {
  const el = document.createElement("span");
  el.className = "rlr-step-note";
  el.textContent = text;
  return el;
}

/** The Redis box: the key's name, its value (or no key), its expiry, the lab's clock. */
function redisBox() {
  const element = document.createElement("section");
  element.className = "rlr-redis";
  element.dataset.spot = "redis";
  const title = document.createElement("h3");
  title.className = "rlr-redis-title";
  const name = document.createElement("code");
  name.className = "rlr-key-name";
  name.translate = false;
  const counter = document.createElement("div");
  counter.className = "rlr-counter";
  const value = document.createElement("span");
  value.className = "rlr-value";
  value.translate = false; // a number, or redis-cli's (nil)
  const limit = document.createElement("span");
  limit.className = "rlr-limit";
  counter.append(value, limit);
  const ttl = document.createElement("div");
  ttl.className = "rlr-ttl";
  const ttlWords = document.createElement("span");
  ttlWords.className = "rlr-ttl-words";
  const ttlCode = document.createElement("code");
  ttlCode.className = "rlr-ttl-code";
  ttlCode.translate = false;
  ttl.append(ttlWords, ttlCode);
  const clock = document.createElement("div");
  clock.className = "rlr-clock";
  const locked = document.createElement("div");
  locked.className = "rlr-locked";
  const head = document.createElement("div");
  head.className = "rlr-redis-head";
  head.append(title, name);
  element.append(head, counter, ttl, locked, clock);

  /** @param {RaceSnapshot} view */
  function update(view) {
    const key = view.key;
    title.textContent = t("Redis");
    name.textContent = key.name;
    value.textContent = key.exists ? num(key.value) : "(nil)";
    value.dataset.over = String(key.exists && key.value > view.limit);
    limit.textContent = fmt(t("limit %(limit)s"), { limit: num(view.limit) });
    const kind = !key.exists ? "none" : key.ttl === "none" ? "never" : "some";
    ttl.dataset.ttl = kind;
    element.dataset.ttl = kind;
    ttlWords.textContent = kind === "never" ? `∞ ${expiryText(key)}` : expiryText(key);
    ttlCode.textContent = `TTL → ${ttlReply(key)}`;
    clock.textContent = fmt(t("clock: %(time)s"), { time: secs(view.clock_s) });
    locked.hidden = !view.locked_out;
    locked.textContent = `⚠ ${t("locked out: every request refused, for ever")}`;
    element.dataset.locked = String(Boolean(view.locked_out));
    element.setAttribute(
      "aria-label",
      key.exists
        ? fmt(t("Redis: %(key)s holds %(value)s, %(expiry)s."), { key: key.name, value: num(key.value), expiry: expiryText(key) })
        : fmt(t("Redis: there is no key %(key)s."), { key: key.name }),
    );
  }

  return { element, counter, update };
}
