/**
 * The websocket client of docs/protocol.md: connect, resume by sequence number after a
 * drop (exponential backoff with jitter), drop stale frames, and hand messages to callbacks.
 * It can join a given room (a class, with a display name), switch rooms (a private
 * branch and back) and send the class messages (claim_host, control, ask, ...).
 *
 * A page opened from a link (`#link=...`) asks for the link's room (`open_link`) as soon as
 * the first hello arrives and shows nothing before the answer: the link's hello, or (the
 * link refused) the fresh room's hello, after `onLinkRefused(error)`. The link is opened
 * once: a reconnect resumes the room it made.
 *
 * The server says why it closes a socket in an error without a ref just before the close:
 * that error goes with the close (`onRefused({code, error})` for 4400–4499, for good;
 * `onStatus("busy", error)` when it is busy and we try again later).
 */

import { t } from "./i18n.js";
import { applyPatch } from "./patch.js";

/** @import { Frame, Hello, ServerError, Snapshot } from "./types.js" */

/**
 * Where the connection is: `onStatus(state, reason)`.
 * @typedef {"connecting" | "open" | "reconnecting" | "busy" | "waiting" | "refused"} SocketState
 */

/**
 * What the socket tells the page; every one is optional.
 * @typedef {object} SocketCallbacks
 * @property {(hello: Hello) => void} [onHello] a room to draw from scratch
 * @property {(resumed: {room: string, seq: number, since: number, member?: string}) => void} [onResumed]
 * @property {(frame: Frame) => void} [onFrame] the next frame, in order (`ref` null unless ours)
 * @property {(error: ServerError) => void} [onError] a refusal no request of ours waits for
 * @property {(presence: {watching?: number}) => void} [onPresence]
 * @property {(pong: {ref: string}) => void} [onPong]
 * @property {(state: SocketState, reason: ServerError | null) => void} [onStatus]
 * @property {(refusal: {code: number, error: ServerError | null}) => void} [onRefused] refused
 *   for good (closes 4400–4499), with the server's error just before the close
 * @property {(error: ServerError) => void} [onLinkRefused] the page's link was not opened
 * @property {(message: {type: string, [key: string]: any}) => void} [onClass] classroom.js's
 */

/**
 * @typedef {object} SocketOptions
 * @property {number} [seed] for a brand-new room
 * @property {string | null} [room] an existing room to join (a class) or resume
 * @property {string} [name] the display name a class shows
 * @property {string | null} [link] a link to open once greeted
 * @property {SocketCallbacks} [callbacks]
 */

const BACKOFF_FIRST_MS = 1000;
// Links up to this length go in the websocket's address (servers accept 8 KB lines).
const LINK_IN_URL_CHARS = 4000;
const BACKOFF_MAX_MS = 10000;
// A server that said it is busy or full is given longer: every page it turned away
// comes back spread over up to half a minute, not all at once every few seconds.
const BUSY_BACKOFF_FIRST_MS = 2000;
const BUSY_BACKOFF_MAX_MS = 30000;
// 4400–4499: refused for good (a bad name, a full room, removed, a class that ended).
const CLOSE_REFUSED_FIRST = 4400;
const CLOSE_REFUSED_LAST = 4499;
// The server could not open this now (too much work, too many rooms): come back later.
const CLOSE_TRY_AGAIN = 4503;
// Errors that say the server is too busy to let us in now; a 4503 close follows them
// (server_full: the process serves as many sockets, or holds as many rooms, as it may).
const BUSY_CODES = new Set(["busy", "too_many_rooms", "class_full", "lobby_full", "too_slow", "server_full"]);

