/**
 * What a frame's events mean, in sentences for the live region and the event log. Routine
 * deliveries say nothing: a playing lab sends ten frames a second.
 */

import { fmt, num, percent, t } from "../../i18n.js";
import { failureText, listOf } from "./words.js";

/** @import { LabEvent } from "../../types.js" */
/** @import { OpCompleted, QuorumEvents } from "./types.js" */
/** @typedef {(e: LabEvent, copies: number) => string | null} Say */

/** @param {OpCompleted} e */
function completed(e) {
  if (e.kind === "write") {
    const said = fmt(t("Write #%(op)s of %(value)s seats acknowledged by %(set)s."), {
      op: num(e.op),
      value: num(e.value),
      set: listOf(e.confirmed),
    });
    const standIns = Object.entries(e.stand_ins ?? {});
    if (!standIns.length) return said;
    const pairs = standIns.map(([owner, node]) => fmt(t("%(node)s for %(owner)s"), { node, owner }));
    return `${said} ${fmt(t("Stand-ins, holding it as hints: %(pairs)s."), { pairs: listOf(pairs) })}`;
  }
  if (e.stale) {
    return fmt(t("Read #%(op)s returned %(value)s: STALE, the latest completed write was %(expected)s."), {
      op: num(e.op),
      value: num(e.value),
      expected: num(/** @type {number} */ (e.expected)), // a stale read's is known
    });
  }
  return fmt(t("Read #%(op)s returned %(value)s from %(set)s."), {
    op: num(e.op),
    value: num(e.value),
    set: listOf(e.confirmed),
  });
}

/**
 * A sentence for each kind of event (null: nothing worth saying); `copies`: N.
 * @type {{[K in keyof QuorumEvents]: (e: QuorumEvents[K], copies: number) => string | null}}
 */
const SENTENCES = {
  op_invoked: (e) =>
    e.kind === "write"
      ? fmt(t("Write #%(op)s goes to %(node)s, which sends it to every copy and waits for %(needed)s to confirm (W = %(level)s)."), {
          op: num(e.op),
          node: e.coordinator,
          needed: num(e.needed),
          level: e.level,
        })
      : fmt(t("Read #%(op)s goes to %(node)s, which asks every copy and waits for %(needed)s replies (R = %(level)s)."), {
          op: num(e.op),
          node: e.coordinator,
          needed: num(e.needed),
          level: e.level,
        }),
  op_completed: completed,
  op_failed: (e, copies) =>
    fmt(t("%(kind)s #%(op)s failed: %(why)s"), {
      kind: e.kind === "write" ? t("Write") : t("Read"),
      op: num(e.op),
      why: failureText(e, copies),
    }),
  copy_written: (e) =>
    e.cause === "repair" && e.kept
      ? fmt(t("Read repair brought %(node)s's copy up to %(value)s."), {
          node: e.node,
          value: num(e.value),
        })
      : null,
  hint_stored: (e) =>
    e.stand_in
      ? fmt(t("%(holder)s stands in for unreachable %(target)s: it keeps write %(value)s as a hint, and its ack counts toward W."), {
          holder: e.holder,
          value: num(e.value),
          target: e.target,
        })
      : fmt(t("%(holder)s keeps a hint: write %(value)s for %(target)s, which did not confirm."), {
      holder: e.holder,
      value: num(e.value),
      target: e.target,
    }),
  hint_delivered: (e) =>
    fmt(t("Hinted handoff: %(target)s received the write it missed from %(holder)s."), {
      target: e.target,
      holder: e.holder,
    }),
  link_cut: (e) => fmt(t("Link %(link)s cut: messages on it are lost."), { link: e.link }),
  link_healed: (e) => fmt(t("Link %(link)s healed."), { link: e.link }),
  node_stopped: (e) => fmt(t("Node %(node)s stopped."), { node: e.node }),
  node_restarted: (e) => fmt(t("Node %(node)s restarted with the copy it had."), { node: e.node }),
  clock_skewed: (e) =>
    fmt(t("Node %(node)s's clock is now %(ms)s ms off."), {
      node: e.node,
      ms: `${e.skew_ms > 0 ? "+" : ""}${num(e.skew_ms)}`,
    }),
  levels_set: (e) =>
    fmt(t("W is now %(w)s and R %(r)s of %(n)s copies."), {
      w: num(e.w_needed),
      r: num(e.r_needed),
      n: num(e.copies),
    }),
  copies_set: (e) => fmt(t("A fresh cluster of %(n)s copies."), { n: num(e.copies) }),
  nodes_set: (e) =>
    fmt(t("A fresh ring of %(m)s nodes: the row's owners are %(owners)s."), {
      m: num(e.nodes),
      owners: listOf(e.owners),
    }),
  sloppy_set: (e) =>
    e.on
      ? t("Sloppy quorum on: the next node on the ring takes a write for an unreachable owner.")
      : t("Sloppy quorum off: only the owners count toward W."),
  read_repair_set: (e) => (e.on ? t("Read repair on.") : t("Read repair off.")),
  hinted_handoff_set: (e) => (e.on ? t("Hinted handoff on.") : t("Hinted handoff off.")),
  trials_run: (e) =>
    fmt(t("%(trials)s trials: %(stale)s stale reads (%(fraction)s)."), {
      trials: num(e.trials),
      stale: num(e.stale),
      fraction: percent(e.stale_fraction),
    }),
  tie_broken: (e) =>
    e.later_lost
      ? fmt(t("Timestamp tie at t=%(ts)s ms: %(kby)s's write #%(kept)s beats the later write #%(lost)s by %(lby)s (the larger writer id wins); #%(lost)s is discarded."), {
          ts: num(e.timestamp_ms),
          kby: e.kept.writer,
          kept: num(e.kept.write),
          lost: num(e.discarded.write),
          lby: e.discarded.writer,
        })
      : fmt(t("Timestamp tie at t=%(ts)s ms: the later write #%(kept)s by %(kby)s wins it (the larger writer id)."), {
          ts: num(e.timestamp_ms),
          kept: num(e.kept.write),
          kby: e.kept.writer,
        }),
  skew_ladder_run: (e) => {
    const last = e.rungs[e.rungs.length - 1];
    return fmt(t("Lost writes against %(node)s's clock skew: %(first)s at %(from)s ms, %(last)s at %(to)s ms."), {
      node: e.node,
      first: num(e.rungs[0].lost_writes),
      from: num(e.rungs[0].skew_ms),
      last: num(last.lost_writes),
      to: num(last.skew_ms),
    });
  },
  trial_replayed: (e) =>
    fmt(t("Trial #%(index)s rebuilt: press Play to watch it."), { index: num(e.index) }),
};

/**
 * Sentences for `events` in a cluster of `copies`; events needing no words are skipped.
 * @param {LabEvent[]} events
 * @param {number} copies
 * @returns {string[]}
 */
export function describeEvents(events, copies) {
  const out = [];
  for (const event of events) {
    // an event's type picks its sentence, which takes that type's event
    const sentence = /** @type {Record<string, Say | undefined>} */ (
      /** @type {unknown} */ (SENTENCES)
    )[event.type]?.(event, copies);
    if (sentence) out.push(sentence);
  }
  return out;
}
