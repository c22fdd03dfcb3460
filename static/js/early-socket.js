/**
 * Opens a lab page's websocket while its modules are still on their way.
 *
 * A classic script, written into the page's head before its styles (the template tag
 * `{% inline_script %}`, which gives it `data-ws-path`, `data-seed` and `data-named`): it
 * runs as soon as the head is parsed, so the websocket's handshake travels in the same
 * round trip as the styles and modules instead of after them, and the room's hello is
 * usually waiting by the time socket.js starts. socket.js adopts this socket when the address it would open is the
 * same (`adoptEarlySocket`), and closes it otherwise; it replays the messages held here.
 *
 * Only a fresh room is opened early (no `?room=` or `?name=` in the address: a class asks
 * who you are first). The address is the one LabSocket.url() builds for a fresh room:
 * `seed`, a short `link` from the fragment, the display name kept in this tab (on a lab
 * page, `data-named="1"`; an embed has none), the client token, the page's language. tests/browser/test_early_socket.py checks that a page opens one socket, not two.
 */
(() => {
  const data = document.currentScript?.dataset;
  const here = new URL(location.href);
  if (!data?.wsPath || typeof WebSocket !== "function") return;
  if (here.searchParams.has("room") || here.searchParams.has("name")) return;
  // as socket.js: a link up to this long rides in the address, a longer one follows
  const LINK_IN_URL_CHARS = 4000;

  /** @param {string} key */
  function stored(key) {
    try {
      return sessionStorage.getItem(key);
    } catch {
      return null;
    }
  }

  /** This tab's client token, made as socket.js makes it when there is none yet. */
  function clientToken() {
    const key = "playground.client";
    try {
      let token = sessionStorage.getItem(key);
      if (!token) {
        const bytes = crypto.getRandomValues(new Uint8Array(18));
        token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
        sessionStorage.setItem(key, token);
      }
      return token;
    } catch {
      return "";
    }
  }

  /** The link in `#link=`, decoded as share.js decodes it; null without one. */
  function link() {
    if (!location.hash.startsWith("#link=")) return null;
    const raw = location.hash.slice("#link=".length);
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }

  const params = new URLSearchParams();
  params.set("seed", String(Number.parseInt(data.seed ?? "", 10) || 0));
  const shared = link();
  if (shared !== null && shared.length <= LINK_IN_URL_CHARS) params.set("link", shared);
  const name = data.named === "1" ? stored("playground:name") : null;
  if (name) params.set("name", name);
  params.set("client", clientToken());
  params.set("lang", document.documentElement.lang || "en");
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const url = `${scheme}//${location.host}${data.wsPath}?${params}`;

  /** @type {string[]} */
  const held = [];
  /** @type {number | null} */
  let closedWith = null;
  const ws = new WebSocket(url);
  /** @param {MessageEvent} event */
  const hold = (event) => held.push(event.data);
  /** @param {CloseEvent} event */
  const noteClose = (event) => {
    closedWith = event.code;
  };
  ws.addEventListener("message", hold);
  ws.addEventListener("close", noteClose);
  // @ts-ignore: a property of the page's window, read once by socket.js
  window.playgroundEarlySocket = {
    url,
    ws,
    /** Stop holding: what arrived so far, and the close code if it has closed. */
    release() {
      ws.removeEventListener("message", hold);
      ws.removeEventListener("close", noteClose);
      return { held: held.splice(0), closedWith };
    },
  };
})();