/** A lab's websocket: `send(action, args)` out, `onHello`/`onFrame`/... callbacks in. */
export class LabSocket {
  /**
   * `wsPath` like "/ws/labs/hash-placement/"; `seed` is used for a brand-new room, `room`
   * joins an existing one (a class), `name` is the display name a class shows.
   * @param {string} wsPath
   * @param {SocketOptions} [options]
   */
  constructor(wsPath, { seed = 0, room = null, name = "", link = null, callbacks = {} } = {}) {
    this.wsPath = wsPath;
    this.seed = seed;
    this.callbacks = callbacks;
    this.room = room;
    this.name = name;
    /** @type {string | null} our member id in the room (frames carry the actor's as `by`) */
    this.member = null;
    this.greeted = false; // whether this room said hello (so a resume can ask `since`)
    /** @type {Snapshot | null} the last snapshot, which a frame's `patch` changes */
    this.snapshot = null;
    this.seq = 0;
    this.refCount = 0;
    this.attempt = 0;
    /** @type {WebSocket | null} */
    this.ws = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retryTimer = undefined;
    this.stopped = false;
    this.link = link; // a link to open once the socket is greeted (then null)
    this.linkInUrl = false; // the link went in the address of the socket being opened
    /** @type {ServerError | null} */
    this.linkRefusal = null;
    /** @type {{ref: string, held: Hello} | null} open_link sent, the fresh room's hello kept */
    this.opening = null;
    /** @type {Map<string, {resolve: (answer: any) => void, reject: (error: ServerError) => void}>} */
    this.asked = new Map(); // requests that expect an answer, by ref
    /** @type {ServerError | null} the last error without a ref: the reason if a close follows */
    this.lastWord = null;
    /** @type {ServerError | null} the server's reason while we wait to try again (busy) */
    this.waiting = null;
    /** @type {Map<number, (string | null)[]>} parts of long messages, by id, until whole */
    this.parts = new Map();
  }

  /** Open the connection (a new room, or a resumed one if we already had a room). */
  connect() {
    this.stopped = false;
    this.lastWord = null;
    if (this.waiting) this.status("busy", this.waiting);
    // "reconnecting" only once this room has greeted us: a class's first join connects
    else this.status(this.greeted ? "reconnecting" : "connecting");
    const url = this.url();
    const early = adoptEarlySocket(url);
    const ws = early?.ws ?? new WebSocket(url);
    this.ws = ws;
    ws.addEventListener("message", (event) => this.receive(event.data));
    ws.addEventListener("close", (event) => this.closed(ws, event.code));
    ws.addEventListener("error", () => ws.close());
    if (!early) return;
    // what the early socket heard before we came, in order; then its close, if it came
    const { held, closedWith } = early.release();
    for (const text of held) {
      if (this.ws !== ws) return; // a message made us leave it (a gap, a switch)
      this.receive(text);
    }
    if (closedWith !== null) this.closed(ws, closedWith);
  }

