/**
 * Translation helpers over Django's JavaScriptCatalog (window.gettext & co.).
 * When the catalog did not load, every helper falls back to the English text.
 */

/**
 * What the catalogue puts on window; any of it may be missing (the catalogue did not load).
 * @typedef {object} Catalogue
 * @property {(text: string) => string} [gettext]
 * @property {(singular: string, plural: string, n: number) => string} [ngettext]
 * @property {(template: string, values: Record<string, unknown>, named: true) => string} [interpolate]
 */

const catalog = /** @type {Catalogue} */ (/** @type {unknown} */ (globalThis));

/**
 * Translate one message.
 * @param {string} text
 * @returns {string}
 */
export function t(text) {
  return typeof catalog.gettext === "function" ? catalog.gettext(text) : text;
}

/**
 * Translate a message whose form depends on the count `n`.
 * @param {string} singular
 * @param {string} plural
 * @param {number} n
 * @returns {string}
 */
export function tn(singular, plural, n) {
  if (typeof catalog.ngettext === "function") return catalog.ngettext(singular, plural, n);
  return n === 1 ? singular : plural;
}

/**
 * Fill `%(name)s` placeholders in a (translated) template from `values`.
 * @param {string} template
 * @param {Record<string, unknown>} values
 * @returns {string}
 */
export function fmt(template, values) {
  if (typeof catalog.interpolate === "function") {
    return catalog.interpolate(template, values, true);
  }
  return template.replace(/%\((\w+)\)s/g, (whole, name) =>
    name in values ? String(values[name]) : whole,
  );
}

/**
 * A server's clause as a sentence: a capital first, a full stop last.
 * @param {unknown} text
 * @returns {string}
 */
export function sentence(text) {
  const words = String(text ?? "").trim();
  if (!words) return words;
  const first = words[0].toUpperCase() + words.slice(1);
  return /[.!?…]$/.test(first) ? first : `${first}.`;
}

/** The page's language, for number formatting. */
export function pageLanguage() {
  return document.documentElement.lang || "en";
}

const integerFormat = new Intl.NumberFormat(pageLanguage(), { maximumFractionDigits: 0 });

/**
 * A whole number with the page language's grouping: 10000 → "10,000".
 * @param {number} value
 */
export function num(value) {
  return integerFormat.format(value);
}

/**
 * A number with a fixed count of decimals: (1.0134, 2) → "1.01".
 * @param {number} value
 * @param {number} [digits]
 */
export function decimal(value, digits = 1) {
  return formatter("decimal", digits).format(value);
}

/**
 * A fraction 0..1 as a percentage with one decimal: 0.7987 → "79.9%".
 * @param {number} fraction
 * @param {number} [digits]
 */
export function percent(fraction, digits = 1) {
  return formatter("percent", digits).format(fraction);
}

// Number formats made once per language, style and decimals (making one costs far more
// than using it, and animated numbers format every frame).
const formats = new Map();

/**
 * @param {"decimal" | "percent"} style
 * @param {number} digits
 */
function formatter(style, digits) {
  const lang = pageLanguage();
  const key = `${lang} ${style} ${digits}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(lang, {
      style,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    formats.set(key, format);
  }
  return format;
}
