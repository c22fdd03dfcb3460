/**
 * Each node's copy of the row, drawn in the network view's node panels: its value, its
 * version, and tags for the roles it plays in the operation in focus (coordinator, in the
 * write set W, in the read set R, the shared copy). Tags are words and shapes, never
 * colour alone. On a ring of more nodes than copies, a node past the owners has no copy:
 * its card says so, or, when it stands in for unreachable owners (sloppy quorum), which
 * owners and the value it keeps for them until it hands the hints back.
 */

import d3 from "d3";
import { fmt, num, t, tn } from "../../i18n.js";
import { roomViewBox } from "../../stage-fit.js";
import { versionText } from "./words.js";

/** @import { NetworkLayout, NetworkView } from "../../network-view.js" */
/** @import { NetNode } from "../../network/types.js" */
/** @import { Snapshot } from "../../types.js" */
/** @import { Hint, QuorumOp, QuorumSnapshot } from "./types.js" */
/** @typedef {import("d3").BaseType} BaseType */
/** @typedef {import("d3").Selection<SVGGElement, unknown, null, undefined>} Panel a node's panel */
/** @typedef {import("d3").Selection<BaseType, unknown, null, undefined>} Part in a panel */

const CARD_W = 150; // the narrowest card; a card widens to fit its tags
const CARD_H = 74;
const RINGS = 42; // the shared ring's outer edge (r = 40, stroke 4): cards start past it
const GAP = 8;
const EDGE = 4; // a phone's card stays this far inside the drawing
// a card beside its node reaches this far from the node's centre
const REACH = RINGS + GAP + CARD_W + EDGE;

/**
 * The cluster's logical box on a wide stage (stage-fit.js's RoomBox): designed for a room
 * of 600 × 300 CSS pixels, one unit a pixel, so a card's words read at their own size (16,
 * 13 and 12 px) on a laptop and grow with a projector's stage; a phone keeps the network
 * view's narrow box, cards above and under their nodes.
 */
/** @type {import("../../stage-fit.js").RoomBox} */
const WIDE_BOX = { design: [600, 300], least: [2 * REACH + 120, 2 * CARD_H + 100] };
/** @type {[number, number]} */
const NARROW_BOX = [400, 520];

/**
 * The cluster's viewBox for the room the stage gives it.
 * @param {{width: number, height: number, narrow: boolean}} room
 * @returns {[number, number]}
 */
export function clusterViewBox(room) {
  return room.narrow ? NARROW_BOX : roomViewBox(room, WIDE_BOX);
}

/**
 * Where the nodes stand on a wide stage, as fractions of the drawing: on an ellipse as
 * wide as the cards beside them leave room for and as tall as the drawing, the first at
 * the top, clockwise (on a phone, the network view's circle).
 * @param {{id: string}[]} nodes
 * @param {{width: number, height: number, narrow: boolean}} size
 * @returns {Record<string, [number, number]> | null}
 */
export function clusterSpots(nodes, { width, height, narrow }) {
  if (narrow || !width || !height) return null;
  const rx = Math.max(40, width / 2 - REACH);
  const ry = Math.max(40, height / 2 - RINGS - 2);
  /** @type {Record<string, [number, number]>} */
  const spots = {};
  nodes.forEach((node, i) => {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(1, nodes.length);
    spots[node.id] = [(width / 2 + rx * Math.cos(angle)) / width, (height / 2 + ry * Math.sin(angle)) / height];
  });
  return spots;
}

/**
 * Which nodes play which role, from the snapshot's history and overlap.
 * @param {QuorumSnapshot} snapshot
 */
export function rolesOf(snapshot) {
  const history = snapshot.history ?? [];
  const last = history.at(-1) ?? null;
  /** @type {{focus: QuorumOp | null, coordinator: string | null, w: string[], r: string[], shared: string[], standIns: Record<string, string>}} */
  const roles = { focus: last, coordinator: last?.coordinator ?? null, w: [], r: [], shared: [], standIns: {} };
  if (!last) return roles;
  const overlap = snapshot.overlap;
  if (last.kind === "read" && overlap && overlap.read === last.id) {
    roles.w = overlap.write_set;
    roles.r = overlap.read_set;
    roles.shared = overlap.shared;
  } else if (last.kind === "read") {
    roles.r = last.confirmed;
    const write = history.findLast((op) => op.kind === "write" && op.status === "ok");
    roles.w = write ? write.confirmed : [];
  } else {
    roles.w = last.confirmed;
    roles.standIns = last.stand_ins ?? {};
  }
  return roles;
}

/**
 * A tag on a card: its key (its class) and its words.
 * @typedef {{key: string, text: string}} Tag
 */

/**
 * Where a node's card of `width` goes, clear of the node's rings: beside the node (wide)
 * or above or under it (phone), kept inside the drawing.
 * @param {NetworkLayout} layout
 * @param {string} id
 * @param {number} width
 * @returns {[number, number]}
 */
