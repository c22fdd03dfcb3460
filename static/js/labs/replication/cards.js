/**
 * Each server's card beside its node in the network view: its role, its write-ahead log
 * as a queue of boxes (applied, received but not applied, not received), Ana's email as
 * it shows it, and how far behind it is. Everything is also said in words: a box's
 * state is its fill *and* its mark.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { NODE_RADIUS } from "../../network/layout.js";
import { roomViewBox } from "../../stage-fit.js";
import { lagText, placeText, roleText } from "./words.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { RpServer, RpSnapshot } from "./types.js" */

/** @typedef {ReturnType<typeof import("../../network-view.js").createNetworkView>} NetworkView */
/** @typedef {{x: number, y: number, width: number, height: number, narrow: boolean}} CardBox */
/** @typedef {{lsn: number, state: "applied" | "received" | "missing"}} QueueBox */

const BOX = 10; // a record's box, and the gap after it
const STEP = BOX + 2;
const GAP = 8;
const EDGE = 3;
const CARD_GAP = 4; // between a phone's cards
const WIDE_CARD = { width: 230, height: 74 }; // at most (wider, it covers a link's latency)
const NARROW_CARD_HEIGHT = 62;
const CHAR = 7; // about how wide a character of the cards' 12 px text is
/** Where a phone's cards begin: under the row of servers and their "stopped" tags. */
const NARROW_TOP = 92;
/** A wide drawing's servers: the first row's centres, and what the cards need under it. */
const WIDE_TOP = 34;
const WIDE_NEED = WIDE_TOP + NODE_RADIUS + GAP + 4 + WIDE_CARD.height + 4; // without the dip
/** How far the middle servers dip: enough that a link between the outer two passes clear of them. */
const DIP = 34;

/** @type {WeakMap<SVGGElement, string>} what each panel last drew */
const drawnKeys = new WeakMap();

/**
 * The drawing's viewBox for the room the stage gives it (CSS pixels; stage-fit.js's
 * roomViewBox): that room, one unit a pixel, so the cards' text is drawn at its own size
 * (13 and 12 px); a wide room larger than the drawing needs enlarges it (up to 1.4×).
 * Never smaller than the cards need: in a smaller room the drawing is scaled down to fit.
 * @param {{width: number, height: number, narrow: boolean}} room
 * @returns {[number, number]}
 */
export function viewBoxFor(room) {
  return roomViewBox(
    room,
    room.narrow
      ? { design: [380, 320], least: [300, NARROW_TOP + 2 * (NARROW_CARD_HEIGHT + CARD_GAP)], most: 1 }
      : { design: [900, 260], least: [560, WIDE_NEED + DIP], most: 1.4 },
  );
}

/**
 * Where the servers stand, as fractions of the drawing, `ids` from the nearest to the
 * farthest: wide, left to right on a shallow arc with the cards under them, the whole
 * centred in the height; on a phone, one row with a shallow zigzag (the links do not
 * run through a server), the cards in a list under it.
 * @param {string[]} ids
 * @param {{width: number, height: number, narrow: boolean}} size
 */
export function serverSpots(ids, { height, narrow }) {
  /** @type {Record<string, [number, number]>} */
  const spots = {};
  const n = ids.length;
  if (narrow) {
    ids.forEach((id, i) => {
      spots[id] = [(i + 0.5) / n, (i % 2 ? 58 : 34) / height];
    });
    return spots;
  }
  const dip = n > 2 ? Math.min(DIP + 6, Math.max(DIP, height - WIDE_NEED)) : 0;
  const top = WIDE_TOP + Math.max(0, (height - WIDE_NEED - dip) / 2);
  ids.forEach((id, i) => {
    const y = top + dip * Math.sin((Math.PI * i) / Math.max(1, n - 1));
    spots[id] = [(i + 0.5) / n, y / height];
  });
  return spots;
}

/**
 * How many columns a phone's cards take: as few as the height holds.
 * @param {number} count
 * @param {number} height
 */
