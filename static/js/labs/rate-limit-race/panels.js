/**
 * What the stage shows under the order when it applies:
 *
 * - "Every ordering": how many interleavings of this race there are, how many admit more
 *   than the limit, a small histogram of the admitted counts (the bars past the limit
 *   hatched and marked "over") and the orders that overshoot, each a button that loads
 *   it into the strip (`set_order`).
 * - The expiry pitfall, when the clients count with INCR then EXPIRE, a Lua script, or
 *   SET … NX then INCR: what the key's expiry is now and why, and the clicks that show
 *   it (a new minute, a minute passing, more requests).
 */

import d3 from "d3";
import { fmt, num, t, tn } from "../../i18n.js";
import { EXPIRY_MODES, expiryText } from "./words.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { Enumeration, RaceSnapshot } from "./types.js" */

/**
 * A bar of the histogram: how many orderings admit `admitted` requests.
 * @typedef {{admitted: number, count: number, over: boolean}} Bar
 */

const W = 240;
const H = 78;
const M = { left: 6, right: 6, top: 14, bottom: 24 };

/**
 * @param {HTMLElement} parent
 * @param {{send: ((action: string, args?: Record<string, unknown>) => string | null) | null}} options
 */
export function createOrderings(parent, { send }) {
  const root = document.createElement("section");
  root.className = "rlr-orderings";
  root.dataset.spot = "orderings";
  const text = document.createElement("div");
  text.className = "rlr-orderings-text";
  const title = document.createElement("h3");
  title.className = "rlr-panel-title";
  const sum = document.createElement("p");
  sum.className = "rlr-orderings-sum";
  const examples = document.createElement("div");
  examples.className = "rlr-examples";
  text.append(title, sum, examples);
  const figure = document.createElement("div");
  figure.className = "rlr-histogram";
  root.append(text, figure);
  parent.append(root);
  const svg = d3.select(figure).append("svg").attr("role", "img").attr("viewBox", `0 0 ${W} ${H}`);
  const defs = svg.append("defs");
  defs
    .append("pattern")
    .attr("id", "rlr-over-hatch")
    .attr("width", 6)
    .attr("height", 6)
    .attr("patternUnits", "userSpaceOnUse")
    .attr("patternTransform", "rotate(45)")
    .append("rect")
    .attr("width", 3)
    .attr("height", 6)
    .attr("class", "rlr-hatch-line");
  const bars = svg.append("g");
  const base = svg.append("line").attr("class", "rlr-hist-base");

  /** @param {Snapshot} state the lab's snapshot, or a state on the way to it */
  function draw(state) {
    const view = /** @type {RaceSnapshot} */ (state);
    const e = view.enumeration;
    root.hidden = !e || !e.this_case;
    if (!e || root.hidden) return;
    title.textContent = t("Every ordering");
    sum.textContent = fmt(
      tn(
        "%(over)s of %(n)s ordering admits more than %(limit)s",
        "%(over)s of %(n)s orderings admit more than %(limit)s",
        e.orderings,
      ),
      { over: num(e.overshooting), n: num(e.orderings), limit: num(e.limit) },
    );
    root.dataset.over = String(e.overshooting > 0);
    const head = document.createElement("span");
    head.className = "rlr-examples-head";
    head.textContent = e.examples.length ? t("Orders that overshoot:") : t("No order overshoots.");
    const buttons = e.examples.map((order) => {
      const current = order === view.order_text;
      if (!send) {
        const code = document.createElement("code");
        code.textContent = order;
        return code;
      }
      const button = document.createElement("button");
      button.type = "button";
      button.className = "rlr-example";
      button.textContent = order;
      button.translate = false;
      button.setAttribute("aria-pressed", String(current));
      button.setAttribute("aria-label", fmt(t("Play the order %(order)s"), { order }));
      button.addEventListener("click", () => send("set_order", { order }));
      return button;
    });
    examples.replaceChildren(head, ...buttons);
    drawBars(e);
  }

  /** @param {Enumeration} e */
  function drawBars(e) {
    const data = e.by_admitted.map(([admitted, count]) => ({ admitted, count, over: admitted > e.limit }));
    const x = d3
      .scaleBand()
      .domain(data.map((d) => String(d.admitted)))
      .range([M.left, W - M.right])
      .padding(0.25);
    const y = d3
      .scaleLinear()
      .domain([0, Math.max(1, ...data.map((d) => Number(d.count)))])
      .range([H - M.bottom, M.top]);
    const g = bars
      .selectAll("g.rlr-bar")
      .data(data, (d) => d.admitted)
      .join((enter) => {
        const one = enter.append("g").attr("class", "rlr-bar");
        one.append("rect");
        one.append("text").attr("class", "rlr-bar-count");
        one.append("text").attr("class", "rlr-bar-label");
        return one;
      })
      .attr("data-over", (d) => String(d.over));
    const width = Math.min(x.bandwidth(), 46);
    const left = (/** @type {Bar} */ d) => (x(String(d.admitted)) ?? 0) + (x.bandwidth() - width) / 2;
    g.select("rect")
      .attr("x", left)
      .attr("width", width)
      .attr("y", (d) => y(d.count))
      .attr("height", (d) => Math.max(1, H - M.bottom - y(d.count)));
    g.select(".rlr-bar-count")
      .attr("x", (d) => left(d) + width / 2)
      .attr("y", (d) => y(d.count) - 3)
      .text((d) => num(d.count));
    g.select(".rlr-bar-label")
      .attr("x", (d) => left(d) + width / 2)
      .attr("y", H - M.bottom + 12)
      .text((d) => (d.over ? fmt(t("%(n)s (over)"), { n: num(d.admitted) }) : num(d.admitted)));
    base
      .attr("x1", M.left)
      .attr("x2", W - M.right)
      .attr("y1", H - M.bottom)
      .attr("y2", H - M.bottom);
    svg.attr(
      "aria-label",
      fmt(t("Orderings by requests admitted: %(bars)s."), {
        bars: data
          .map((d) => fmt(tn("%(n)s ordering admits %(admitted)s", "%(n)s orderings admit %(admitted)s", d.count), { n: num(d.count), admitted: num(d.admitted) }))
          .join(t(", ")),
      }),
    );
  }

  return {
    draw,
    hidden: () => root.hidden,
    element: root,
    destroy() {
      root.remove();
    },
  };
}

