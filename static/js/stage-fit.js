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