function columnsFor(count, height) {
  for (let c = 1; c < count; c += 1) {
    if (NARROW_TOP + Math.ceil(count / c) * (NARROW_CARD_HEIGHT + CARD_GAP) <= height) return c;
  }
  return Math.max(1, Math.min(2, count));
}

/**
 * Every card's box in the drawing's units, by server id: wide, under its server, kept
 * inside the drawing; on a phone, in the servers' order left to right, in a list (or two
 * columns) under the row of servers, each card saying whose it is.
 * @param {NetworkView["layout"]} layout the network view's
 * @param {string[]} ids
 */
function cardBoxes(layout, ids) {
  /** @type {Map<string, CardBox>} */
  const boxes = new Map();
  /** @type {(id: string) => {x: number, y: number}} */
  const at = (id) => layout.positions.get(id) ?? { x: layout.width / 2, y: layout.height / 2 };
  if (!layout.narrow) {
    const width = Math.min(WIDE_CARD.width, Math.floor(layout.width / Math.max(1, ids.length)) - 12);
    for (const id of ids) {
      const { x, y } = at(id);
      const left = Math.min(Math.max(x - width / 2, EDGE), layout.width - EDGE - width);
      boxes.set(id, { x: left, y: y + layout.radius + GAP + 4, width, height: WIDE_CARD.height, narrow: false });
    }
    return boxes;
  }
  const order = [...ids].sort((a, b) => at(a).x - at(b).x);
  const columns = columnsFor(order.length, layout.height);
  const width = Math.floor((layout.width - CARD_GAP * (columns + 1)) / columns);
  order.forEach((id, i) => {
    boxes.set(id, {
      x: CARD_GAP + (i % columns) * (width + CARD_GAP),
      y: NARROW_TOP + Math.floor(i / columns) * (NARROW_CARD_HEIGHT + CARD_GAP),
      width,
      height: NARROW_CARD_HEIGHT,
      narrow: true,
    });
  });
  return boxes;
}

/**
 * Where each of the newest records stands on `server`: "applied", "received", "missing".
 * @param {RpServer} server
 * @param {{length: number}} log
 * @param {number} [count]
 * @returns {QueueBox[]}
 */
export function queueOf(server, log, count = 12) {
  const last = log.length;
  const first = Math.max(1, last - count + 1);
  /** @type {QueueBox[]} */
  const boxes = [];
  for (let lsn = first; lsn <= last; lsn += 1) {
    const state = lsn <= server.applied ? "applied" : lsn <= server.received ? "received" : "missing";
    boxes.push({ lsn, state });
  }
  return boxes;
}

/**
 * @param {string} text
 * @param {number} [most]
 */
function shorten(text, most = 26) {
  return text.length > most ? `${text.slice(0, most - 1)}…` : text;
}

/**
 * Ana's email in `room` characters: whole, or its domain, cut to fit.
 * @param {string} email
 * @param {number} room
 */
function emailIn(email, room) {
  if (email.length <= room) return email;
  return shorten(email.split("@")[1] ?? email, Math.max(6, room));
}

/**
 * Draw every server's card into the view's panels.
 * @param {NetworkView} view
 * @param {Snapshot} snap
 */
