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
  const said = typeof catalog.gettext === "function" ? catalog.gettext(text) : text;
  return said === text ? (dataWords.get(text) ?? said) : said;
}

/** @type {Map<string, string>} words that arrive as data, as the server translated them */
const dataWords = new Map();

/**
 * Learn the translations of the words a lab's snapshot carries as data (its
 * declaration's `words`, translated for this socket in `hello`): `t()` then knows them.
 * @param {Record<string, string> | undefined} words
 */
export function learnWords(words) {
  for (const [english, said] of Object.entries(words ?? {})) {
    if (typeof said === "string" && said) dataWords.set(english, said);
  }
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
  if (/[.!?…。！？]$/.test(first)) return first;
  // Chinese ends a sentence with its own full stop; Thai with none (a space follows)
  const lang = pageLanguage();
  if (lang.startsWith("zh")) return `${first}。`;
  if (lang.startsWith("th")) return first;
  return `${first}.`;
}

/**
 * Sentences one after another: Chinese runs them together, the others put a space
 * between.
 * @param {(string | null | undefined | false)[]} sentences
 */
export function joinSentences(sentences) {
  const kept = sentences.filter(Boolean);
  return kept.join(pageLanguage().startsWith("zh") ? "" : " ");
}

/**
 * Names in a row, as the page's language lists them: "A, B, C"; Chinese "A、B、C".
 * @param {unknown[]} items
 */
export function joinNames(items) {
  // Translators: what stands between the items of a list of names ("A, B, C")
  return items.map(String).join(t(", "));
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
