/**
 * The text panels around the drawing: the levels and what they promise, the overlap of
 * the last write and read, the stale-read counter with its replay button, and the
 * lab-wide numbers in the metrics slot.
 */

import { fmt, joinNames, num, percent, t, tn } from "../../i18n.js";
import { levelText, listOf } from "./words.js";

/** @import { Snapshot } from "../../types.js" */
/** @import { Overlap, QuorumMetrics, QuorumSnapshot, Tie, Trials } from "./types.js" */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} cls
 * @param {string | null} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function element(tag, cls, text = null) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== null) el.textContent = text;
  return el;
}

/**
 * @param {HTMLElement} el
 * @param {string} text
 */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * @param {HTMLElement} el
 * @param {string} key
 * @param {string} value
 */
function setData(el, key, value) {
  if (el.dataset[key] !== value) el.dataset[key] = value;
}

/**
 * Levels, switches and the overlap sentence, above the drawing.
 * @param {HTMLElement} parent
 */
export function createSummary(parent) {
  const box = element("div", "q-summary");
  // on a phone the box keeps three lines and scrolls (stage.css): reachable by keyboard
  box.tabIndex = 0;
  box.setAttribute("aria-label", t("The levels, the rules and the last read"));
  const levels = element("p", "q-levels");
  const promise = element("p", "q-promise");
  const overlap = element("p", "q-overlap");
  const replay = element("p", "q-replay");
  replay.setAttribute("role", "status");
  // a write lost to a timestamp tie, in one sentence where the drawing is (the stage
  // keeps its height for the drawing); why, in full, in the side panel's tie note
  const tie = element("p", "q-tie");
  tie.hidden = true;
  box.append(levels, promise, overlap, tie, replay);
  parent.append(box);
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {QuorumSnapshot} */ (state);
      const { levels: lv, copies } = snapshot;
      setText(
        levels,
        fmt(t("N = %(n)s copies · W = %(w)s · R = %(r)s · read repair %(repair)s · hinted handoff %(hints)s"), {
          n: num(copies),
          w: levelText(lv.w, lv.w_needed, copies),
          r: levelText(lv.r, lv.r_needed, copies),
          repair: snapshot.read_repair ? t("on") : t("off"),
          hints: snapshot.hinted_handoff ? t("on") : t("off"),
        }) + ringText(snapshot),
      );
      const sum = lv.w_needed + lv.r_needed;
      setData(promise, "guaranteed", String(lv.overlap_guaranteed));
      setText(
        promise,
        lv.overlap_guaranteed
          ? fmt(t("✓ W + R = %(sum)s > N = %(n)s: every read set shares at least one copy with the last write set."), { sum: num(sum), n: num(copies) })
          : fmt(t("⚠ W + R = %(sum)s ≤ N = %(n)s: a read set can miss every copy the last write reached."), { sum: num(sum), n: num(copies) }),
      );
      setText(overlap, overlapText(snapshot.overlap));
      setData(overlap, "shared", (snapshot.overlap?.shared ?? []).join(","));
      tie.hidden = !snapshot.tie;
      if (snapshot.tie) {
        setText(tie, tieHeadline(snapshot.tie));
        setData(tie, "lost", String(snapshot.tie.discarded.write));
      }
      replay.hidden = !snapshot.replay;
      if (snapshot.replay) {
        setText(
          replay,
          fmt(t("Replaying trial #%(index)s of the last count: press Play (or Step) to watch it."), {
            index: num(snapshot.replay.index),
          }),
        );
      }
    },
  };
}

/**
 * The ring, when it has more nodes than copies or a sloppy quorum: "" otherwise.
 * @param {QuorumSnapshot} snapshot
 */
function ringText(snapshot) {
  const ring = snapshot.ring;
  if (!ring || (ring.nodes === ring.owners.length && !ring.sloppy)) return "";
  return fmt(t(" · M = %(m)s nodes, owners %(owners)s · sloppy quorum %(sloppy)s"), {
    m: num(ring.nodes),
    owners: ring.owners.join(", "),
    sloppy: ring.sloppy ? t("on") : t("off"),
  });
}

/**
 * A tie between two writes, in one sentence: which won, which was discarded.
 * @param {Tie} tie
 */
function tieHeadline(tie) {
  const values = tieValues(tie);
  return tie.later_lost
    ? fmt(t("⚖ Same timestamp, t=%(ts)s ms: write #%(kept)s by %(kby)s beat the later write #%(lost)s by %(lby)s, which was discarded. Why: see “Timestamp tie”."), values)
    : fmt(t("⚖ Same timestamp, t=%(ts)s ms: the later write #%(kept)s by %(kby)s won the tie over #%(lost)s by %(lby)s. Why: see “Timestamp tie”."), values);
}

