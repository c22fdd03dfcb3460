/** What a frame's events mean, in sentences for the live region and the event log. */

import { fmt, num, pageLanguage, percent, t, tn } from "../../i18n.js";
import { SCHEMES, schemeName } from "./schemes.js";

/** @import { LabEvent } from "../../types.js" */
/** @import { LookupPaths, Scheme } from "./types.js" */

/**
 * The key kinds in words, plural by count.
 * @param {string} kind
 * @param {number} count
 */
export function kindWords(kind, count) {
  /** @type {Record<string, string>} */
  const words = {
    registration: tn("aircraft registration", "aircraft registrations", count),
    passenger: tn("passenger id", "passenger ids", count),
    booking: tn("booking reference", "booking references", count),
  };
  return words[kind] ?? tn("key", "keys", count);
}

/** @type {Record<string, (e: LabEvent) => string>} by event type */
const SENTENCES = {
  shard_added: (e) => fmt(t("Shard %(shard)s added."), { shard: e.shard }),
  shard_removed: (e) =>
    fmt(t("Shard %(shard)s removed; its keys went to the others."), { shard: e.shard }),
  shards_added: (e) => fmt(t("Shards %(shards)s added."), { shards: listOf(e.shards) }),
  shards_removed: (e) =>
    fmt(t("Shards %(shards)s removed; their keys went to the others."), {
      shards: listOf(e.shards),
    }),
  moves: (e) =>
    fmt(t("%(scheme)s moved %(moved)s of %(total)s keys (%(percent)s)."), {
      scheme: capitalise(schemeName(e.scheme)),
      moved: num(e.moved),
      total: num(e.total),
      percent: percent(e.total ? e.moved / e.total : 0),
    }),
  keys_loaded: (e) =>
    fmt(t("Loaded %(count)s %(kind)s; the drawing shows a sample of them."), {
      count: num(e.count),
      kind: kindWords(e.kind, e.count),
    }),
  vnodes_changed: (e) =>
    fmt(
      tn(
        "Each shard now has %(n)s token on the ring.",
        "Each shard now has %(n)s tokens on the ring.",
        e.vnodes,
      ),
      {
        n: num(e.vnodes),
      },
    ),
  partitions_changed: (e) =>
    e.hash === "crc16"
      ? t("Fixed partitions now use Redis Cluster's 16,384 slots, chosen by CRC16 of the key.")
      : fmt(t("Fixed partitions: now %(count)s partitions of the MurmurHash3 space."), {
          count: num(e.count),
        }),
  lookup: describeLookup,
  hot_key: (e) =>
    fmt(
      t(
        "%(key)s is now hot: %(share)s of all requests ask for it. It stays on one shard per scheme: %(where)s.",
      ),
      {
        key: e.key,
        share: percent(e.share_percent / 100, 0),
        where: whereList(e.where),
      },
    ),
  hot_key_cleared: () => t("The hot key cooled down; requests are spread evenly again."),
};

/**
 * Sentences for a frame's events, in order; unknown event types are skipped.
 * @param {LabEvent[]} [events]
 * @returns {string[]}
 */
export function describeEvents(events = []) {
  return /** @type {string[]} */ (
    groupShardEvents(events)
      .map((event) => SENTENCES[event.type]?.(event))
      .filter(Boolean)
  );
}

/**
 * Several shards added (or removed) by one action read as one sentence.
 * @param {LabEvent[]} events
 */
function groupShardEvents(events) {
  /** @type {LabEvent[]} */
  const grouped = [];
  for (const event of events) {
    const last = grouped[grouped.length - 1];
    const kind = /** @type {Record<string, string>} */ ({ shard_added: "shards_added", shard_removed: "shards_removed" })[event.type];
    if (kind && last && (last.type === event.type || last.type === kind)) {
      grouped[grouped.length - 1] = {
        type: kind,
        shards: [...(last.shards ?? [last.shard]), event.shard],
      };
    } else {
      grouped.push(event);
    }
  }
  return grouped;
}

/** @param {string[]} items */
function listOf(items) {
  return new Intl.ListFormat(pageLanguage(), { style: "long", type: "conjunction" }).format(items);
}

/** @param {LabEvent} e a lookup */
function describeLookup(e) {
  const intro = fmt(t("%(key)s hashes to %(hash)s (Redis slot %(slot)s)."), {
    key: e.key,
    hash: num(e.hash),
    slot: num(e.slot),
  });
  return `${intro} ${fmt(t("It lives on %(where)s."), { where: whereList(shardsOf(e.paths)) })}`;
}

/**
 * Where a lookup's key lives, by scheme.
 * @param {LookupPaths} paths
 * @returns {Partial<Record<Scheme, string>>}
 */
function shardsOf(paths) {
  return Object.fromEntries(SCHEMES.filter((s) => paths?.[s]).map((s) => [s, paths[s].shard]));
}

/**
 * "B under hash mod N, C under fixed partitions, ..."
 * @param {Partial<Record<Scheme, string>>} [where]
 */
function whereList(where = {}) {
  return SCHEMES.filter((s) => where[s])
    .map((s) => fmt(t("%(shard)s under %(scheme)s"), { shard: where[s], scheme: schemeName(s) }))
    .join(t(", "));
}

/** @param {string} text */
function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
