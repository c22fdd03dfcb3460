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

/**
 * A step's target as plain data (types.js's `TourTarget`): one of these names is set.
 * @typedef {{action?: string, node?: string, link?: string, spot?: string}} Where
 */

/**
 * A box on screen, in viewport pixels.
 * @typedef {{left: number, top: number, width: number, height: number}} Box
 */

const MARGIN_PX = 8; // space kept between a target and the viewport's edges
const STAGE_SLICE_PX = 140; // how much of the stage stays in view when we scroll
const RING_PAD_PX = 6;
const CARD_FOOT_PX = 56; // the card's buttons, kept in view when the whole card is not
const LINK_RING_PX = 44; // a link's ring: a circle at its middle, not its whole box
const REPLACE_MS = 400; // re-place the ring now and then: layouts move under it
const SETTLE_MS = 600; // a second look, once what came with the step has been drawn

/**
 * The element a target names in `root` (the lab page), or null.
 * @param {Where | null | undefined} where
 * @param {ParentNode} [root]
 * @returns {Element | null}
 */
export function findTarget(where, root = document) {
  if (!where) return null;
  const quote = (/** @type {string} */ value) => CSS.escape(String(value));
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

/**
 * A ring that follows one element. `card` is the tour's card and `avoid()` its box (or
 * null): what not to scroll the element under, and what to keep in view with it.
 * @param {{card: HTMLElement, avoid: () => DOMRect | null}} options
 */
export function createSpotlight({ card, avoid }) {
  const ring = document.createElement("div");
  ring.className = "tour-ring";
  ring.setAttribute("aria-hidden", "true");
  ring.hidden = true;
  document.body.append(ring);
  /** @type {Where | null} */
  let where = null; // the target data
  let kind = "target";
  /** @type {Element | null} */
  let element = null;
  let queued = false;
  /** @type {ReturnType<typeof setInterval> | null} */
  let timer = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let again = null;

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
    if (element.getAttribute("data-tour-highlight") !== kind) {
      element.setAttribute("data-tour-highlight", kind);
    }
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) {
      ring.hidden = true;
      return;
    }
    ring.hidden = false;
    // `where` is set: `element` was found from it
    const round = Boolean(/** @type {Where} */ (where).link || /** @type {Where} */ (where).node);
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

  /**
   * The ring's box around an element's box: a link's is a circle at its middle.
   * @param {Box} box
   * @returns {Box}
   */
  function ringShape(box) {
    return where?.link ? aroundMiddle(box) : padded(box, RING_PAD_PX);
  }

  // Placed just after a frame has been drawn, when the layout is up to date: reading the
  // target's box then costs nothing. Read inside a frame's callbacks, it would lay the
  // page out there and then, and again after the callbacks that follow it (a lab's
  // animation) have changed it: two layouts of the whole page in every frame it runs.
  function soon() {
    if (queued || !where) return;
    queued = true;
    requestAnimationFrame(() => setTimeout(place, 0));
  }

  // The pulse, twice, each time the ring comes to a new spot (tour.css): its class is
  // taken off, a frame is drawn without it, and it is put back, which starts the
  // animation again (put back in the same frame, the style would never have changed).
  function pulse() {
    ring.classList.remove("is-pulsing");
    requestAnimationFrame(() => requestAnimationFrame(() => ring.classList.add("is-pulsing")));
  }

  const resized = new ResizeObserver(soon);
  resized.observe(document.body);
  window.addEventListener("scroll", soon, { capture: true, passive: true });
  window.addEventListener("resize", soon, { passive: true });

  return {
    /**
     * Ring `target` (`kind` "target" or "look"); null takes the ring away.
     * @param {Where | null} target
     * @param {"target" | "look"} [ringKind]
     */
    show(target, ringKind = "target") {
      const moved = JSON.stringify(target) !== JSON.stringify(where) || ringKind !== kind;
      where = target;
      kind = ringKind;
      if (moved) pulse();
      clearInterval(/** @type {ReturnType<typeof setInterval> | undefined} */ (timer)); // null: none
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
    /**
     * Scroll so the ringed element is in view, keeping some of the stage in view too;
     * once more a moment later, as what came with the step may still move things (a
     * longer "Just now", the card floating once its place is scrolled away).
     */
    bringIntoView() {
      const show = () => {
        place();
        if (element) scrollToShow(element, ringShape, avoid(), card);
        soon();
      };
      show();
      const ringed = where;
      clearTimeout(/** @type {ReturnType<typeof setTimeout> | undefined} */ (again)); // null: none
      again = setTimeout(() => where === ringed && show(), SETTLE_MS);
    },
    element: () => element,
  };
}

/**
 * @param {Box} box
 * @param {number} pad
 * @returns {Box}
 */
function padded(box, pad) {
  return {
    left: box.left - pad,
    top: box.top - pad,
    width: box.width + 2 * pad,
    height: box.height + 2 * pad,
  };
}

/**
 * A link's line runs corner to corner of its box: ring the middle of it.
 * @param {Box} box
 * @returns {Box}
 */
function aroundMiddle(box) {
  const x = box.left + box.width / 2;
  const y = box.top + box.height / 2;
  const half = LINK_RING_PX / 2;
  return { left: x - half, top: y - half, width: LINK_RING_PX, height: LINK_RING_PX };
}

/**
 * Scroll the page (and any scrolled box the element sits in) so the ring around the
 * element (`shapeOf` its box) is in view and not under `cover` (the card's box, or null)
 * or a stage that stays in view; when the element lies outside a stage that scrolls
 * with the page and both fit, a slice of the stage's nearest edge stays in view as well.
 * @param {Element} element
 * @param {(box: Box) => Box} shapeOf
 * @param {DOMRect | null} cover
 * @param {HTMLElement} cardElement
 */
function scrollToShow(element, shapeOf, cover, cardElement) {
  openClosedDetails(element);
  scrollInnerBoxes(element);
  const shape = shapeOf(element.getBoundingClientRect());
  const box = { ...shape, right: shape.left + shape.width, bottom: shape.top + shape.height };
  const band = visibleBand(box, cover, element);
  if (box.top >= band.top && box.bottom <= band.bottom) return;
  // what else to keep in view, when it fits: the card (unless it stays in view by
  // itself), or at least its foot (its buttons), then a slice of the stage nearest the
  // element (unless the stage stays in view by itself)
  /** @type {[number, number][]} */
  const extras = [];
  const cardStays = [cardElement, cardElement?.firstElementChild].some(
    (part) => part && staysInView(part),
  );
  if (cover && cardElement && !cardStays) {
    extras.push([cover.top, cover.bottom], [cover.bottom - CARD_FOOT_PX, cover.bottom]);
  }
  const stage = document.getElementById("stage");
  if (stage && !stage.contains(element) && !staysInView(stage)) {
    const s = stage.getBoundingClientRect();
    const slice = Math.min(STAGE_SLICE_PX, s.height);
    const sliceTop = box.top >= s.bottom ? s.bottom - slice : s.top;
    extras.push([sliceTop, sliceTop + slice]);
  }
  let top = box.top;
  let bottom = box.bottom;
  for (const [from, to] of extras) {
    const joined = [Math.min(top, from), Math.max(bottom, to)];
    if (joined[1] - joined[0] <= band.bottom - band.top) [top, bottom] = joined;
  }
  // not flush against an edge: leave a third of the spare room (up to 120 px) beside it
  const room = Math.max(0, Math.min(120, (band.bottom - band.top - (bottom - top)) / 3));
  let delta = 0;
  if (bottom - top > band.bottom - band.top) delta = top - band.top;
  else if (top < band.top) delta = top - band.top - room;
  else if (bottom > band.bottom) delta = bottom - band.bottom + room;
  if (delta) window.scrollBy({ top: delta, behavior: reducedMotion() ? "auto" : "smooth" });
}

/**
 * The part of the viewport where an element with box `box` is seen whole: not under the
 * card (`cover`) nor under a stage that stays in view (sticky, on a phone) when the
 * element is outside it.
 * @param {{left: number, right: number, top: number, bottom: number}} box
 * @param {DOMRect | null} cover
 * @param {Element} element
 */
function visibleBand(box, cover, element) {
  let top = MARGIN_PX;
  let bottom = window.innerHeight - MARGIN_PX;
  const stage = document.getElementById("stage");
  const covers = [];
  if (cover) covers.push(cover);
  if (stage && !stage.contains(element) && staysInView(stage)) {
    covers.push(stage.getBoundingClientRect());
  }
  for (const over of covers) {
    if (!(box.right > over.left && box.left < over.right)) continue;
    if (over.top < window.innerHeight / 2) top = Math.max(top, over.bottom + MARGIN_PX);
    else bottom = Math.min(bottom, over.top - MARGIN_PX);
  }
  return { top, bottom: Math.max(bottom, top + 80) };
}

/**
 * Whether `element` stays in view as the page scrolls (sticky, or fixed).
 * @param {Element} element
 */
function staysInView(element) {
  return /sticky|fixed/.test(getComputedStyle(element).position);
}

/**
 * A target inside a folded `<details>` (a collapsed group of controls) is unfolded.
 * @param {Element} element
 */
function openClosedDetails(element) {
  for (let node = element.parentElement; node; node = node.parentElement) {
    const details = /** @type {HTMLDetailsElement} */ (node); // when its tagName says so
    if (node.tagName === "DETAILS" && !details.open) details.open = true;
  }
}

/**
 * Boxes that scroll on their own (a rail, a table) are scrolled to the element first.
 * @param {Element} element
 */
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