/** @param {Tie} tie */
function tieValues(tie) {
  const { kept, discarded } = tie;
  return {
    ts: num(tie.timestamp_ms),
    kept: num(kept.write),
    kvalue: num(kept.value),
    kby: kept.writer,
    lost: num(discarded.write),
    lvalue: num(discarded.value),
    lby: discarded.writer,
  };
}

/**
 * A tie between two writes stamped in the same millisecond, in words: which two, what
 * broke the tie (the writer's id, here; Cassandra compares the values) and what was lost.
 * @param {Tie} tie
 */
function tieText(tie) {
  const values = tieValues(tie);
  const same = fmt(
    t("Same timestamp: write #%(kept)s (%(kvalue)s seats, by %(kby)s) and write #%(lost)s (%(lvalue)s seats, by %(lby)s) were both stamped t=%(ts)s ms, so the timestamps cannot say which came later. The tie goes to the larger writer id, %(kby)s."),
    values,
  );
  const lost = tie.later_lost
    ? fmt(t("The later write #%(lost)s by %(lby)s was discarded: every copy that gets both keeps %(kvalue)s, even if #%(lost)s was acknowledged."), values)
    : fmt(t("This time the later write, #%(kept)s, won; the earlier #%(lost)s was replaced."), values);
  const cassandra = t("Cassandra breaks such ties just as blindly: it keeps the larger value.");
  return `${same} ${lost} ${cassandra}`;
}

/** @param {Overlap | null} overlap */
function overlapText(overlap) {
  if (!overlap) return t("After a read completes, the copies it shares with the last write are marked ★ shared.");
  const readPart = fmt(t("Read #%(read)s was answered by %(set)s."), {
    read: num(overlap.read),
    set: listOf(overlap.read_set),
  });
  if (overlap.write === null) {
    return `${readPart} ${t("No write had completed before it: every copy held the first value.")}`;
  }
  const writePart = fmt(t("Write #%(write)s was confirmed by %(set)s."), {
    write: num(overlap.write),
    set: listOf(overlap.write_set),
  });
  const shared = overlap.shared.length
    ? fmt(t("Shared copy: %(set)s."), { set: listOf(overlap.shared) })
    : t("No shared copy: the read could not see that write.");
  return `${writePart} ${readPart} ${shared}`;
}

/**
 * The last timestamp tie between two writes, explained in full; hidden until one.
 * @param {HTMLElement} parent
 */
export function createTieNote(parent) {
  const section = element("section", "q-tie-note");
  section.setAttribute("aria-labelledby", "q-tie-title");
  section.hidden = true;
  const title = element("h2", null, t("Timestamp tie"));
  title.id = "q-tie-title";
  const text = element("p", null);
  section.append(title, text);
  parent.append(section);
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {QuorumSnapshot} */ (state);
      section.hidden = !snapshot.tie;
      if (snapshot.tie) setText(text, tieText(snapshot.tie));
    },
  };
}

/** The stale-read counter, with a button that replays the first stale trial. */
/**
 * The stale-read counter. In a read-only view (an embed that only shows) it reports the
 * counts and offers no buttons: nothing there could act.
 * @param {HTMLElement} parent
 * @param {(action: string, args: object) => unknown} send
 * @param {{readOnly?: boolean}} [options]
 */
export function createTrials(parent, send, { readOnly = false } = {}) {
  const section = element("section", "q-trials");
  section.setAttribute("aria-labelledby", "q-trials-title");
  const title = element("h2", null, t("Stale-read counter"));
  title.id = "q-trials-title";
  const text = element("p", "q-trials-text");
  text.setAttribute("aria-live", "polite");
  const buttons = element("div", "q-trials-buttons");
  const run = element("button", "button", t("Count 1,000 trials"));
  run.type = "button";
  run.dataset.q = "run-trials";
  run.dataset.spot = "count-trials"; // a tour step points here (tour/spotlight.js)
  run.addEventListener("click", () => send("run_trials", { count: 1000 }));
  const replay = element("button", "button", "");
  replay.type = "button";
  replay.dataset.q = "replay-first-stale";
  replay.hidden = true;
  buttons.append(run, replay);
  buttons.hidden = readOnly;
  section.append(title, text, buttons);
  parent.append(section);
  /** @type {number | null} */
  let firstStale = null;
  replay.addEventListener("click", () => {
    if (firstStale !== null) send("replay_trial", { index: firstStale });
  });
  return {
    /** @param {Snapshot} state the lab's snapshot */
    update(state) {
      const snapshot = /** @type {QuorumSnapshot} */ (state);
      const trials = snapshot.trials;
      if (!trials) {
        setText(text, t("Runs many seeded trials of this configuration (a write, then a read a moment after it finishes) and counts the stale reads."));
        replay.hidden = true;
        firstStale = null;
        return;
      }
      setData(section, "stale", String(trials.stale));
      setText(text, trialsText(trials));
      firstStale = trials.first_stale;
      replay.hidden = firstStale === null;
      if (firstStale !== null) {
        setText(replay, fmt(t("Replay trial #%(index)s, the first stale one"), { index: num(firstStale) }));
      }
    },
  };
}

