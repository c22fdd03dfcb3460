/**
 * A drawing that fits the room left to it on the stage: as wide as its box allows without
 * being taller than the box. The box is a `.stage-fit` (the network view's, each
 * hash-placement card's); stage.css gives it size containment, so its size comes from the
 * stage's layout and never from the drawing, and sizes its child from `--fit-width`,
 * which this sets in pixels whenever the box or the drawing's aspect changes.
 *
 * This replaced a size container query (`width: min(100%, 100cqh * aspect)`). Chromium
 * lays out every element inside a size container again whenever the container is laid
 * out, even at the same size: a number counting up in a hash-placement card laid out
 * its three SVGs, 1,500 circles and their labels, in every frame (8 ms a frame on the
 * project's machine, 30 ms with the CPU slowed as a phone's is). Plain size containment
 * costs nothing of the kind.
 */

/**
 * Fit the drawing in `box` (its first child) to `aspect` (width / height). Returns
 * {setAspect(aspect), destroy()}; the width is set before the next paint.
 * @param {HTMLElement} box
 */
export function fitToRoom(box, aspect = 1) {
  /** @type {DOMRectReadOnly | null} the box's content size, as last observed */
  let room = null;
  let shown = "";

  function apply() {
    if (!room || !room.width) return;
    const width = Math.min(room.width, room.height * aspect);
    // whole hundredths of a pixel: the same room gives the same string, and no new style
    const value = `${Math.max(0, Math.floor(width * 100) / 100)}px`;
    if (value === shown) return;
    shown = value;
    /** @type {HTMLElement | null} */ (box.firstElementChild)?.style.setProperty("--fit-width", value);
  }

  const observer = new ResizeObserver(([entry]) => {
    room = entry.contentRect;
    apply();
  });
  observer.observe(box);

  return {
    /**
     * The drawing is now `next` wide for every unit tall: size it for that at once.
     * @param {number} next
     */
    setAspect(next) {
      if (next === aspect) return;
      aspect = next;
      apply();
    },
    destroy() {
      observer.disconnect();
    },
  };
}

/**
 * How a drawing declares its logical box: the room (CSS pixels) it is designed for,
 * one unit a pixel; the fewest units it needs (a smaller room scales it down); and how
 * much larger than a unit a pixel it may grow in a larger room (a projector's).
 * @typedef {object} RoomBox
 * @property {[number, number]} design width and height, units
 * @property {[number, number]} least width and height, units
 * @property {number} [most] the largest scale, CSS pixels a unit (default 1.6)
 */

/**
 * The viewBox a drawing of `box` takes in `room` (its box's content size, CSS pixels; 0
 * before the first layout): the room's shape, so the drawing fills it, at a scale of one
 * CSS pixel a unit where the room is the design's size, larger in proportion in a larger
 * room (up to `most`), and never fewer units than `least`. Text sized in units then
 * reads at its own size on a laptop and grows with the screen: the stage's one rule for
 * the size of a drawing, which every renderer that draws in a viewBox asks.
 * @param {{width: number, height: number}} room
 * @param {RoomBox} box
 * @returns {[number, number]}
 */
export function roomViewBox({ width, height }, { design, least, most = 1.6 }) {
  if (!width || !height) return [design[0], design[1]];
  const grow = Math.min(most, Math.max(1, Math.min(width / design[0], height / design[1])));
  // whole units, rounded down, and a unit less in height (the box's size comes rounded
  // to the pixel): the drawing fills the box's width, a unit never less than a pixel
  return [
    Math.floor(Math.max(least[0], width / grow)),
    Math.floor(Math.max(least[1], height / grow - 1)),
  ];
}

/**
 * How an HTML drawing (a lab that draws with elements, not in a viewBox) grows: the room
 * (CSS pixels) its layout is designed for, and how much larger it may grow.
 * @typedef {object} HtmlBox
 * @property {[number, number]} design width and height, CSS pixels
 * @property {number} [most] the largest scale (default 1.6)
 */

/**
 * The scale an HTML drawing of `box` takes in `room`: one where the room is the design's
 * size or smaller (the layout reflows to a smaller room instead), larger in proportion in
 * a larger room (a projector's), up to `most`. In whole hundredths.
 * @param {{width: number, height: number}} room
 * @param {HtmlBox} box
 */
export function roomZoom({ width, height }, { design, most = 1.6 }) {
  if (!width || !height) return 1;
  const grow = Math.min(most, Math.max(1, Math.min(width / design[0], height / design[1])));
  return Math.floor(grow * 100) / 100;
}

/**
 * Grow `drawing` (an element in `room`, laid out by HTML) with the room: its CSS `zoom`
 * follows `roomZoom` whenever the room's size changes, so its text, boxes and gaps grow
 * together and its layout still fills the room. Returns {destroy()}.
 * @param {HTMLElement} room
 * @param {HTMLElement} drawing
 * @param {HtmlBox} box
 */
export function growWithRoom(room, drawing, box) {
  let shown = 1;
  const observer = new ResizeObserver(([entry]) => {
    const zoom = roomZoom(entry.contentRect, box);
    if (zoom === shown) return;
    shown = zoom;
    drawing.style.zoom = zoom === 1 ? "" : String(zoom);
  });
  observer.observe(room);
  return {
    destroy() {
      observer.disconnect();
      drawing.style.zoom = "";
    },
  };
}