/**
 * The expiry pitfall and its two fixes.
 * @param {HTMLElement} parent
 * @param {{send: ((action: string, args?: Record<string, unknown>) => string | null) | null}} options
 */
export function createPitfall(parent, { send }) {
  const root = document.createElement("section");
  root.className = "rlr-pitfall";
  root.dataset.spot = "pitfall";
  const title = document.createElement("h3");
  title.className = "rlr-panel-title";
  const how = document.createElement("p");
  how.className = "rlr-pitfall-how";
  const now = document.createElement("p");
  now.className = "rlr-pitfall-now";
  const later = document.createElement("p");
  later.className = "rlr-pitfall-later";
  const buttons = document.createElement("div");
  buttons.className = "rlr-pitfall-buttons";
  const error = document.createElement("p");
  error.className = "rlr-panel-error";
  error.setAttribute("role", "alert");
  error.hidden = true;
  root.append(title, how, now, later, buttons, error);
  parent.append(root);
  /** @type {Array<{button: HTMLButtonElement, show: (view: RaceSnapshot) => boolean}>} */
  const actions = [];

  /**
   * A button that sends `name` with `args`, shown while `show(view)` holds.
   * @param {string} label
   * @param {string} name
   * @param {Record<string, unknown>} args
   * @param {(view: RaceSnapshot) => boolean} show
   */
  function action(label, name, args, show) {
    if (!send) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "button button-quiet rlr-pitfall-button";
    button.dataset.action = name;
    button.textContent = label;
    button.addEventListener("click", () => {
      error.hidden = true;
      send(name, args);
    });
    buttons.append(button);
    actions.push({ button, show });
  }

  action(t("A new minute: 0 admitted"), "set_admitted", { count: 0 }, (v) => v.starting_admitted !== 0);
  action(t("Let 61 s pass"), "pass_time", { seconds: 61 }, () => true);
  action(t("Send 1 more request"), "new_request", { count: 1 }, () => true);
  action(t("Send 100 more"), "new_request", { count: 100 }, () => true);

  /** @param {Snapshot} state the lab's snapshot, or a state on the way to it */
  function draw(state) {
    const view = /** @type {RaceSnapshot} */ (state);
    root.hidden = !EXPIRY_MODES.has(view.mode);
    if (root.hidden) return;
    const key = view.key;
    const never = key.exists && key.ttl === "none";
    root.dataset.never = String(never);
    root.dataset.locked = String(Boolean(view.locked_out));
    title.textContent = t("The key's expiry");
    how.textContent = /** @type {Record<string, string>} */ ({
      incr_then_expire: t("INCR, then EXPIRE as a second command: only the client whose INCR made the key sends the EXPIRE. If it dies between the two, nobody does."),
      lua: t("A Lua script runs INCR and EXPIRE as one step: nothing can run, or die, between them."),
      set_nx_then_incr: t("SET … EX 60 NX makes the key with its expiry before anyone counts: a crash after it leaves a key that still expires."),
    })[view.mode];
    if (!key.exists) {
      now.textContent =
        key.last_expired_at_s !== null
          ? fmt(t("No key: it expired at %(s)s s. The next request starts a new minute."), { s: num(/** @type {number} */ (view.key.last_expired_at_s)) })
        : t("No key yet: the first INCR makes it.");
    } else if (never) {
      now.textContent = fmt(t("%(key)s = %(value)s with no expiry: it is never deleted, and every request keeps counting on it."), {
        key: key.name,
        value: num(key.value),
      });
    } else {
      now.textContent = fmt(t("%(key)s = %(value)s, %(expiry)s."), { key: key.name, value: num(key.value), expiry: expiryText(key) });
    }
    const counts = view.later;
    later.hidden = !(counts.admitted || counts.refused) && !view.locked_out;
    later.textContent = view.locked_out
      ? fmt(t("Locked out: every request from user42 is refused, for ever. Later requests: %(admitted)s admitted, %(refused)s refused."), {
          admitted: num(counts.admitted),
          refused: num(counts.refused),
        })
      : fmt(t("Later requests: %(admitted)s admitted, %(refused)s refused."), {
          admitted: num(counts.admitted),
          refused: num(counts.refused),
        });
    for (const { button, show } of actions) button.hidden = !show(view);
  }

  return {
    draw,
    hidden: () => root.hidden,
    element: root,
    /** A refused click of ours: said under the buttons. */
    /** @param {string} message */
    showError(message) {
      error.textContent = message;
      error.hidden = false;
    },
    clearError() {
      error.hidden = true;
    },
    destroy() {
      root.remove();
    },
  };
}