/** @param {Trials} trials */
function trialsText(trials) {
  const c = trials.config;
  const faults = [];
  if (c.cut.length) faults.push(fmt(t("links cut: %(links)s"), { links: joinNames(c.cut) }));
  if (c.stopped.length) faults.push(fmt(t("stopped: %(nodes)s"), { nodes: joinNames(c.stopped) }));
  if (c.skews.length) {
    faults.push(
      fmt(t("skewed clocks: %(skews)s"), {
        skews: joinNames(c.skews.map(([node, ms]) => `${node} ${ms > 0 ? "+" : ""}${num(ms)} ms`)),
      }),
    );
  }
  const setup = fmt(t("%(trials)s trials with N=%(n)s, W=%(w)s, R=%(r)s%(faults)s:"), {
    trials: num(trials.trials),
    n: num(c.copies),
    w: num(c.w),
    r: num(c.r),
    faults: faults.length ? `, ${faults.join("; ")}` : "",
  });
  const result = fmt(
    t("%(stale)s stale reads out of %(reads)s that returned (%(fraction)s); %(fw)s writes and %(fr)s reads failed."),
    {
      stale: num(trials.stale),
      reads: num(trials.reads_ok),
      fraction: percent(trials.stale_fraction),
      fw: num(trials.failed_writes),
      fr: num(trials.failed_reads),
    },
  );
  if (!trials.lost_writes) return `${setup} ${result}`;
  const lost = fmt(
    tn(
      "%(n)s acknowledged write was lost: its timestamp was older than the value it replaced, so no copy kept it.",
      "%(n)s acknowledged writes were lost: their timestamps were older than the value they replaced, so no copy kept them.",
      trials.lost_writes,
    ),
    { n: num(trials.lost_writes) },
  );
  return `${setup} ${result} ${lost}`;
}

/**
 * The lab-wide numbers in the metrics slot.
 * @param {HTMLElement | null} parent
 */
export function createMetrics(parent) {
  if (!parent) return { update() {}, destroy() {} };
  const list = element("dl", "q-metrics");
  parent.replaceChildren(element("h2", "summary-title", t("Numbers")), list);
  let shown = "";
  return {
    /** @param {Record<string, unknown>} values the lab's metrics */
    update(values) {
      const metrics = /** @type {QuorumMetrics} */ (values);
      const trials = metrics.trials;
      const rows = [
        ["reads", t("Reads"), num(metrics.reads)],
        ["stale_reads", t("Stale reads"), num(metrics.stale_reads)],
        ["stale_fraction", t("Stale fraction of reads that returned"), percent(metrics.stale_fraction)],
        ["failed_writes", t("Failed writes"), num(metrics.failed_writes)],
        ["failed_reads", t("Failed reads"), num(metrics.failed_reads)],
        ["repairs", t("Read repairs"), num(metrics.repairs)],
        ["hints", t("Hints kept / delivered"), `${num(metrics.hints_stored)} / ${num(metrics.hints_delivered)}`],
        ["messages", t("Messages sent / lost"), `${num(metrics.messages_sent)} / ${num(metrics.messages_lost)}`],
      ];
      if (trials) {
        rows.push(
          ["trials", t("Trials counted"), num(trials.trials)],
          ["trials_stale", t("Stale in trials"), `${num(trials.stale)} (${percent(trials.stale_fraction)})`],
          ["first_stale", t("First stale trial"), trials.first_stale === null ? t("none") : `#${num(trials.first_stale)}`],
        );
      }
      // written again only when a number changed (a playing lab draws ten frames a second)
      const key = rows.flat().join("\n");
      if (key === shown) return;
      shown = key;
      list.replaceChildren(
        ...rows.flatMap(([key, label, value]) => {
          const dt = element("dt", null, label);
          const dd = element("dd", null, value);
          dd.dataset.metric = key;
          return [dt, dd];
        }),
      );
    },
    destroy() {
      parent.replaceChildren();
    },
  };
}