function cardOrigin(layout, id, width) {
  const off = Math.max(layout.radius, RINGS) + GAP;
  const out = layout.outward(id);
  if (layout.narrow) {
    const cx = layout.positions.get(id)?.x ?? layout.width / 2;
    const left = Math.min(Math.max(cx - width / 2, EDGE), layout.width - EDGE - width);
    return [left - cx, out.y < -0.2 ? -off - CARD_H : off];
  }
  return out.x < -0.2 ? [-off - width, -CARD_H / 2] : [off, -CARD_H / 2];
}

/**
 * Draw every node's card into the view's panels.
 * @param {NetworkView} view
 * @param {Snapshot} state the lab's snapshot
 */
export function drawCopies(view, state) {
  const snapshot = /** @type {QuorumSnapshot} */ (state);
  const copies = new Map((snapshot.replicas ?? []).map((c) => [c.node, c]));
  const hints = snapshot.hints ?? [];
  const roles = rolesOf(snapshot);
  const layout = view.layout;
  view.panels.each(function drawPanel(node) {
    const panel = d3.select(this);
    const copy = copies.get(node.id);
    const isCoordinator = roles.coordinator === node.id;
    const inW = roles.w.includes(node.id);
    const inR = roles.r.includes(node.id);
    const shared = roles.shared.includes(node.id);
    const heldHints = hints.filter((h) => h.holder === node.id);
    const held = heldHints.length;
    const keptFor = heldHints.filter((h) => h.stand_in);
    const standsIn = Object.values(roles.standIns).includes(node.id) || keptFor.length > 0;
    const owner = ringOwner(snapshot, node.id);
    // A playing lab draws ten frames a second; a card is written again only when what it
    // shows changed (each text written, and each tag measured, lays the page out again).
    const at = layout.positions.get(node.id);
    const shown = copy
      ? [copy.value, copy.version.join(":"), isCoordinator, inW, inR, shared, held, owner]
      : [isCoordinator, inW, standsIn, ...keptFor.map((h) => `${h.target}=${h.value}`)];
    const key = [layout.width, layout.height, layout.narrow, at?.x, at?.y, ...shown].join("|");
    if (drawnKeys.get(this) === key) return;
    drawnKeys.set(this, key);
    if (!copy) {
      drawStandIn(panel, layout, node, { isCoordinator, inW, standsIn, keptFor, held });
      return;
    }
    if (panel.select("g.q-card").empty()) enterCard(panel);
    panel.attr("data-role", owner ? "owner" : null);
    panel.attr("data-copy-value", copy.value).attr("data-version", copy.version.join(":"));
    panel.classed("is-coordinator", isCoordinator).classed("is-shared", shared);
    panel.select(".q-coordinator-ring").attr("visibility", isCoordinator ? "visible" : "hidden");
    panel.select(".q-shared-ring").attr("visibility", shared ? "visible" : "hidden");
    const card = panel.select("g.q-card");
    card.select(".q-value").text(fmt(t("%(value)s seats"), { value: num(copy.value) }));
    card.select(".q-version").text(versionText(copy.version));
    const tags = [];
    if (isCoordinator) tags.push({ key: "coord", text: t("coordinator") });
    if (inW) tags.push({ key: "w", text: "W" });
    if (inR) tags.push({ key: "r", text: "R" });
    if (shared) tags.push({ key: "shared", text: t("★ shared") });
    if (held) {
      const text = fmt(tn("%(n)s hint", "%(n)s hints", held), { n: num(held) });
      tags.push({ key: "hint", text });
    }
    const tagsWidth = drawTags(card.select(".q-tags"), tags);
    const width = Math.max(CARD_W, Math.ceil(tagsWidth) + 12);
    card.select(".q-card-box").attr("width", width);
    const [x, y] = cardOrigin(layout, node.id, width);
    card.attr("transform", `translate(${x},${y})`);
  });
}

/**
 * Whether the ring has nodes past the owners and `id` is one of the owners (its panel says
 * so in data-role).
 * @param {QuorumSnapshot} snapshot
 * @param {string} id
 */
function ringOwner(snapshot, id) {
  const ring = snapshot.ring;
  return Boolean(ring && ring.nodes > ring.owners.length && ring.owners.includes(id));
}

/**
 * The card of a node past the owners: no copy of the row; a stand-in says for which
 * owners it keeps the write, and what value, until it hands the hints back.
 * @param {Panel} panel
 * @param {NetworkLayout} layout
 * @param {NetNode} node
 * @param {{isCoordinator: boolean, inW: boolean, standsIn: boolean, keptFor: Hint[],
 *   held: number}} roles
 */
