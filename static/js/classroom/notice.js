/**
 * What the class bar says when the class is over for this page: the host removed this
 * member (or did not let them in from the lobby), or the class hours ended (the socket is closed for good, the lab stays drawn as
 * it was), or the class asked for had ended before the page came (the page holds a fresh
 * lab of its own). Calm words, the server's own sentence, and the way on alone.
 */

import { sentence, t } from "../i18n.js";
import { el } from "./dom.js";

/**
 * Why the class bar shows a notice: "removed", "turned_away", "ended" (the page has
 * left the class), "waiting" (in the lobby) or "fresh" (the class asked for had ended).
 * @typedef {"removed" | "turned_away" | "ended" | "waiting" | "fresh"} NoticeKind
 */

/**
 * A notice: its kind, and the server's sentence (none: the notice's own words).
 * @typedef {{kind: NoticeKind, message?: string}} Notice
 */

/** @type {Partial<Record<NoticeKind, () => string>>} */
const TITLES = {
  removed: () => t("You are no longer in this class"),
  turned_away: () => t("The host did not let you in"),
  ended: () => t("The class is over"),
  waiting: () => t("Waiting for the host"),
};

/** @type {Record<NoticeKind, () => string>} */
const DEFAULT_MESSAGES = {
  removed: () => t("The host removed you from this class session."),
  turned_away: () => t("The host did not let you into this class session."),
  waiting: () => t("You are waiting for the host to let you into the class."),
  ended: () => t("This class session has ended."),
  fresh: () => t("That class session has ended; this is a fresh lab of your own."),
};

/** @type {Partial<Record<NoticeKind, () => string>>} */
const AFTER = {
  removed: () => t("The lab below stays as the class left it; it no longer follows the class."),
  turned_away: () => t("You can open the lab on your own instead."),
  waiting: () => t("Stay on this page: you join the class as soon as the host lets you in."),
  ended: () => t("The lab below shows where the class ended; it no longer changes."),
};

/**
 * Whether this kind of notice means the page has left the class (its socket closed).
 * @param {NoticeKind | undefined} kind
 */
export function leftTheClass(kind) {
  return kind === "removed" || kind === "turned_away" || kind === "ended";
}

/**
 * The notice's parts for the class bar, `[main, actions?]`: `kind` is "removed", "ended"
 * "fresh", "turned_away" or "waiting" (in the lobby); `message` the server's sentence; `slug` the lab, for the way on alone.
 * @param {Notice & {slug: string}} notice
 * @returns {HTMLElement[]}
 */
export function classNotice({ kind, message, slug }) {
  const said = message ? sentence(message) : DEFAULT_MESSAGES[kind]();
  const main = el("div", {
    className: "class-bar-main class-notice",
    attrs: { role: "alert", "data-kind": kind },
  });
  if (TITLES[kind]) main.append(el("h2", { className: "class-notice-title", text: TITLES[kind]() }));
  main.append(el("p", { className: "class-notice-text", text: said }));
  if (AFTER[kind]) main.append(el("p", { className: "class-notice-after", text: AFTER[kind]() }));
  if (!leftTheClass(kind)) return [main];
  const alone = el("a", {
    className: "button class-notice-go",
    text: t("Open the lab on my own"),
    attrs: { href: `/labs/${encodeURIComponent(slug)}/` },
  });
  return [main, el("div", { className: "class-bar-actions" }, alone)];
}
