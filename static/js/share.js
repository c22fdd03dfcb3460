/**
 * Sharing a lab's moment: "Copy link" asks the server for the link of this room's history
 * (`get_link`) and copies `<this page>#link=<link>`; opening that address rebuilds the same
 * state (lab-page.js sends `open_link`). Where the clipboard is refused, the address is
 * shown in a read-only field, selected, to copy by hand.
 *
 * `createShare` builds the share row; other sharing tools (an embed dialog) put their
 * button and panel beside "Copy link" with `share.addPanel(button, panel)`.
 */

import { button, copyText, el } from "./classroom/dom.js";
import { fmt, num, sentence, t } from "./i18n.js";

// Longer than this, some chat and docs tools cut a URL (playground/links.py).
const SHORT_LINK_CHARS = 2000;

/**
 * The address that opens `link`: this page (no query: a link opens a private room).
 * @param {string} link
 */
export function linkUrl(link) {
  return `${location.origin}${location.pathname}#link=${link}`;
}

/** The link in this page's address (`#link=...`), or null. */
export function linkInAddress() {
  const hash = location.hash;
  if (!hash.startsWith("#link=")) return null;
  const raw = hash.slice("#link=".length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // a damaged escape: the server refuses it with a sentence
  }
}

/**
 * Why no link came (the `error` get_link was refused with), as a sentence: a moment too
 * heavy to share says so in the server's words ("This moment cannot be shared as a
 * link: …"), anything else after "No link:".
 * @param {any} error a refusal ({code, message}) or whatever the request threw
 */
export function noLinkText(error) {
  if (error?.code === "link_too_heavy" && error.message) return sentence(error.message);
  return fmt(t("No link: %(message)s"), {
    message: error?.message || error?.code || t("try again"),
  });
}

/**
 * A place that says how a copy went: a status line, and (when the clipboard is refused)
 * a read-only field holding the address, selected. `place` receives both.
 * @param {HTMLElement} place
 */
export function createCopyResult(place) {
  const status = el("p", { className: "copy-result share-status", attrs: { role: "status" } });
  const field = el("input", {
    className: "share-field",
    attrs: { type: "text", readonly: true, "aria-label": t("The link, to copy") },
  });
  field.hidden = true;
  field.addEventListener("focus", () => field.select());
  place.append(status, field);
  return {
    status,
    field,
    /**
     * Copy the link `request()` resolves to ({link, chars}); say what happened.
     * @param {() => Promise<{ link: string, chars?: number }>} request
     */
    async copy(request) {
      status.textContent = t("Making the link…");
      status.dataset.state = "pending";
      let answer;
      try {
        answer = await request();
      } catch (error) {
        status.textContent = noLinkText(error);
        status.dataset.state = "error";
        field.hidden = true;
        field.value = "";
        return null;
      }
      const url = linkUrl(answer.link);
      const chars = num(url.length);
      const copied = await copyText(url);
      field.value = url;
      field.hidden = copied;
      if (copied) {
        status.textContent =
          url.length > SHORT_LINK_CHARS
            ? fmt(t("Link copied (%(chars)s characters: long, some chat and docs tools may cut it)."), {
                chars,
              })
            : fmt(t("Link copied (%(chars)s characters)."), { chars });
        status.dataset.state = "copied";
      } else {
        status.textContent = fmt(
          t("Could not copy by itself: the link (%(chars)s characters) is selected below, copy it."),
          { chars },
        );
        status.dataset.state = "manual";
        field.focus();
        field.select();
      }
      return url;
    },
  };
}

/**
 * The share row in `container`: "Copy link" (the current moment). `getLink(fork)` sends
 * `get_link` and resolves to the server's `link` answer.
 * @param {HTMLElement} container
 * @param {{ getLink: (fork: number | null) => Promise<{ link: string, chars?: number }> }} options
 */
export function createShare(container, { getLink }) {
  const row = el("div", { className: "share-row" });
  const copyButton = button(t("Copy link"), "button button-quiet share-copy");
  copyButton.title = t("A link to exactly this moment: whoever opens it sees the same state.");
  const results = el("div", { className: "share-results" });
  row.append(copyButton);
  container.replaceChildren(row, results);
  container.hidden = false;
  const result = createCopyResult(results);
  copyButton.addEventListener("click", () => result.copy(() => getLink(null)));

  return {
    element: container,
    result,
    /**
     * Put another tool beside "Copy link": its button in the row, its panel below.
     * @param {HTMLElement} trigger
     * @param {HTMLElement | null} [panel]
     */
    addPanel(trigger, panel = null) {
      row.append(trigger);
      if (panel) container.append(panel);
    },
  };
}
