/**
 * Where a tour step points, and the ring drawn around it.
 *
 * A step's target is plain data from the lab's declaration: `{action}` (the form that
 * sends that action: controls.js marks each with `data-action`), `{node}` and `{link}`
 * (the network view's `data-node` / `data-link`), or `{spot}`: "stage" is `#stage`, any
 * other name an element the page or the renderer marks with `data-spot`. None of these
 * depends on where the layout puts things.
 *
 * The ring is one fixed-position element over the page (pointer-events: none), placed from
 * the target's bounding box and kept there on scroll, resize and layout changes. The
 * target carries `data-tour-highlight` ("target", or "look" once the step is done).
 */

import { reducedMotion } from "../motion.js";

const MARGIN_PX = 8; // space kept between a target and the viewport's edges
const STAGE_SLICE_PX = 140; // how much of the stage stays in view when we scroll
const RING_PAD_PX = 6;
const LINK_RING_PX = 44; // a link's ring: a circle at its middle, not its whole box
const REPLACE_MS = 400; // re-place the ring now and then: layouts move under it

/** The element a target names in `root` (the lab page), or null. */
export function findTarget(where, root = document) {
  if (!where) return null;
  const quote = (value) => CSS.escape(String(value));
  if (where.action) {
    return (
      root.querySelector(`form[data-action="${quote(where.action)}"]`) ??
      root.querySelector(`:is(button, select, input)[data-action~="${quote(where.action)}"]`)
    );
  }
  if (where.node) return root.querySelector(`#stage .net-node[data-node="${quote(where.node)}"]`);
  if (where.link) return root.querySelector(`#stage .net-link[data-link="${quote(where.link)}"]`);
  if (where.spot === "stage") return root.querySelector("#stage");
  if (where.spot) return root.querySelector(`[data-spot="${quote(where.spot)}"]`);
  return null;
}

/** A ring that follows one element; `avoid()` is the card's box (what not to scroll under). */
export function createSpotlight({ avoid }) {
  const ring = document.createElement("div");
  ring.className = "tour-ring";
  ring.setAttribute("aria-hidden", "true");
  ring.hidden = true;
  document.body.append(ring);
  let where = null; // the target data
  let kind = "target";
  let element = null;
  let queued = false;
  let timer = null;

  function place() {
    queued = false;
    const found = findTarget(where);
    if (found !== element) {
      element?.removeAttribute("data-tour-highlight");
      element = found;
    }
    if (!element) {
      ring.hidden = true;
      return;
    }
    element.setAttribute("data-tour-highlight", kind);
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) {
      ring.hidden = true;
      return;
    }
    ring.hidden = false;
    const round = Boolean(where.link || where.node);
    ring.classList.toggle("is-round", round);
    ring.classList.toggle("is-look", kind === "look");
    const shape = ringShape(box);
    Object.assign(ring.style, {
      left: `${shape.left}px`,
      top: `${shape.top}px`,
      width: `${shape.width}px`,
      height: `${shape.height}px`,
    });
  }

  /** The ring's box around an element's box: a link's is a circle at its middle. */
  function ringShape(box) {
    return where?.link ? aroundMiddle(box) : padded(box, RING_PAD_PX);
  }

  function soon() {
    if (queued || !where) return;
    queued = true;
    requestAnimationFrame(place);
  }

  const resized = new ResizeObserver(soon);
  resized.observe(document.body);
  window.addEventListener("scroll", soon, { capture: true, passive: true });
  window.addEventListener("resize", soon, { passive: true });

  return {
    /** Ring `target` (`kind` "target" or "look"); null takes the ring away. */
    show(target, ringKind = "target") {
      where = target;
      kind = ringKind;
      clearInterval(timer);
      timer = null;
      if (!target) {
        element?.removeAttribute("data-tour-highlight");
        element = null;
        ring.hidden = true;
        return;
      }
      place();
      timer = setInterval(soon, REPLACE_MS);
    },
    /** Place the ring again (the page was drawn anew). */
    refresh: soon,
    /** Scroll so the ringed element is in view, keeping some of the stage in view too. */
    bringIntoView() {
      place();
      if (element) scrollToShow(element, ringShape, avoid());
      soon();
    },
    element: () => element,
  };
}