  /** The URL to open: a new room with our seed, a given room, or a resume after our seq. */
  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const base = `${scheme}//${location.host}${this.wsPath}`;
    const params = new URLSearchParams();
    if (this.room) {
      params.set("room", this.room);
      if (this.greeted) params.set("since", String(this.seq));
    } else {
      params.set("seed", String(this.seed));
      // a short link rides in the address: the server opens its room at once (one
      // hello, no throwaway room); a long one is sent as open_link after the hello
      this.linkInUrl = this.link !== null && this.link.length <= LINK_IN_URL_CHARS;
      if (this.linkInUrl && this.link !== null) params.set("link", this.link);
    }
    if (this.name) params.set("name", this.name);
    params.set("client", clientToken());
    // the server's words (errors, the lab's labels) in this page's language
    params.set("lang", document.documentElement.lang || "en");
    return `${base}?${params}`;
  }

  /**
   * Leave this room for another (a private branch, or back to the class): a fresh hello.
   * @param {string} room
   */
  switchRoom(room) {
    clearTimeout(this.retryTimer);
    const old = this.ws;
    this.ws = null; // so its close does not schedule a reconnect
    old?.close();
    this.room = room;
    this.seq = 0;
    this.greeted = false;
    this.member = null;
    this.snapshot = null;
    this.attempt = 0;
    this.link = null;
    this.opening = null;
    this.connect();
  }

  /**
   * Whether a frame answers an action of ours: refs are per client, so check the actor.
   * @param {Frame} frame
   */
  ours(frame) {
    return Boolean(frame.ref) && this.member !== null && frame.by === this.member;
  }

  /**
   * Send an action; returns the ref ("c1", "c2", ...) the server will echo.
   * @param {string} action
   * @param {Record<string, unknown>} [args]
   * @returns {string}
   */
  send(action, args = {}) {
    const ref = this.nextRef();
    this.write({ type: "action", ref, action, args });
    return ref;
  }

  /**
   * Send a protocol message (`claim_host`, `control`, `ask`, ...); returns its ref.
   * @param {string} type
   * @param {Record<string, unknown>} [fields]
   * @returns {string}
   */
  message(type, fields = {}) {
    const ref = this.nextRef();
    this.write({ ...fields, type, ref });
    return ref;
  }

  /**
   * Send a message that the server answers with a message of its own carrying the same
   * ref (`get_link` → `link`): a promise of that answer, rejected with the `error`.
   * @param {string} type
   * @param {Record<string, unknown>} [fields]
   * @returns {Promise<any>}
   */
  request(type, fields = {}) {
    const ref = this.nextRef();
    return new Promise((resolve, reject) => {
      this.asked.set(ref, { resolve, reject });
      this.write({ ...fields, type, ref });
    });
  }

  /** Ask the server for a pong; returns the ref used. */
  ping() {
    const ref = this.nextRef();
    this.write({ type: "ping", ref });
    return ref;
  }

  /** Close for good (no reconnect). */
  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.ws?.close();
  }

  /** The next ref of ours ("c1", "c2", ...). */
  nextRef() {
    this.refCount += 1;
    return `c${this.refCount}`;
  }

  /**
   * Send one message, or (not connected) answer it with a `not_connected` error.
   * @param {{type: string, ref: string, [key: string]: unknown}} message
   */
  write(message) {
    if (this.ws?.readyState !== WebSocket.OPEN) {
      this.error({
        type: "error",
        code: "not_connected",
        message: this.stopped
          ? t("Not connected, so nothing was sent.")
          : t("Not connected, so nothing was sent. Reconnecting…"),
        ref: message.ref,
      });
      return;
    }
    this.ws.send(JSON.stringify(message));
  }

  /**
   * One message from the server, to its handler.
   * @param {string} text
   */
  receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message?.type === "part") {
      this.part(message);
      return;
    }
    const handler = HANDLERS[message?.type];
    if (handler) handler(this, message);
  }

  /**
   * One part of a message too long for one websocket message (docs/protocol.md,
   * "Parts"): once all `count` parts of `id` are here, their texts joined are the message.
   * @param {{id: number, index: number, count: number, text: string}} part
   */
  part({ id, index, count, text }) {
    let held = this.parts.get(id);
    if (!held) {
      held = new Array(count).fill(null);
      this.parts.set(id, held);
    }
    held[index] = text;
    if (held.some((piece) => piece === null)) return;
    this.parts.delete(id);
    this.receive(held.join(""));
  }

  /**
   * An error: the answer to a request of ours, or one for the callbacks.
   * @param {ServerError} message
   */
  error(message) {
    const waiting = message.ref ? this.asked.get(message.ref) : undefined;
    if (message.ref && waiting) {
      this.asked.delete(message.ref);
      waiting.reject(message);
      return;
    }
    this.emit("onError", message);
  }

  /**
   * The socket `ws` closed with `code`: refused for good, busy, or try again.
   * @param {WebSocket} ws
   * @param {number} code
   */
  closed(ws, code) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.parts.clear();
    const reason = this.lastWord; // what the server said just before closing, if anything
    this.lastWord = null;
    for (const ref of [...this.asked.keys()]) {
      this.error({ type: "error", code: "not_connected", message: t("The connection dropped."), ref });
    }
    if (this.opening) {
      // dropped before the link was answered: start afresh and ask for it again
      this.opening = null;
      this.room = null;
      this.greeted = false;
    }
    if (this.stopped) return;
    // 4400/4403/4404/4410/4429: the server refused us for good (a bad name, a full room,
    // too many wrong secrets, no such lab, removed from a class, a class that ended, a
    // flood); trying again would be refused again.
    if (code >= CLOSE_REFUSED_FIRST && code <= CLOSE_REFUSED_LAST) {
      this.stopped = true;
      this.status("refused", reason);
      this.emit("onRefused", { code, error: reason });
      return;
    }
    // 4503 "come back later": busy, unless the server said something else (a failure)
    const busy = BUSY_CODES.has(reason?.code ?? "") || (code === CLOSE_TRY_AGAIN && !reason);
    this.waiting = busy ? (reason ?? { type: "error", code: "busy", message: "" }) : null;
    if (busy) this.status("busy", this.waiting);
    else this.status("reconnecting", reason);
    const [first, most] = busy
      ? [BUSY_BACKOFF_FIRST_MS, BUSY_BACKOFF_MAX_MS]
      : [BACKOFF_FIRST_MS, BACKOFF_MAX_MS];
    const ceiling = Math.min(most, first * 2 ** this.attempt);
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** A gap in sequence numbers: drop this socket and resume from the last seq we saw. */
  resync() {
    this.ws?.close();
  }

  /**
   * Tell `onStatus(state, reason)`: reason is the server's error that led there, or null.
   * @param {SocketState} state
   * @param {ServerError | null} [reason]
   */
  status(state, reason = null) {
    this.emit("onStatus", state, reason);
  }

  /**
   * Call the callback `name` with `payload`, if the page gave one.
   * @param {keyof SocketCallbacks} name
   * @param {...any} payload
   */
  emit(name, ...payload) {
    /** @type {((...args: any[]) => void) | undefined} */
    const callback = this.callbacks[name];
    if (typeof callback === "function") callback(...payload);
  }
}

