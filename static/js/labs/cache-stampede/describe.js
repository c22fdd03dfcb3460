/**
 * What a cache-stampede frame's events mean, in sentences for the live region and the
 * log. The readers' routine frames (`reads`, ten a second) say nothing unless a board was
 * evicted; a refill of a board says how many identical queries it took in each lane,
 * the four lanes of one board in one sentence.
 */

import { fmt, joinNames, num, percent, t } from "../../i18n.js";
import { duration, ms, refillText, seconds } from "./words.js";

/** @import { LabEvent } from "../../types.js" */
/** @import { CsEnded, CsRefillEvent } from "./types.js" */

/**
 * @param {LabEvent[]} events
 * @param {{names: Record<string, string>, hot: string | null, airports: string[]}} context
 * @returns {string[]}
 */
export function describeEvents(events, { names, hot, airports }) {
  const out = [];
  /** @type {Map<string, CsRefillEvent[]>} board → [event] */
  const refills = new Map();
  for (const e of events) {
    if (e.type === "refilled") {
      if (e.board !== hot && e.queries < 2) continue; // a quiet board refilled by one reader
      if (!refills.has(e.board)) refills.set(e.board, []);
      /** @type {CsRefillEvent[]} */ (refills.get(e.board)).push(/** @type {CsRefillEvent} */ (e));
      continue;
    }
    const said = SENTENCES[e.type]?.(e, names, airports);
    if (said) out.push(said);
  }
  for (const [board, list] of refills) out.push(refillSentence(board, list, names));
  return out;
}

/**
 * The refills of one board in the lanes, in one sentence.
 * @param {string} board
 * @param {CsRefillEvent[]} list
 * @param {Record<string, string>} names
 */
function refillSentence(board, list, names) {
  const plain = list.find((e) => e.lane === "plain");
  const others = list.filter((e) => e !== plain);
  const each = (/** @type {CsRefillEvent[]} */ items) => joinNames(items.map((e) => fmt(t("%(lane)s: %(what)s"), { lane: names[e.lane] ?? e.lane, what: refillText(e) })));
  if (plain && !plain.early && plain.queries > 1) {
    const head = fmt(t("%(board)s's board expired: %(n)s readers each sent the same query (%(lane)s)."), {
      board: t(board),
      n: num(plain.queries),
      lane: names.plain,
    });
    return others.length ? `${head} ${fmt(t("On the same reads: %(list)s."), { list: each(others) })}` : head;
  }
  return fmt(t("%(board)s's board was refilled: %(list)s."), { board: t(board), list: each(list) });
}

/**
 * A sentence for each kind of event (null: nothing to say), by its type.
 * @type {Record<string, (e: LabEvent, names: Record<string, string>, airports: string[]) => string | null>}
 */
const SENTENCES = {
  skipped: (e) =>
    fmt(t("Jumped %(time)s ahead: %(board)s's board expires in %(left)s."), {
      time: duration((e.to_ms - e.from_ms) * 1000),
      board: t(e.board),
      left: seconds(e.expiry_us - e.to_ms * 1000),
    }),
  reads: (e, names, airports) => {
    const evicted = Object.entries(/** @type {Record<string, CsEnded>} */ (e.lanes ?? {})).filter(([, lane]) => lane.evicted?.length);
    if (!evicted.length) return null;
    return fmt(t("Memory full: evicted %(what)s."), {
      what: joinNames(
        evicted.map(([strategy, lane]) =>
          fmt(t("%(boards)s from %(lane)s"), {
            boards: joinNames(lane.evicted.map((i) => t(airports[i] ?? String(i)))),
            lane: names[strategy] ?? strategy,
          }),
        ),
      ),
    });
  },
  strategy_set: (e, names) => fmt(t("Now watching %(lane)s: the same readers, another way to refill."), { lane: names[e.strategy] ?? e.strategy }),
  rate_set: (e) =>
    e.rate
      ? fmt(t("Readers now arrive at about %(n)s a second."), { n: num(e.rate) })
      : t("No readers arrive now."),
  ttl_set: (e) =>
    e.every_read_misses
      ? t("Lifetime 0: nothing is kept, every read misses and queries the database.")
      : fmt(t("A board now stays in the cache for %(time)s after it is set."), { time: duration(e.ttl_ms * 1000) }),
  query_time_set: (e) => fmt(t("The database now takes %(time)s to build a board."), { time: ms(e.query_ms * 1000) }),
  db_limit_set: (e) => fmt(t("The database now runs at most %(n)s queries at once; the rest wait in its queue."), { n: num(e.limit) }),
  beta_set: (e) => fmt(t("XFetch's β is now %(beta)s (it was %(before)s)."), { beta: e.beta, before: e.before }),
  flight_updated: (e, names) => {
    if (e.delete_on_write) {
      return fmt(t("A flight at %(board)s changed and its cached board was deleted: the next read misses and sees version %(v)s."), {
        board: t(e.board),
        v: num(e.version),
      });
    }
    if (!e.stale_in?.length) return fmt(t("A flight at %(board)s changed; no lane had its board cached."), { board: t(e.board) });
    return fmt(t("A flight at %(board)s changed (version %(v)s), but the cache keeps the old board in %(lanes)s until it expires: readers see it stale."), {
      board: t(e.board),
      v: num(e.version),
      lanes: joinNames(e.stale_in.map((/** @type {string} */ s) => names[s] ?? s)),
    });
  },
  memory_filled: (e) => memorySentence(fmt(t("%(n)s MB of session keys written into the cache."), { n: num(e.mb) }), e.evicted),
  memory_set: (e) => memorySentence(fmt(t("The cache now has %(n)s MB of memory."), { n: num(e.mb) }), e.evicted),
  made_hot: (e) =>
    fmt(t("%(board)s's board now takes %(share)s of the reads; the rest are spread over all boards."), {
      board: t(e.board),
      share: percent(e.share / 100, 0),
    }),
  cache_servers_set: (e) =>
    fmt(t("%(n)s cache servers: %(board)s's board lives on server %(server)s, and all its reads go there."), {
      n: num(e.count),
      board: t(e.hot_board),
      server: num(e.hot_server),
    }),
};

/**
 * @param {string} head what was done
 * @param {Record<string, string[]> | undefined} evicted the boards each lane evicted
 */
function memorySentence(head, evicted) {
  const boards = [...new Set(Object.values(evicted ?? {}).flat())];
  if (!boards.length) return head;
  return `${head} ${fmt(t("Evicted, least recently used first: %(boards)s."), { boards: joinNames(boards.map((b) => t(b))) })}`;
}

