/**
 * Each server's card beside its node in the network view: its role, its write-ahead log
 * as a queue of boxes (applied, received but not applied, not received), Ana's email as
 * it shows it, and how far behind it is. Everything is also said in words: a box's
 * state is its fill *and* its mark.
 */

import d3 from "d3";
import { fmt, num, t } from "../../i18n.js";
import { lagText, placeText, roleText } from "./words.js";

const BOX = 10; // a record's box, and the gap after it
const STEP = BOX + 2;
const GAP = 8;
const EDGE = 3;

const drawnKeys = new WeakMap();

/**
 * A card's size: wide, one beside the other under their servers; on a phone the servers
 * stand in one row, and a card takes its share of it.
 */
function cardSize(layout, count) {
  if (!layout.narrow) return { width: 200, height: 80, short: false };
  const share = layout.width / Math.max(1, count);
  return { width: Math.min(150, Math.floor(share) - 6), height: 62, short: true };
}

/** A card hangs under its server, kept inside the drawing. */
function cardOrigin(layout, id, size) {
  const at = layout.positions.get(id) ?? { x: layout.width / 2, y: layout.height / 2 };
  const left = Math.min(Math.max(at.x - size.width / 2, EDGE), layout.width - EDGE - size.width);
  return [left - at.x, layout.radius + GAP + 4];
}

/** Where each of the newest records stands on `server`: "applied", "received", "missing". */
export function queueOf(server, log, count = 12) {
  const last = log.length;
  const first = Math.max(1, last - count + 1);
  const boxes = [];
  for (let lsn = first; lsn <= last; lsn += 1) {
    const state = lsn <= server.applied ? "applied" : lsn <= server.received ? "received" : "missing";
    boxes.push({ lsn, state });
  }
  return boxes;
}

function shorten(text, most = 26) {
  return text.length > most ? `${text.slice(0, most - 1)}…` : text;
}

/** Draw every server's card into the view's panels. */
export function drawCards(view, snapshot) {
  const servers = new Map((snapshot.servers ?? []).map((s) => [s.id, s]));
  const layout = view.layout;
  const size = cardSize(layout, servers.size);
  const fits = Math.max(4, Math.floor((size.width - 14) / STEP));
  view.panels.each(function drawPanel(node) {
    const panel = d3.select(this);
    const server = servers.get(node.id);
    const at = layout.positions.get(node.id);
    const key = JSON.stringify([layout.width, layout.height, at?.x, at?.y, server, snapshot.log.length]);
    if (drawnKeys.get(this) === key) return;
    drawnKeys.set(this, key);
    if (!server) {
      panel.selectAll("*").remove();
      return;
    }
    if (panel.select("g.rp-card").empty()) enterCard(panel);
    panel.select(".rp-card-box").attr("width", size.width).attr("height", size.height);
    panel.select(".rp-queue").attr("transform", `translate(7,${size.short ? 34 : 42})`);
    panel.select(".rp-lag").attr("y", size.height - 7);
    panel.attr("data-role", server.role).attr("data-applied", server.applied).attr("data-received", server.received);
    const card = panel.select("g.rp-card").attr("data-spot", `server-${server.id}`);
    card.classed("is-primary", server.role === "primary").classed("is-down", !server.up);
    card.select(".rp-role").text(roleText(server));
    const email = size.short ? shorten(server.rows.ana.split("@")[1], 13) : shorten(server.rows.ana, 27);
    card.select(".rp-email").text(fmt(t("Ana: %(email)s"), { email }));
    const boxes = queueOf(server, snapshot.log, fits);
    card
      .select(".rp-queue")
      .selectAll("g.rp-box")
      .data(boxes, (d) => d.lsn)
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
    const lag =
      server.role === "primary"
        ? fmt(t("log: %(n)s records"), { n: num(snapshot.log.length) })
        : server.up
          ? size.short
            ? fmt(t("%(n)s behind"), { n: num(server.lag_records) })
            : lagText(server.lag_records, server.lag_ms)
          : fmt(t("down, holds %(n)s records"), { n: num(server.received + server.tail) });
    card.select(".rp-lag").text(lag);
    const [x, y] = cardOrigin(layout, node.id, size);
    card.attr("transform", `translate(${x},${y})`);
  });
}

function enterCard(panel) {
  panel.attr("pointer-events", "none");
  const card = panel.append("g").attr("class", "rp-card");
  card.append("rect").attr("class", "rp-card-box").attr("rx", 6);
  card.append("text").attr("class", "rp-role").attr("x", 7).attr("y", 15);
  card.append("text").attr("class", "rp-email").attr("x", 7).attr("y", 29);
  card.append("g").attr("class", "rp-queue");
  card.append("text").attr("class", "rp-lag").attr("x", 7);
}

/** The spoken part of a server's name. */
export function describeServer(node, snapshot) {
  const server = (snapshot?.servers ?? []).find((s) => s.id === node.id);
  if (!server) return "";
  return fmt(t("%(role)s, %(place)s. Applied %(applied)s of %(log)s records; Ana's email there: %(email)s."), {
    role: roleText(server),
    place: placeText(server.place),
    applied: num(server.applied),
    log: num(snapshot.log.length),
    email: server.rows.ana,
  });
}