/**
 * @callback Handler
 * @param {LabSocket} socket
 * @param {any} message
 * @returns {void}
 */

/** @type {Handler} */
function onHello(socket, message) {
  if (socket.linkInUrl) {
    // the link rode in the address: this hello is its room, or (refused, with the
    // reason just before) a fresh one
    socket.linkInUrl = false;
    socket.link = null;
    if (socket.linkRefusal) {
      socket.emit("onLinkRefused", socket.linkRefusal);
      socket.linkRefusal = null;
    }
  }
  socket.room = message.room;
  socket.seq = message.seq ?? 0;
  socket.member = message.member ?? null;
  socket.snapshot = message.snapshot ?? null;
  socket.greeted = true;
  socket.attempt = 0;
  socket.lastWord = null; // an error before a hello said why this room is fresh
  socket.waiting = null;
  if (socket.link !== null && socket.opening === null) {
    // a page opened from a link: ask for the link's room before anyone can act here,
    // and keep this fresh room's hello in case the link is refused
    socket.opening = { ref: socket.nextRef(), held: message };
    socket.write({ type: "open_link", ref: socket.opening.ref, link: socket.link });
    return;
  }
  if (socket.opening !== null) {
    socket.opening = null; // the link's room: opened once, a reconnect resumes it
    socket.link = null;
  }
  socket.status("open");
  socket.emit("onHello", message);
}

/** @type {Handler} */
function onError(socket, message) {
  if (socket.linkInUrl && message.ref === "link") {
    socket.linkRefusal = message; // said with the hello that follows
    return;
  }
  if (message.ref === null || message.ref === undefined) {
    socket.lastWord = message;
    // the server is too busy to let us in: the status says so when the close follows
    if (BUSY_CODES.has(message.code)) return;
  }
  const opening = socket.opening;
  if (opening && message.ref === opening.ref) {
    // the link was refused: say why, then show the fresh room we are still in
    socket.opening = null;
    socket.link = null;
    socket.emit("onLinkRefused", message);
    socket.status("open");
    socket.emit("onHello", opening.held);
    return;
  }
  socket.error(message);
}

