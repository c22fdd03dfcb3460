/**
 * The "Embed" dialog of a lab page: choose the embed's options, see the <iframe> snippet
 * for this moment of the lab, copy it. The moment is the room's link, asked for with
 * `getLink(null)` (a promise of the server's `link` answer, as share.js's) each time the
 * dialog opens, and again with "Use this moment" after the lab has moved on.
 *
 * Mount it beside "Copy link":
 *
 *   const share = createShare(shareEl, { getLink });
 *   mountEmbedDialog(share, { getLink, slug: root.dataset.lab, title });
 *
 * or anywhere with `createEmbedDialog({getLink, slug, title, sizes})`, which returns
 * `{trigger, dialog, open()}` to place yourself. `title` (the iframe's accessible name)
 * defaults to the page's h1. The options are the query parameters of
 * /embed/<slug>/ (playground/embeds.py, docs/embedding.md).
 */

import { button, copyText, el } from "./classroom/dom.js";
import { fmt, num, t } from "./i18n.js";
import { noLinkText } from "./share.js";

/**
 * An embed's options: the query parameters of /embed/<slug>/ (docs/embedding.md).
 * @typedef {object} EmbedOptions
 * @property {string} mode "interactive" or "readonly"
 * @property {boolean} controls
 * @property {boolean} narrative
 * @property {string} theme "light" or "dark"
 * @property {string} lang a language code, or "" for the reader's own
 */

/**
 * The frame sizes a lab page proposes, in pixels.
 * @typedef {{width: number, height: number, shortHeight: number}} EmbedSizes
 */

/**
 * Ask the server for a link: `fork` null for the moment shown (share.js's `getLink`).
 * @typedef {(fork: number | null) => Promise<{link: string, chars?: number}>} GetLink
 */

/**
 * What `createEmbedDialog` takes.
 * @typedef {object} EmbedDialogOptions
 * @property {GetLink} getLink
 * @property {string} slug the lab
 * @property {string} [title] the iframe's accessible name (default: the page's h1)
 * @property {EmbedSizes} [sizes] the frames it proposes (default: the page's)
 */

// Longer than this, some chat and docs tools cut a URL (playground/links.py).
const SHORT_LINK_CHARS = 2000;
// The frame oEmbed proposes (playground/embeds.py), as the lab's manifest declares it
// (simulators/labs/<lab>/manifest.py): the lab page carries it on #lab as
// data-embed-width, data-embed-height (room for the controls) and
// data-embed-short-height (no controls, or read-only). These are used only on a page
// that has no such attributes.
const FALLBACK_SIZES = { width: 800, height: 720, shortHeight: 520 };
/** @type {EmbedOptions} */
const DEFAULTS = { mode: "interactive", controls: true, narrative: false, theme: "light", lang: "" };

/**
 * Escape text for an HTML attribute value in double quotes.
 * @param {string | number} text
 */
export function escapeAttribute(text) {
  return String(text)
    .replaceAll("&", "&amp;")
    .replaceAll('"', "&quot;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;");
}

/**
 * The embed's address: /embed/<slug>/ with the options that differ from the defaults.
 * @param {{origin: string, slug: string, link: string | null, options?: Partial<EmbedOptions>}} where
 */
export function embedUrl({ origin, slug, link, options = {} }) {
  const params = new URLSearchParams();
  const chosen = { ...DEFAULTS, ...options };
  if (chosen.mode !== DEFAULTS.mode) params.set("mode", chosen.mode);
  for (const flag of /** @type {const} */ (["controls", "narrative"])) {
    if (Boolean(chosen[flag]) !== DEFAULTS[flag]) params.set(flag, chosen[flag] ? "1" : "0");
  }
  if (chosen.theme !== DEFAULTS.theme) params.set("theme", chosen.theme);
  if (chosen.lang) params.set("lang", chosen.lang);
  const query = params.toString();
  const path = `/embed/${encodeURIComponent(slug)}/`;
  const fragment = link ? `#link=${encodeURIComponent(link)}` : "";
  return `${origin}${path}${query ? `?${query}` : ""}${fragment}`;
}

/**
 * The frame sizes a lab page proposes, read from its root's data-embed-* attributes.
 * @param {HTMLElement | null} [root]
 * @returns {EmbedSizes}
 */