function drawStandIn(panel, layout, node, { isCoordinator, inW, standsIn, keptFor, held }) {
  if (panel.select("g.q-card").empty()) enterCard(panel);
  panel.attr("data-role", standsIn ? "stand-in" : "spare").attr("data-copy-value", null).attr("data-version", null);
  panel.classed("is-coordinator", isCoordinator).classed("is-shared", false);
  panel.select(".q-coordinator-ring").attr("visibility", isCoordinator ? "visible" : "hidden");
  panel.select(".q-shared-ring").attr("visibility", "hidden");
  const card = panel.select("g.q-card");
  const owners = [...new Set(keptFor.map((h) => h.target))].join(", ");
  card
    .select(".q-value")
    .text(owners ? fmt(t("stand-in for %(owners)s"), { owners }) : t("no copy of the row"));
  const newest = keptFor.at(-1);
  card
    .select(".q-version")
    .text(
      newest
        ? fmt(t("hint: %(value)s seats"), { value: num(newest.value) })
        : t("not an owner"),
    );
  const tags = [];
  if (isCoordinator) tags.push({ key: "coord", text: t("coordinator") });
  if (standsIn) tags.push({ key: "stand-in", text: t("stand-in") });
  if (inW) tags.push({ key: "w", text: "W" });
  // one hint is the line above; more are counted
  if (held > 1) tags.push({ key: "hint", text: fmt(tn("%(n)s hint", "%(n)s hints", held), { n: num(held) }) });
  const tagsWidth = drawTags(card.select(".q-tags"), tags);
  const textWidth = Math.max(measure(card.select(".q-value")), measure(card.select(".q-version")));
  const width = Math.max(CARD_W, Math.ceil(tagsWidth) + 12, Math.ceil(textWidth) + 16);
  card.select(".q-card-box").attr("width", width);
  const [x, y] = cardOrigin(layout, node.id, width);
  card.attr("transform", `translate(${x},${y})`);
}

/**
 * A card line's width (0 where the page does not lay text out).
 * @param {Part} selection
 */
function measure(selection) {
  const text = /** @type {SVGTextElement | null} */ (selection.node());
  return text?.getComputedTextLength?.() ?? 0;
}

/** @param {Panel} panel */
function enterCard(panel) {
  panel.attr("pointer-events", "none");
  panel.append("circle").attr("class", "q-coordinator-ring").attr("r", 34);
  panel.append("circle").attr("class", "q-shared-ring").attr("r", 40);
  const card = panel.append("g").attr("class", "q-card");
  card.append("rect").attr("class", "q-card-box").attr("width", CARD_W).attr("height", CARD_H).attr("rx", 6);
  card.append("text").attr("class", "q-value").attr("x", 9).attr("y", 22);
  card.append("text").attr("class", "q-version").attr("x", 9).attr("y", 41);
  card.append("g").attr("class", "q-tags").attr("transform", "translate(7,50)");
}

/** @type {WeakMap<Element, string>} */
const drawnKeys = new WeakMap(); // a panel → what it shows, summed up
/** @type {Map<string, number>} */
const tagWidths = new Map(); // a tag's text → its width (measuring lays the page out)

/**
 * The width of `text` in the tag text element `node`, measured once per text.
 * @param {SVGTextElement} node
 * @param {string} text
 */
function textWidth(node, text) {
  let width = tagWidths.get(text);
  if (width === undefined) {
    width = node.getComputedTextLength?.() ?? 0;
    if (width > 0) tagWidths.set(text, width);
  }
  return width;
}

/**
 * Draw the tags in a row; returns the row's width.
 * @param {Part} layer
 * @param {Tag[]} tags
 */
function drawTags(layer, tags) {
  let x = 0;
  layer
    .selectAll("g.q-tag")
    .data(tags, (d) => d.key)
    .join((enter) => {
      const g = enter.append("g").attr("class", (d) => `q-tag q-tag-${d.key}`);
      g.append("rect").attr("height", 18).attr("rx", 3);
      g.append("text").attr("x", 5).attr("y", 13.5);
      return g;
    })
    .each(function placeTag(d) {
      const g = d3.select(this);
      const text = g.select("text").text(d.text);
      const measured = textWidth(/** @type {SVGTextElement} */ (text.node()), d.text);
      const width = (measured > 0 ? measured : d.text.length * 7.4) + 10;
      g.select("rect").attr("width", width);
      g.attr("transform", `translate(${x},0)`);
      x += width + 4;
    });
  return Math.max(0, x - 4);
}

/**
 * The spoken part of a node's name: its copy's value and version.
 * @param {NetNode} node
 * @param {Snapshot | null} state the lab's snapshot
 */
export function describeCopy(node, state) {
  const snapshot = /** @type {QuorumSnapshot | null} */ (state);
  const copy = (snapshot?.replicas ?? []).find((c) => c.node === node.id);
  if (!copy) {
    const kept = (snapshot?.hints ?? []).filter((h) => h.stand_in && h.holder === node.id);
    if (!kept.length) return snapshot?.ring ? t("No copy of the row: it is past the owners on the ring.") : "";
    return fmt(t("No copy of the row: a stand-in keeping %(value)s seats as a hint for %(owners)s."), {
      value: num(/** @type {Hint} */ (kept.at(-1)).value), // (kept is not empty)
      owners: [...new Set(kept.map((h) => h.target))].join(", "),
    });
  }
  return fmt(t("Its copy: %(value)s seats, version %(version)s."), {
    value: num(copy.value),
    version: versionText(copy.version),
  });
}