/** @type {Handler} */
function onAnswer(socket, message) {
  const waiting = socket.asked.get(message.ref);
  if (!waiting) return;
  socket.asked.delete(message.ref);
  waiting.resolve(message);
}

/** @type {Handler} */
function onResumed(socket, message) {
  socket.member = message.member ?? socket.member;
  socket.attempt = 0;
  socket.lastWord = null;
  socket.waiting = null;
  socket.status("open");
  socket.emit("onResumed", message);
}

/** @type {Handler} */
function onFrame(socket, message) {
  if (typeof message.seq !== "number" || message.seq <= socket.seq) return;
  if (message.seq > socket.seq + 1) {
    socket.resync();
    return;
  }
  if (message.patch) {
    // the change since the frame before (playground/delta.py): rebuild the snapshot
    if (socket.snapshot === null) {
      socket.resync();
      return;
    }
    message.snapshot = applyPatch(socket.snapshot, message.patch);
    delete message.patch;
  }
  socket.snapshot = message.snapshot ?? socket.snapshot;
  socket.seq = message.seq;
  // Someone else's "c7" is not our "c7": only our own actions keep their ref.
  socket.emit("onFrame", socket.ours(message) ? message : { ...message, ref: null });
}

/** Class messages go to `onClass` (classroom.js). */
const CLASS_MESSAGES = [
  "class_started",
  "branched",
  "role",
  "control",
  "question",
  "answers",
  "answered",
  "roster",
  "removed",
  "tour",
  // who joins (issue 29): a student's wait in the lobby; the host's lobby, door, replies
  "waiting",
  "lobby",
  "door",
  "approved",
  "turned_away",
  "cleared",
];

/** @type {Record<string, Handler>} */
const HANDLERS = {
  hello: onHello,
  resumed: onResumed,
  frame: onFrame,
  error: onError,
  link: onAnswer,
  presence: (socket, message) => socket.emit("onPresence", message),
  pong: (socket, message) => socket.emit("onPong", message),
  ...Object.fromEntries(
    CLASS_MESSAGES.map((type) => [type, (socket, message) => socket.emit("onClass", message)]),
  ),
  // in a class's lobby: connected, and waiting for the host to let us in
  waiting: (socket, message) => {
    socket.status("waiting");
    socket.emit("onClass", message);
  },
};

/**
 * The socket early-socket.js opened while the page's modules loaded, if it is the one
 * `url` would open (the same parameters, in any order); otherwise it is closed. Taken
 * once: a reconnect opens its own.
 * @param {string} url
 * @returns {{ws: WebSocket, release: () => {held: string[], closedWith: number | null}} | null}
 */
function adoptEarlySocket(url) {
  const page = /** @type {any} */ (window);
  const early = page.playgroundEarlySocket;
  if (!early) return null;
  delete page.playgroundEarlySocket;
  if (sameAddress(early.url, url)) return early;
  early.release();
  early.ws.close();
  return null;
}

/**
 * Whether two websocket addresses are the same: path and parameters, in any order.
 * @param {string} a
 * @param {string} b
 */
function sameAddress(a, b) {
  const [x, y] = [new URL(a), new URL(b)];
  const sorted = (/** @type {URL} */ u) => [...u.searchParams].sort().join("&");
  return x.origin === y.origin && x.pathname === y.pathname && sorted(x) === sorted(y);
}

/**
 * This tab's client token: a random string kept in sessionStorage, so a reload or a
 * reconnect is the same member (same answers, same turn at the wheel). The server only
 * ever shows a hash of it.
 */
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
    return ""; // storage refused (a locked-down embed): a fresh member each time
  }
}
