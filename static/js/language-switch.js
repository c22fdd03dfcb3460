/**
 * The language switch on a lab page: the same simulation, in other words.
 *
 * The switch is plain links (`?lang=zh-hans`), which work without this module. On a lab
 * page a plain link would load a fresh lab, so here a click keeps what the learner had:
 * a class session reopens its room (`?room=`; a host's secret stays in this tab), and a
 * private lab that has moved goes along as a link to this moment (`#link=`, as "Copy
 * link" makes it). If the server cannot make the link, the page still changes language.
 */

/**
 * @param {Element | null} nav the `.language-switch` navigation
 * @param {{root: HTMLElement, getLink: (fork: null) => Promise<{link: string}>}} lab
 */
export function keepLabAcrossLanguages(nav, { root, getLink }) {
  if (!nav) return;
  nav.addEventListener("click", async (event) => {
    const target = /** @type {Element | null} */ (event.target);
    const anchor = /** @type {HTMLAnchorElement | null} */ (target?.closest("a[data-lang]") ?? null);
    if (!anchor || anchor.getAttribute("aria-current") === "true") return;
    const mouse = /** @type {MouseEvent} */ (event);
    if (mouse.button !== 0 || mouse.metaKey || mouse.ctrlKey || mouse.shiftKey || mouse.altKey) {
      return; // a new tab or window: a fresh lab there is what was asked for
    }
    const url = new URL(anchor.href);
    const room = root.dataset.room;
    if (room && root.dataset.kind === "class") {
      event.preventDefault();
      url.searchParams.set("room", room);
      location.assign(url.href);
      return;
    }
    if (Number(root.dataset.seq ?? "0") === 0) return; // nothing happened yet: nothing to keep
    event.preventDefault();
    try {
      const answer = await getLink(null);
      url.hash = `link=${answer.link}`;
    } catch {
      // no link now (the server is busy, or the history is too heavy to link)
    }
    location.assign(url.href);
  });
}
