/**
 * The websocket client of docs/protocol.md: connect, resume by sequence number after a
 * drop (exponential backoff with jitter), drop stale frames, and hand messages to callbacks.
 */

import { t } from "./i18n.js";

const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 10000;

/** A lab's websocket: `send(action, args)` out, `onHello`/`onFrame`/... callbacks in. */
export class LabSocket {
  /** `wsPath` like "/ws/labs/hash-placement/"; `seed` is used for a brand-new room. */
  constructor(wsPath, { seed = 0, callbacks = {} } = {}) {
    this.wsPath = wsPath;
    this.seed = seed;
    this.callbacks = callbacks;
    this.room = null;
    this.seq = 0;
    this.refCount = 0;
    this.attempt = 0;
    this.ws = null;
    this.retryTimer = null;
    this.stopped = false;
  }

  /** Open the connection (a new room, or a resumed one if we already had a room). */
  connect() {
    this.stopped = false;
    this.status(this.room ? "reconnecting" : "connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("message", (event) => this.receive(event.data));
    ws.addEventListener("close", () => this.closed(ws));
    ws.addEventListener("error", () => ws.close());
  }

  /** The URL to open: a new room with our seed, or a resume after our last seq. */
  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const base = `${scheme}//${location.host}${this.wsPath}`;
    if (this.room) {
      const params = new URLSearchParams({ room: this.room, since: String(this.seq) });
      return `${base}?${params}`;
    }
    return `${base}?${new URLSearchParams({ seed: String(this.seed) })}`;
  }

  /** Send an action; returns the ref ("c1", "c2", ...) the server will echo. */
  send(action, args = {}) {
    const ref = this.nextRef();
    this.write({ type: "action", ref, action, args });
    return ref;
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

  nextRef() {
    this.refCount += 1;
    return `c${this.refCount}`;
  }

  write(message) {
    if (this.ws?.readyState !== WebSocket.OPEN) {
      this.emit("onError", {
        type: "error",
        code: "not_connected",
        message: t("Not connected, so nothing was sent. Reconnecting…"),
        ref: message.ref,
      });
      return;
    }
    this.ws.send(JSON.stringify(message));
  }

  receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    const handler = HANDLERS[message?.type];
    if (handler) handler(this, message);
  }

  closed(ws) {
    if (ws !== this.ws) return;
    this.ws = null;
    if (this.stopped) return;
    this.status("reconnecting");
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.attempt);
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** A gap in sequence numbers: drop this socket and resume from the last seq we saw. */
  resync() {
    this.ws?.close();
  }

  status(state) {
    this.emit("onStatus", state);
  }

  emit(name, payload) {
    const callback = this.callbacks[name];
    if (typeof callback === "function") callback(payload);
  }
}

function onHello(socket, message) {
  socket.room = message.room;
  socket.seq = message.seq ?? 0;
  socket.attempt = 0;
  socket.status("open");
  socket.emit("onHello", message);
}

function onResumed(socket, message) {
  socket.attempt = 0;
  socket.status("open");
  socket.emit("onResumed", message);
}

function onFrame(socket, message) {
  if (typeof message.seq !== "number" || message.seq <= socket.seq) return;
  if (message.seq > socket.seq + 1) {
    socket.resync();
    return;
  }
  socket.seq = message.seq;
  socket.emit("onFrame", message);
}

const HANDLERS = {
  hello: onHello,
  resumed: onResumed,
  frame: onFrame,
  error: (socket, message) => socket.emit("onError", message),
  presence: (socket, message) => socket.emit("onPresence", message),
  pong: (socket, message) => socket.emit("onPong", message),
};