function padded(box, pad) {
  return {
    left: box.left - pad,
    top: box.top - pad,
    width: box.width + 2 * pad,
    height: box.height + 2 * pad,
  };
}

/** A link's line runs corner to corner of its box: ring the middle of it. */
function aroundMiddle(box) {
  const x = box.left + box.width / 2;
  const y = box.top + box.height / 2;
  const half = LINK_RING_PX / 2;
  return { left: x - half, top: y - half, width: LINK_RING_PX, height: LINK_RING_PX };
}

/**
 * Scroll the page (and any scrolled box the element sits in) so the ring around the
 * element (`shapeOf` its box) is in view and not under `cover` (the card's box, or null);
 * when the element lies outside the stage and both fit, a slice of the stage's nearest
 * edge stays in view as well.
 */
function scrollToShow(element, shapeOf, cover) {
  openClosedDetails(element);
  scrollInnerBoxes(element);
  const shape = shapeOf(element.getBoundingClientRect());
  const box = { ...shape, right: shape.left + shape.width, bottom: shape.top + shape.height };
  const band = visibleBand(box, cover);
  if (box.top >= band.top && box.bottom <= band.bottom) return;
  let top = box.top;
  let bottom = box.bottom;
  const stage = document.getElementById("stage");
  if (stage && !stage.contains(element)) {
    const s = stage.getBoundingClientRect();
    const slice = Math.min(STAGE_SLICE_PX, s.height);
    const sliceTop = box.top >= s.bottom ? s.bottom - slice : s.top;
    const withStage = [Math.min(top, sliceTop), Math.max(bottom, sliceTop + slice)];
    if (withStage[1] - withStage[0] <= band.bottom - band.top) [top, bottom] = withStage;
  }
  // not flush against an edge: leave a third of the spare room (up to 120 px) beside it
  const room = Math.max(0, Math.min(120, (band.bottom - band.top - (bottom - top)) / 3));
  let delta = 0;
  if (bottom - top > band.bottom - band.top) delta = top - band.top;
  else if (top < band.top) delta = top - band.top - room;
  else if (bottom > band.bottom) delta = bottom - band.bottom + room;
  if (delta) window.scrollBy({ top: delta, behavior: reducedMotion() ? "auto" : "smooth" });
}

/** The part of the viewport where an element with box `box` is seen whole. */
function visibleBand(box, cover) {
  let bottom = window.innerHeight - MARGIN_PX;
  const overlaps = cover && box.right > cover.left && box.left < cover.right;
  if (overlaps && cover.top < bottom) bottom = cover.top - MARGIN_PX;
  return { top: MARGIN_PX, bottom: Math.max(bottom, MARGIN_PX + 80) };
}

/** A target inside a folded `<details>` (a collapsed group of controls) is unfolded. */
function openClosedDetails(element) {
  for (let node = element.parentElement; node; node = node.parentElement) {
    if (node.tagName === "DETAILS" && !node.open) node.open = true;
  }
}

/** Boxes that scroll on their own (a rail, a table) are scrolled to the element first. */
function scrollInnerBoxes(element) {
  for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (!/(auto|scroll)/.test(style.overflowY) || node.scrollHeight <= node.clientHeight) continue;
    const inner = element.getBoundingClientRect();
    const outer = node.getBoundingClientRect();
    if (inner.top < outer.top) node.scrollTop -= outer.top - inner.top + MARGIN_PX;
    else if (inner.bottom > outer.bottom) node.scrollTop += inner.bottom - outer.bottom + MARGIN_PX;
  }
}
