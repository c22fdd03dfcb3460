/**
 * Draws round, outlined dots straight into an RGBA pixel buffer (an ImageData's). Canvas
 * `arc` + `fill` + `stroke` cost some ten microseconds a dot where the browser has no GPU
 * (each call sets up its own rasteriser), so hundreds of moving dots would take a whole
 * frame; a dot a few pixels wide costs far less computed here. Pure functions, no DOM.
 * Pixels are handled as 32-bit words, 0xAABBGGRR: the byte order of the little-endian
 * machines browsers run on.
 */

/**
 * Pixels over an ImageData: the words and the image share its buffer.
 * @typedef {object} Pixels
 * @property {ImageData} image
 * @property {Int32Array} words one 32-bit word a pixel
 * @property {number} width
 * @property {number} height
 */

/**
 * Pixels over an ImageData.
 * @param {ImageData} imageData
 * @returns {Pixels}
 */
export function createPixels(imageData) {
  return {
    image: imageData,
    words: new Int32Array(imageData.data.buffer),
    width: imageData.width,
    height: imageData.height,
  };
}

/**
 * Copy the rows of `region` ({y0, y1}) from `from` into `to` (same size).
 * @param {Pixels} from
 * @param {Pixels} to
 * @param {{y0: number, y1: number}} region
 */
export function copyRows(from, to, region) {
  const start = region.y0 * from.width;
  const end = (region.y1 + 1) * from.width;
  to.words.set(from.words.subarray(start, end), start);
}

/**
 * One dot centred at (x, y) with radius `r`, filled with `fill` and outlined (across its
 * edge, as SVG strokes) `rim` wide in `rimColour`; lengths in device pixels, colours
 * {r, g, b} in 0..255, the whole dot `alpha` opaque (0..1). Painted over what is there,
 * anti-aliased by coverage, on the rows of `rows` ({y0, y1}) only when given.
 * @param {{words: Int32Array, width: number, height: number}} pixels
 * @param {number} x
 * @param {number} y
 * @param {number} r
 * @param {{r: number, g: number, b: number}} fill
 * @param {number} rim
 * @param {{r: number, g: number, b: number}} rimColour
 * @param {{y0: number, y1: number} | null} [rows]
 * @param {number} [alpha]
 */
export function drawDot(pixels, x, y, r, fill, rim, rimColour, rows = null, alpha = 1) {
  const { words, width, height } = pixels;
  const outer = r + rim / 2;
  const inner = r - rim / 2;
  const x0 = Math.max(0, Math.floor(x - outer));
  const x1 = Math.min(width - 1, Math.ceil(x + outer));
  const y0 = Math.max(rows ? rows.y0 : 0, Math.floor(y - outer));
  const y1 = Math.min(rows ? rows.y1 : height - 1, Math.ceil(y + outer));
  if (x0 > x1 || y0 > y1 || alpha <= 0) return;
  for (let py = y0; py <= y1; py += 1) {
    const dy = py + 0.5 - y;
    const row = py * width;
    for (let px = x0; px <= x1; px += 1) {
      const dx = px + 0.5 - x;
      const d = Math.sqrt(dx * dx + dy * dy);
      const cover = clamp(outer - d + 0.5) * alpha;
      if (cover === 0) continue;
      const f = clamp(inner - d + 0.5);
      const red = rimColour.r + (fill.r - rimColour.r) * f;
      const green = rimColour.g + (fill.g - rimColour.g) * f;
      const blue = rimColour.b + (fill.b - rimColour.b) * f;
      words[row + px] = over(words[row + px], red, green, blue, cover);
    }
  }
}

/** @param {number} v */
function clamp(v) {
  return v <= 0 ? 0 : v >= 1 ? 1 : v;
}

/**
 * Source-over of a colour with alpha `a` onto a pixel (ImageData: straight alpha, RGBA).
 * @param {number} pixel 0xAABBGGRR
 * @param {number} red 0..255
 * @param {number} green
 * @param {number} blue
 * @param {number} a 0..1
 */
function over(pixel, red, green, blue, a) {
  const below = (pixel >>> 24) / 255;
  if (a < 1 && below > 0) {
    const keep = below * (1 - a);
    const alpha = a + keep;
    red = (red * a + (pixel & 255) * keep) / alpha;
    green = (green * a + ((pixel >>> 8) & 255) * keep) / alpha;
    blue = (blue * a + ((pixel >>> 16) & 255) * keep) / alpha;
    a = alpha;
  }
  return (
    (((a * 255 + 0.5) | 0) << 24) |
    (((blue + 0.5) | 0) << 16) |
    (((green + 0.5) | 0) << 8) |
    ((red + 0.5) | 0)
  );
}