export function drawCards(view, snap) {
  const snapshot = /** @type {RpSnapshot} */ (snap);
  const servers = new Map((snapshot.servers ?? []).map((s) => [s.id, s]));
  const layout = view.layout;
  const boxes = cardBoxes(
    layout,
    [...layout.positions.keys()].filter((id) => servers.has(id)),
  );
  view.panels.each(function drawPanel(/** @type {{id: string}} */ node) {
    const element = /** @type {SVGGElement} */ (this); // a node's panel
    const panel = d3.select(element);
    const server = servers.get(node.id);
    const at = layout.positions.get(node.id);
    const box = boxes.get(node.id);
    const key = JSON.stringify([layout.width, layout.height, at?.x, at?.y, box, server, snapshot.log.length]);
    if (drawnKeys.get(element) === key) return;
    drawnKeys.set(element, key);
    if (!server || !box || !at) {
      panel.selectAll("*").remove();
      return;
    }
    if (panel.select("g.rp-card").empty()) enterCard(panel);
    panel.select(".rp-card-box").attr("width", box.width).attr("height", box.height);
    panel.select(".rp-queue").attr("transform", `translate(7,${box.narrow ? 34 : 39})`);
    panel.select(".rp-lag").attr("y", box.height - 7);
    panel.attr("data-role", server.role).attr("data-applied", server.applied).attr("data-received", server.received);
    const card = panel.select("g.rp-card").attr("data-spot", `server-${server.id}`);
    card.classed("is-primary", server.role === "primary").classed("is-down", !server.up);
    // a phone's card is not under its server: it says whose it is
    card.select(".rp-id").text(box.narrow ? `${server.id}\u00a0\u00a0` : "");
    card.select(".rp-role-text").text(roleText(server));
    const chars = Math.floor((box.width - 14) / CHAR);
    card.select(".rp-email").text(fmt(t("Ana: %(email)s"), { email: emailIn(server.rows.ana, chars - 5) }));
    const fits = Math.min(24, Math.max(4, Math.floor((box.width - 14) / STEP)));
    card
      .select(".rp-queue")
      .selectAll("g.rp-box")
      .data(queueOf(server, snapshot.log, fits), (d) => d.lsn)
      .join((enter) => {
        const g = enter.append("g").attr("class", "rp-box");
        g.append("rect").attr("width", BOX).attr("height", BOX).attr("rx", 1.5);
        g.append("text").attr("x", BOX / 2).attr("y", BOX - 1.5);
        return g;
      })
      .attr("class", (d) => `rp-box is-${d.state}`)
      .attr("transform", (_d, i) => `translate(${i * STEP},0)`)
      .select("text")
      .text((d) => (d.state === "received" ? "·" : ""));
    const behind = lagText(server.lag_records, server.lag_ms);
    const down = fmt(t("down, holds %(n)s records"), { n: num(server.received + server.tail) });
    const lag =
      server.role === "primary"
        ? fmt(t("log: %(n)s records"), { n: num(snapshot.log.length) })
        : server.up
          ? behind.length > chars && server.lag_records
            ? fmt(t("%(n)s behind"), { n: num(server.lag_records) })
            : behind
          : down.length > chars
            ? fmt(t("log: %(n)s records"), { n: num(server.received + server.tail) })
            : down;
    card.select(".rp-lag").text(lag);
    card.attr("transform", `translate(${box.x - at.x},${box.y - at.y})`);
  });
}

/** @param {d3.Selection<SVGGElement, unknown, null, undefined>} panel a node's panel */
function enterCard(panel) {
  panel.attr("pointer-events", "none");
  const card = panel.append("g").attr("class", "rp-card");
  card.append("rect").attr("class", "rp-card-box").attr("rx", 6);
  const role = card.append("text").attr("class", "rp-role").attr("x", 7).attr("y", 15);
  role.append("tspan").attr("class", "rp-id");
  role.append("tspan").attr("class", "rp-role-text");
  card.append("text").attr("class", "rp-email").attr("x", 7).attr("y", 29);
  card.append("g").attr("class", "rp-queue");
  card.append("text").attr("class", "rp-lag").attr("x", 7);
}

/**
 * The spoken part of a server's name.
 * @param {{id: string}} node
 * @param {Snapshot | null} snap
 */
export function describeServer(node, snap) {
  const snapshot = /** @type {RpSnapshot | null} */ (snap);
  const server = (snapshot?.servers ?? []).find((s) => s.id === node.id);
  if (!server || !snapshot) return ""; // no snapshot: no server either
  return fmt(t("%(role)s, %(place)s. Applied %(applied)s of %(log)s records; Ana's email there: %(email)s."), {
    role: roleText(server),
    place: placeText(server.place),
    applied: num(server.applied),
    log: num(snapshot.log.length),
    email: server.rows.ana,
  });
}
