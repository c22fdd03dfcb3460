/**
 * The time the stage is drawn at. Reads end long before anyone could see them (a hit
 * takes half a millisecond), and a frame only tells what ended or started in its 100 ms,
 * so the stage is drawn a little in the past: `LEAD_MS` of real time behind the
 * server's clock while the lab plays. That is room for every dot's flight (a reader's
 * dot takes HOP_MS of real time from one place to the next, whatever the speed) to be
 * drawn from its start, while the time a query spends in the database stays virtual.
 *
 * The drawn time runs on at the lab's speed between frames, pulled gently towards
 * "server time − lead", never backwards, and never later than the server's time less
 * two flights. Paused, idle (nothing scheduled) or without frames for a while, it
 * catches up with the server's time and stops there. A jump (Jump to just before expiry)
 * is jumped. With reduced motion it is the server's time, exactly.
 *
 * Times are virtual microseconds, as in the snapshot.
 */

export const HOP_MS = 260;
export const LEAD_MS = 2 * HOP_MS + 220;
const STALE_MS = 450; // no frame for this long while playing: catch up
const PULL = 0.06; // share of the gap to "server − lead" closed each animation frame

/** @param {{reduced: boolean}} options */
export function createStageClock({ reduced }) {
  let server = 0; // µs: the last frame's virtual now
  let wallAt = 0; // performance.now() when it came
  let speed = 50; // virtual ms per real second
  let playing = false;
  let idle = true; // nothing scheduled: the server's time stands still
  let drawn = -1; // µs: the time drawn last (−1: not yet)
  let paintedAt = 0;

  /** µs of virtual time in `realMs` of real time at the lab's speed. */
  const virtual = (/** @type {number} */ realMs) => realMs * speed;

  return {
    /** @param {{now_ms: number, playing: boolean, speed: number, next_due_ms?: number | null}} playback */
    sync(playback) {
      server = playback.now_ms * 1000;
      wallAt = performance.now();
      speed = Number(playback.speed) || 50;
      playing = Boolean(playback.playing);
      idle = playback.next_due_ms === null || playback.next_due_ms === undefined;
      // the first time: start one lead behind, so that the drawing moves at once
      if (drawn < 0) drawn = playing && !idle && !reduced ? Math.max(0, server - virtual(LEAD_MS)) : server;
      if (reduced) drawn = server;
    },
    /** The time to draw at, moved on to `now` (performance.now()). */
    tick(now = performance.now()) {
      const elapsed = Math.max(0, Math.min(250, now - (paintedAt || now)));
      paintedAt = now;
      if (reduced) return (drawn = server);
      const running = playing && !idle && now - wallAt < STALE_MS;
      const lead = running ? virtual(LEAD_MS) : 0;
      const serverNow = server + (running ? virtual(Math.min(now - wallAt, 150)) : 0);
      const goal = serverNow - lead;
      if (drawn < goal - Math.max(2 * lead, 100_000)) {
        drawn = goal; // far behind (a jump): jump too
        return drawn;
      }
      let next = drawn + virtual(elapsed) * (running ? 1 : 2);
      if (running) next += (goal - next) * PULL;
      const cap = running ? server - virtual(2 * HOP_MS) : server;
      drawn = Math.max(drawn, Math.min(next, cap, running ? Infinity : server));
      return drawn;
    },
    /** Virtual µs a flight of HOP_MS takes now (0 with reduced motion). */
    get hop() {
      return reduced ? 0 : virtual(HOP_MS);
    },
    get now() {
      return drawn;
    },
    get server() {
      return server;
    },
    /** Whether the drawing still changes without a new frame. */
    get moving() {
      return !reduced && drawn < server;
    },
    get speed() {
      return speed;
    },
  };
}