export function embedSizes(root = document.getElementById("lab")) {
  const data = root ? root.dataset : {};
  /** @param {string | undefined} text @param {number} fallback */
  const size = (text, fallback) => {
    const value = Number(text);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  return {
    width: size(data.embedWidth, FALLBACK_SIZES.width),
    height: size(data.embedHeight, FALLBACK_SIZES.height),
    shortHeight: size(data.embedShortHeight, FALLBACK_SIZES.shortHeight),
  };
}

/**
 * The height an embed needs by default: room for the controls where there are any (a
 * read-only embed has none).
 * @param {{height: number, shortHeight: number}} sizes
 * @param {boolean} controls
 */
export function defaultHeight(sizes, controls, mode = "interactive") {
  return controls && mode !== "readonly" ? sizes.height : sizes.shortHeight;
}

/**
 * The <iframe> snippet for a docs page; every value is escaped.
 * @param {{origin: string, slug: string, link: string | null, options?: Partial<EmbedOptions>,
 *   width: number, height: number, title: string}} snippet
 */
export function embedSnippet({ origin, slug, link, options = {}, width, height, title }) {
  const src = embedUrl({ origin, slug, link, options });
  return (
    `<iframe src="${escapeAttribute(src)}" width="${escapeAttribute(width)}" ` +
    `height="${escapeAttribute(height)}" title="${escapeAttribute(title)}" loading="lazy" ` +
    `style="border:0;max-width:100%" allow="clipboard-write"></iframe>`
  );
}

let dialogCount = 0;

/** The dialog's styles live in embed.css (beside the embed page's): load it once. */
function ensureStyles() {
  const href = new URL("../css/embed.css", import.meta.url).href;
  if ([...document.styleSheets].some((sheet) => sheet.href === href)) return;
  if (document.querySelector("link[data-embed-styles]")) return;
  const link = el("link", { attrs: { rel: "stylesheet", href, "data-embed-styles": true } });
  document.head.append(link);
}

/**
 * The dialog and its trigger. `getLink(fork)` resolves to `{link, chars}`; `title` names
 * the iframe for screen readers; `sizes` are the frames it proposes (by default the
 * page's, `embedSizes()`).
 * @param {EmbedDialogOptions} options
 */
export function createEmbedDialog({ getLink, slug, title = "", sizes: proposed = embedSizes() }) {
  ensureStyles();
  dialogCount += 1;
  const id = `embed-dialog-${dialogCount}`;
  const trigger = button(t("Embed"), "button button-quiet embed-trigger", {
    "aria-haspopup": "dialog",
    "aria-controls": id,
  });
  trigger.title = t("An <iframe> of this moment of the lab, for a docs page or a course site.");
  title = title || document.querySelector("h1")?.textContent?.trim() || "";
  const heading = el("h2", { text: t("Embed this lab"), attrs: { id: `${id}-title` } });
  const dialog = el("dialog", {
    className: "embed-dialog",
    attrs: { id, "aria-labelledby": `${id}-title` },
  });

  const state = { ...DEFAULTS, width: proposed.width, height: defaultHeight(proposed, true) };
  let heightTouched = false;
  /** @type {string | null} */
  let link = null;

  /**
   * A group of radio buttons for the option `name`: `choices` are [value, label, lang?]
   * (`lang`: the label's own language).
   * @param {"mode" | "theme" | "lang"} name
   * @param {string} legend
   * @param {[string, string, string?][]} choices
   */
  function radios(name, legend, choices) {
    const fieldset = el("fieldset", { className: "embed-choice" }, el("legend", { text: legend }));
    for (const [value, label, lang] of choices) {
      const input = el("input", {
        attrs: { type: "radio", name: `${id}-${name}`, value, checked: state[name] === value },
      });
      input.addEventListener("change", () => {
        state[name] = value;
        if (name === "mode" && !heightTouched) {
          state.height = defaultHeight(proposed, state.controls, state.mode);
          heightInput.value = String(state.height);
        }
        render();
      });
      const words = el("span", { text: label, attrs: lang ? { lang } : {} });
      fieldset.append(el("label", { className: "embed-option" }, input, words));
    }
    return fieldset;
  }

  /**
   * @param {"controls" | "narrative"} name
   * @param {string} label
   * @param {string} [help]
   */
  function checkbox(name, label, help = "") {
    const input = el("input", { attrs: { type: "checkbox", checked: state[name] } });
    input.dataset.option = name;
    input.addEventListener("change", () => {
      state[name] = input.checked;
      if (name === "controls" && !heightTouched) {
        state.height = defaultHeight(proposed, state.controls, state.mode);
        heightInput.value = String(state.height);
      }
      render();
    });
    const label_ = el("label", { className: "embed-option" }, input, el("span", { text: label }));
    if (help) label_.append(el("small", { className: "help", text: help }));
    return label_;
  }

  /**
   * A number field for the frame's `name` ("width" or "height"): the row and its input.
   * @param {"width" | "height"} name
   * @param {string} label
   * @returns {[HTMLElement, HTMLInputElement]}
   */
  function sizeField(name, label) {
    const input = el("input", {
      attrs: {
        type: "number",
        inputmode: "numeric",
        min: name === "width" ? 240 : 200,
        max: 4000,
        step: 10,
        value: state[name],
        id: `${id}-${name}`,
      },
    });
    input.addEventListener("input", () => {
      const value = Number.parseInt(input.value, 10);
      if (Number.isFinite(value) && value >= 100 && value <= 4000) {
        state[name] = value;
        if (name === "height") heightTouched = true;
        render();
      }
    });
    return [el("div", { className: "field embed-size" }, el("label", { text: label, attrs: { for: input.id } }), input), input];
  }

  const modes = radios("mode", t("Readers can"), [
    ["interactive", t("Try things (interactive)")],
    ["readonly", t("Only look (read-only)")],
  ]);
  const themes = radios("theme", t("Theme"), [
    ["light", t("Light")],
    ["dark", t("Dark")],
  ]);
  // the languages the site speaks, as its switch names them (each in itself)
  const spoken = [...document.querySelectorAll(".language-switch a[data-lang]")].map((a) => {
    const code = /** @type {HTMLElement} */ (a).dataset.lang ?? "";
    return /** @type {[string, string, string]} */ ([code, a.textContent?.trim() ?? "", code]);
  });
  const languages = radios("lang", t("Language"), [["", t("The reader's own")], ...spoken]);
  const shows = el(
    "fieldset",
    { className: "embed-choice" },
    el("legend", { text: t("Show") }),
    checkbox("controls", t("The controls")),
    checkbox("narrative", t("The guide")),
  );
  const [widthField] = sizeField("width", t("Width (px)"));
  const [heightField, heightInput] = sizeField("height", t("Height (px)"));
  const sizes = el("div", { className: "embed-sizes" }, widthField, heightField);

  const code = el("textarea", {
    className: "embed-code",
    attrs: { readonly: true, rows: 4, spellcheck: "false", id: `${id}-code` },
  });
  code.addEventListener("focus", () => code.select());
  const codeLabel = el("label", { text: t("The snippet to paste"), attrs: { for: code.id } });
  const note = el("p", { className: "embed-note", attrs: { role: "status" } });
  const copy = button(t("Copy the snippet"), "button embed-copy");
  const refresh = button(t("Use this moment"), "button button-quiet embed-refresh");
  refresh.title = t("Make the snippet again from what the lab shows now.");
  const close = button(t("Close"), "button button-quiet embed-close");
  const result = el("p", { className: "copy-result embed-result", attrs: { role: "status" } });

  dialog.append(
    el("div", { className: "embed-dialog-head" }, heading, close),
    el("form", { className: "embed-form", attrs: { method: "dialog" } }, modes, shows, themes, languages, sizes),
    codeLabel,
    code,
    note,
    el("div", { className: "embed-actions" }, copy, refresh),
    result,
  );

  function render() {
    if (link === null) {
      code.value = "";
      return;
    }
    code.value = embedSnippet({
      origin: location.origin,
      slug,
      link,
      options: state,
      width: state.width,
      height: state.height,
      title,
    });
    const chars = embedUrl({ origin: location.origin, slug, link, options: state }).length;
    note.textContent =
      chars > SHORT_LINK_CHARS
        ? fmt(
            t("The address is %(chars)s characters: longer than 2,000, some docs tools may cut it. Step back to an earlier moment for a shorter one."),
            { chars: num(chars) },
          )
        : fmt(t("The address is %(chars)s characters."), { chars: num(chars) });
    note.dataset.long = String(chars > SHORT_LINK_CHARS);
    delete note.dataset.state;
  }

  async function fetchLink() {
    note.textContent = t("Making the link…");
    delete note.dataset.state;
    copy.disabled = true;
    try {
      const answer = await getLink(null);
      link = answer.link;
      copy.disabled = false;
      render();
    } catch (error) {
      link = null;
      render();
      note.textContent = noLinkText(error);
      note.dataset.state = "error";
    }
  }

  copy.addEventListener("click", async () => {
    const ok = await copyText(code.value);
    result.textContent = ok ? t("Snippet copied.") : t("Could not copy: select the snippet and copy it.");
    if (!ok) {
      code.focus();
      code.select();
    }
  });
  refresh.addEventListener("click", fetchLink);
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    result.textContent = "";
    trigger.setAttribute("aria-expanded", "false");
    trigger.focus();
  });
  // a click on the backdrop (outside the box) closes it, as Escape does
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });

  function open() {
    if (!dialog.open) dialog.showModal();
    trigger.setAttribute("aria-expanded", "true");
    fetchLink();
  }
  trigger.setAttribute("aria-expanded", "false");
  trigger.addEventListener("click", open);

  return { trigger, dialog, open, state };
}

/**
 * Put the "Embed" button beside share.js's "Copy link" (`share.addPanel`).
 * @param {{addPanel: (trigger: HTMLElement, panel?: HTMLElement | null) => void}} share
 * @param {EmbedDialogOptions} options
 */
export function mountEmbedDialog(share, options) {
  const parts = createEmbedDialog(options);
  share.addPanel(parts.trigger, parts.dialog);
  return parts;
}
