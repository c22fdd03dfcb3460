/**
 * Where each sample key sits inside its shard's bin. A key keeps its slot for as long as it
 * stays on the shard, so when other keys leave or arrive it does not budge: leavers leave a
 * hole, arrivals fill the first hole. Pure data; the layout turns slots into coordinates.
 */

import { DOT_RADIUS, WIDTH } from "./geometry.js";

/** @import { Box, Point, SampleKey, Scheme, Slots } from "./types.js" */

/**
 * Bin rectangles by shard, and where the lowest row ends.
 * @typedef {{ bins: Map<string, Box>, bottom: number }} BinLayout
 */

// five bins a row: four shards and the fifth the lab adds share one row, each bin wide enough
// for its count at 19 units
export const BINS_PER_ROW = 5;
const MARGIN = 8;
const BIN_GAP = 6;
const BIN_PAD = 5;
export const DOT_SPACING = 7.4;
export const LABEL_H = 47; // the badge and the count over a bin (bins.js)
const MIN_ROWS = 4;
const ROW_GAP = 10;
export const BIN_W = (WIDTH - 2 * MARGIN - (BINS_PER_ROW - 1) * BIN_GAP) / BINS_PER_ROW;
export const COLS = Math.floor((BIN_W - 2 * BIN_PAD + DOT_SPACING - 2 * DOT_RADIUS) / DOT_SPACING);

/**
 * Slots from scratch: each shard's keys in id order. Returns Map shard → [id|null].
 * @param {SampleKey[]} sample
 * @param {Scheme} scheme
 * @param {string[]} shards
 * @returns {Slots}
 */
export function initialSlots(sample, scheme, shards) {
  /** @type {Slots} */
  const slots = new Map(shards.map((shard) => [shard, []]));
  for (const key of sample) slots.get(key.where[scheme])?.push(key.id);
  return slots;
}

/**
 * The slot map after `movers` ({id, from, to}) changed shards; `shards` is the new list.
 * @param {Slots} slots
 * @param {{ id: number, from: string, to: string }[]} movers
 * @param {string[]} shards
 * @returns {Slots}
 */
export function applyMoves(slots, movers, shards) {
  const next = new Map([...slots].map(([shard, ids]) => [shard, [...ids]]));
  for (const shard of shards) if (!next.has(shard)) next.set(shard, []);
  for (const { id, from } of movers) {
    const ids = next.get(from);
    const index = ids ? ids.indexOf(id) : -1;
    if (ids && index >= 0) ids[index] = null;
  }
  for (const { id, to } of movers) {
    const ids = /** @type {(number | null)[]} */ (next.get(to)); // every `to` is in `shards`
    const hole = ids.indexOf(null);
    if (hole >= 0) ids[hole] = id;
    else ids.push(id);
  }
  for (const ids of next.values()) while (ids.length && ids[ids.length - 1] === null) ids.pop();
  return next;
}

/**
 * Drop the shards that are gone (their bins are empty once their keys have moved).
 * @param {Slots} slots
 * @param {string[]} shards
 * @returns {Slots}
 */
export function withoutShards(slots, shards) {
  const keep = new Set(shards);
  return new Map([...slots].filter(([shard]) => keep.has(shard)));
}

/**
 * Which slot a key occupies: Map id → {shard, index}.
 * @param {Slots} slots
 */
export function slotIndex(slots) {
  /** @type {Map<number, { shard: string, index: number }>} */
  const where = new Map();
  for (const [shard, ids] of slots) {
    ids.forEach((id, index) => {
      if (id !== null) where.set(id, { shard, index });
    });
  }
  return where;
}

/**
 * Bin rectangles for shards in `order`, six to a row, starting at `top`:
 * {bins: Map shard → {x, y, w, h}, bottom}. A row is as tall as its fullest bin.
 * @param {string[]} order
 * @param {Map<string, { length: number }>} slots each shard's slots (their count is read)
 * @param {number} top
 * @returns {BinLayout}
 */
export function layoutBins(order, slots, top) {
  /** @type {Map<string, Box>} */
  const bins = new Map();
  let y = top;
  for (let start = 0; start < order.length; start += BINS_PER_ROW) {
    const row = order.slice(start, start + BINS_PER_ROW);
    const longest = Math.max(0, ...row.map((shard) => slots.get(shard)?.length ?? 0));
    const rows = Math.max(MIN_ROWS, Math.ceil(longest / COLS));
    const h = LABEL_H + rows * DOT_SPACING + 2 * BIN_PAD;
    row.forEach((shard, i) => {
      bins.set(shard, { x: MARGIN + i * (BIN_W + BIN_GAP), y, w: BIN_W, h });
    });
    y += h + ROW_GAP;
  }
  return { bins, bottom: y };
}

/**
 * The centre of slot `index` in `shard`'s bin under a layout (null: no such bin).
 * @param {BinLayout} layout
 * @param {string} shard
 * @param {number} index
 * @returns {Point | null}
 */
export function slotPoint(layout, shard, index) {
  const bin = layout.bins.get(shard);
  if (!bin) return null;
  const row = Math.floor(index / COLS);
  const col = index % COLS;
  const inner = COLS * DOT_SPACING;
  const left = bin.x + (bin.w - inner) / 2 + DOT_SPACING / 2;
  return {
    x: left + col * DOT_SPACING,
    y: bin.y + LABEL_H + BIN_PAD + DOT_SPACING / 2 + row * DOT_SPACING,
  };
}
