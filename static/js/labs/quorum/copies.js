/**
 * Each node's copy of the row, drawn in the network view's node panels: its value, its
 * version, and tags for the roles it plays in the operation in focus (coordinator, in the
 * write set W, in the read set R, the shared copy). Tags are words and shapes, never
 * colour alone.
 */

import d3 from "d3";
import { fmt, num, t, tn } from "../../i18n.js";
import { versionText } from "./words.js";

const CARD_W = 128; // the narrowest card; a card widens to fit its tags
const CARD_H = 62;
const RINGS = 42; // the shared ring's outer edge (r = 40, stroke 4): cards start past it
const GAP = 8;
const EDGE = 4; // a phone's card stays this far inside the drawing

/** Which nodes play which role, from the snapshot's history and overlap. */
export function rolesOf(snapshot) {
  const history = snapshot.history ?? [];
  const last = history.at(-1) ?? null;
  /** @type {{focus: any, coordinator: string | null, w: string[], r: string[], shared: string[]}} */
  const roles = { focus: last, coordinator: last?.coordinator ?? null, w: [], r: [], shared: [] };
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
  }
  return roles;
}

/**
 * Where a node's card of `width` goes, clear of the node's rings: beside the node (wide)
 * or above or under it (phone), kept inside the drawing.
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

/** Draw every node's card into the view's panels. */
export function drawCopies(view, snapshot) {
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
    const held = hints.filter((h) => h.holder === node.id).length;
    // A playing lab draws ten frames a second; a card is written again only when what it
    // shows changed (each text written, and each tag measured, lays the page out again).
    const at = layout.positions.get(node.id);
    const shown = copy
      ? [copy.value, copy.version.join(":"), isCoordinator, inW, inR, shared, held]
      : [];
    const key = [layout.width, layout.height, layout.narrow, at?.x, at?.y, ...shown].join("|");
    if (drawnKeys.get(this) === key) return;
    drawnKeys.set(this, key);
    if (!copy) {
      panel.selectAll("*").remove();
      return;
    }
    if (panel.select("g.q-card").empty()) enterCard(panel);
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

function enterCard(panel) {
  panel.attr("pointer-events", "none");
  panel.append("circle").attr("class", "q-coordinator-ring").attr("r", 34);
  panel.append("circle").attr("class", "q-shared-ring").attr("r", 40);
  const card = panel.append("g").attr("class", "q-card");
  card.append("rect").attr("class", "q-card-box").attr("width", CARD_W).attr("height", CARD_H).attr("rx", 6);
  card.append("text").attr("class", "q-value").attr("x", 8).attr("y", 18);
  card.append("text").attr("class", "q-version").attr("x", 8).attr("y", 34);
  card.append("g").attr("class", "q-tags").attr("transform", "translate(6,42)");
}

const drawnKeys = new WeakMap(); // a panel → what it shows, summed up
const tagWidths = new Map(); // a tag's text → its width (measuring lays the page out)

/** The width of `text` in the tag text element `node`, measured once per text. */
function textWidth(node, text) {
  let width = tagWidths.get(text);
  if (width === undefined) {
    width = node.getComputedTextLength?.() ?? 0;
    if (width > 0) tagWidths.set(text, width);
  }
  return width;
}

/** Draw the tags in a row; returns the row's width. */
function drawTags(layer, tags) {
  let x = 0;
  layer
    .selectAll("g.q-tag")
    .data(tags, (d) => d.key)
    .join((enter) => {
      const g = enter.append("g").attr("class", (d) => `q-tag q-tag-${d.key}`);
      g.append("rect").attr("height", 15).attr("rx", 3);
      g.append("text").attr("x", 4).attr("y", 11);
      return g;
    })
    .each(function placeTag(d) {
      const g = d3.select(this);
      const text = g.select("text").text(d.text);
      const measured = textWidth(/** @type {SVGTextElement} */ (text.node()), d.text);
      const width = (measured > 0 ? measured : d.text.length * 6.2) + 8;
      g.select("rect").attr("width", width);
      g.attr("transform", `translate(${x},0)`);
      x += width + 4;
    });
  return Math.max(0, x - 4);
}

/** The spoken part of a node's name: its copy's value and version. */
export function describeCopy(node, snapshot) {
  const copy = (snapshot?.replicas ?? []).find((c) => c.node === node.id);
  if (!copy) return "";
  return fmt(t("Its copy: %(value)s seats, version %(version)s."), {
    value: num(copy.value),
    version: versionText(copy.version),
  });
}
