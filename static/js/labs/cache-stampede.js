/**
 * Renderer of the cache-stampede lab: readers read the departures board through a cache;
 * a miss queries the database. One arrival trace runs through four caches side by side,
 * one per refill strategy (plain, refill lock, XFetch, XFetch with the lock). The lane
 * the visitor watches is drawn large (stage.js: readers, the cache with the board's
 * countdown and the lock, the database's slots and queue, every reader a dot); the four
 * lanes are strips under it (strips.js), pressed to watch one; the side panel has the
 * charts over the last ten seconds and XFetch's curve (side.js).
 *
 * The stage is drawn a moment behind the server's clock (clock.js), so that every dot
 * can be seen flying although a hit takes half a millisecond; the dots are rebuilt from
 * the frames by traffic.js. Implements the renderer interface of docs/frontend.md.
 */

import { fmt, num, t } from "../i18n.js";
import { createLabRenderer } from "../lab-view.js";
import { FADE_MS, reducedMotion } from "../motion.js";
import { LEAD_MS, createStageClock } from "./cache-stampede/clock.js";
import { describeEvents } from "./cache-stampede/describe.js";
import { createSide } from "./cache-stampede/side.js";
import { createStage, legendMark } from "./cache-stampede/stage.js";
import { createStrips } from "./cache-stampede/strips.js";
import { createLaneTraffic } from "./cache-stampede/traffic.js";
import { STRATEGIES, dotKinds, duration, ms, queries, refillText, seconds, strategyNames } from "./cache-stampede/words.js";

/** @import { LabEvent, Renderer } from "../types.js" */
/** @import { CsEnded, CsMetrics, CsRefillEvent, CsSnapshot } from "./cache-stampede/types.js" */
/** @typedef {ReturnType<ReturnType<typeof createLaneTraffic>["at"]>} LaneState a lane at a time */

const SIDE_EVERY_MS = 1000; // the side panel's charts are drawn again at most this often
const KEEP_REFILLS = 24;

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  return createLabRenderer({
    className: "cs-lab",
    place: "replace",
    // the side panel's charts carry the numbers (side.js)
    drawsItself: true,
    mount(lab, hello) {
      /** @type {ReturnType<typeof createStage> | null} */
      let stage = null;
      /** @type {ReturnType<typeof createStrips> | null} */
      let strips = null;
      /** @type {ReturnType<typeof createSide> | null} */
      let side = null;
      /** @type {{name: HTMLElement, settings: HTMLElement, resting: HTMLElement} | null} the line over the stage */
      let status = null;
      /** @type {ReturnType<typeof createStageClock> | null} */
      let clock = null;
      /** @type {Record<string, string>} */
      let names = {};
      /** @type {Map<string, ReturnType<typeof createLaneTraffic>>} */
      let lanes = new Map();
      /** @type {Map<string, CsRefillEvent[]>} each lane's last refills of the hot board */
      let refills = new Map();
      /** @type {{t: number, snapshot: CsSnapshot}[]} the frames the stage may still be drawn at */
      let buffer = [];
      /** @type {CsSnapshot | null} */
      let snapshot = null;
      /** @type {CsMetrics | null} */
      let metrics = null;
      /** @type {number | null} */
      let raf = null;
      let orbit = 0;
      let lastTick = 0;
      let sideAt = -Infinity;
      /** @type {ReturnType<typeof setTimeout> | null} */
      let sideTimer = null;
      const reduced = reducedMotion();

      /**
       * The snapshot in force at `time` (the first one before the buffer begins).
       * @param {number} time
       */
      function snapshotAt(time) {
        let found = buffer[0];
        for (const entry of buffer) {
          if (entry.t <= time) found = entry;
          else break;
        }
        return found;
      }

      /**
       * The hot board's entry in `lane` at `time`, a refill that landed by then included.
       * @param {string} strategy
       * @param {number} time
       */
      function entryAt(strategy, time) {
        const drawn = /** @type {CsSnapshot} */ (snapshot); // paint() draws one
        const hot = String(drawn.airports.indexOf(drawn.hot.board));
        const index = buffer.indexOf(snapshotAt(time));
        const laneOf = (/** @type {CsSnapshot} */ snap) => snap.lanes.find((l) => l.strategy === strategy);
        let entry = laneOf(buffer[index].snapshot)?.boards?.[hot] ?? null;
        const next = buffer[index + 1];
        const coming = next ? laneOf(next.snapshot)?.boards?.[hot] : null;
        if (coming && coming.computed_us <= time && (!entry || coming.computed_us > entry.computed_us)) entry = coming;
        return { entry, lane: laneOf(buffer[index].snapshot), at: buffer[index].snapshot };
      }

      /**
       * The last refill of the hot board in `strategy`'s lane by `time`.
       * @param {string} strategy
       * @param {number} time
       */
      function refillAt(strategy, time) {
        const list = refills.get(strategy) ?? [];
        for (let i = list.length - 1; i >= 0; i -= 1) if (list[i].at_us <= time) return list[i];
        return null;
      }

      /** Draw the stage and the strips at the clock's time. */
      function paint(now = performance.now()) {
        if (!snapshot || !clock || !stage || !strips) return; // the stage and strips: with the clock
        const time = clock.tick(now);
        if (clock.moving && !reduced) orbit += Math.min(100, now - lastTick) / 480;
        lastTick = now;
        const hop = clock.hop;
        // frames the drawing has passed are not needed any more (keep the one in force)
        while (buffer.length > 2 && buffer[1].t <= time) buffer.shift();
        const watched = snapshot.strategy;
        const hotIndex = snapshot.airports.indexOf(snapshot.hot.board);
        const { entry, lane, at } = entryAt(watched, time);
        const dbVersion = Math.max(
          0,
          ...(at.updates ?? []).filter((u) => u.board === /** @type {CsSnapshot} */ (snapshot).hot.board && u.at_us <= time).map((u) => u.version),
        );
        const delta = entry?.delta_us ?? snapshot.query_ms * 1000;
        const beta = Number(snapshot.beta) || 1;
        const left = entry ? entry.expiry_us - time : 0;
        /** @type {Record<string, LaneState>} */
        const states = {};
        for (const strategy of STRATEGIES) {
          const traffic = lanes.get(strategy);
          if (!traffic) continue;
          states[strategy] = traffic.at(time, hop);
        }
        stage.paint({
          snapshot,
          time,
          hop,
          reduced,
          fadeUs: FADE_MS * clock.speed,
          lane: states[watched],
          entry,
          stale: entry && dbVersion > entry.version ? dbVersion : 0,
          lockHeld: Boolean(lane?.locks?.some(([board]) => board === hotIndex)),
          refill: refillAt(watched, time),
          chance: entry && left > 0 ? Math.exp(-left / (delta * beta)) : null,
          orbit,
          boardName: (board) => {
            const code = /** @type {CsSnapshot} */ (snapshot).airports[board]; // drawn now
            return code ? t(code) : "";
          },
        });
        strips.update(
          watched,
          snapshot.db_limit,
          Object.fromEntries(
            STRATEGIES.map((s) => [s, { running: states[s]?.running.length ?? 0, queued: states[s]?.queued.length ?? 0, refill: refillAt(s, time) }]),
          ),
        );
      }

      /** @param {number} now */
      function loop(now) {
        raf = null;
        paint(now);
        if (clock?.moving) raf = requestAnimationFrame(loop);
      }

      function kick() {
        if (raf === null) raf = requestAnimationFrame(loop);
      }

      /**
       * Take a snapshot (and what the frame said) into the lanes, the buffer and the side.
       * @param {CsSnapshot} next
       * @param {CsMetrics} nextMetrics
       * @param {LabEvent[]} events
       */
      function ingest(next, nextMetrics, events, { fresh = false } = {}) {
        if (!clock || !stage) return; // mounted
        snapshot = next;
        metrics = nextMetrics;
        clock.sync(next.playback);
        const t0 = next.now_us;
        /** @type {Record<string, CsEnded>} */
        const ended = events.find((e) => e.type === "reads")?.lanes ?? {};
        for (const view of next.lanes) {
          let traffic = lanes.get(view.strategy);
          if (!traffic) {
            traffic = createLaneTraffic(view.strategy);
            lanes.set(view.strategy, traffic);
          }
          const totals = nextMetrics.lanes?.[view.strategy] ?? { waited: 0, gave_up: 0 };
          if (fresh) traffic.start(t0, view, totals, next.db_limit);
          else traffic.frame(t0, view, totals, ended[view.strategy] ?? null, next.db_limit);
        }
        // a page that joins late (a reload, a seek, a link) learns each lane's last refill
        // from the snapshot; later ones come as events
        const hot = String(next.airports.indexOf(next.hot.board));
        for (const view of next.lanes) {
          const last = view.last_refills?.[hot];
          const known = refills.get(view.strategy) ?? [];
          if (last && !known.some((r) => r.at_us === last.at_us)) {
            known.push({ ...last, type: "refilled", lane: view.strategy, board: next.hot.board });
            known.sort((a, b) => a.at_us - b.at_us);
            if (known.length > KEEP_REFILLS) known.shift();
            refills.set(view.strategy, known);
          }
        }
        for (const e of events) {
          if (e.type !== "refilled" || e.board !== next.hot.board) continue;
          const list = refills.get(e.lane) ?? [];
          if (list.some((r) => r.at_us === e.at_us)) continue;
          list.push(/** @type {CsRefillEvent} */ (e));
          if (list.length > KEEP_REFILLS) list.shift();
          refills.set(e.lane, list);
        }
        if (buffer.length && buffer[buffer.length - 1].t > t0) buffer = [];
        buffer.push({ t: t0, snapshot: next });
        // the drawing is never further behind than a few seconds (a hidden tab draws
        // nothing, and keeps only that much)
        const horizon = t0 - 10 * LEAD_MS * clock.speed - 3_000_000;
        while (buffer.length > 2 && buffer[1].t <= horizon) buffer.shift();
        for (const traffic of lanes.values()) traffic.prune(horizon, clock.hop);
        writeStatus(next);
        stage.describe(summary(next, nextMetrics));
        scheduleSide(events.some((e) => e.type !== "reads" && e.type !== "refilled"));
        kick();
      }

      /** @param {boolean} now draw it now (else within a second) */
      function scheduleSide(now) {
        if (!side) return;
        const wait = now ? 0 : Math.max(0, SIDE_EVERY_MS - (performance.now() - sideAt));
        if (wait === 0) {
          clearTimeout(/** @type {number | undefined} */ (sideTimer));
          sideTimer = null;
          drawSide();
        } else if (sideTimer === null) {
          sideTimer = setTimeout(() => drawSide(), wait);
        }
      }

      function drawSide(all = false) {
        sideTimer = null;
        sideAt = performance.now();
        if (snapshot && metrics) side?.update(snapshot, metrics, { all });
      }

      /** @param {CsSnapshot} next */
      function writeStatus(next) {
        if (!status) return; // mounted
        const watching = fmt(t("Watching: %(lane)s"), { lane: names[next.strategy] ?? next.strategy });
        const resting = next.readers_until_us <= next.now_us;
        const settings = fmt(t("%(board)s board · lifetime %(ttl)s · query %(query)s · at most %(limit)s at once"), {
          board: t(next.hot.board),
          ttl: duration(next.ttl_ms * 1000),
          query: ms(next.query_ms * 1000),
          limit: num(next.db_limit),
        });
        const restingWords = resting ? t("The readers rest until someone acts.") : "";
        // written only when they change (ten frames a second)
        if (status.name.textContent !== watching) status.name.textContent = watching;
        if (status.settings.textContent !== settings) status.settings.textContent = settings;
        if (status.resting.textContent !== restingWords) status.resting.textContent = restingWords;
        if (status.resting.hidden !== !resting) status.resting.hidden = !resting;
      }

      /**
       * The stage's spoken summary.
       * @param {CsSnapshot} next
       * @param {CsMetrics} nextMetrics
       */
      function summary(next, nextMetrics) {
        const watched = next.strategy;
        const lane = next.lanes.find((l) => l.strategy === watched);
        const hot = String(next.airports.indexOf(next.hot.board));
        const entry = lane?.boards?.[hot];
        const left = entry ? entry.expiry_us - next.now_us : 0;
        const parts = [
          fmt(t("%(lane)s: readers read %(board)s's board through the cache."), { lane: names[watched], board: t(next.hot.board) }),
          entry
            ? left > 0
              ? fmt(t("The cached board expires in %(time)s."), { time: seconds(left) })
              : t("The cached board has expired.")
            : t("The board is not in the cache."),
          fmt(t("%(running)s in the database, %(queued)s queued."), { running: queries(lane?.running.length ?? 0), queued: num(lane?.queued ?? 0) }),
        ];
        const refill = refillAt(watched, Infinity);
        if (refill) parts.push(fmt(t("Last refill: %(what)s."), { what: refillText(refill) }));
        void nextMetrics;
        return parts.join(" ");
      }

      /** @param {HTMLElement} parent */
      function legend(parent) {
        const list = document.createElement("ul");
        list.className = "cs-legend";
        list.setAttribute("aria-label", t("What the dots are"));
        for (const [kind, style] of Object.entries(dotKinds())) {
          const li = document.createElement("li");
          li.dataset.kind = kind;
          const svgNS = "http://www.w3.org/2000/svg";
          const svg = document.createElementNS(svgNS, "svg");
          svg.setAttribute("viewBox", "-7 -7 14 14");
          svg.setAttribute("aria-hidden", "true");
          const path = document.createElementNS(svgNS, "path");
          path.setAttribute("d", legendMark(style));
          const cross = style.shape === "cross";
          path.setAttribute("fill", cross ? "none" : style.hollow ? "#fff" : style.colour);
          path.setAttribute("stroke", cross || style.hollow ? style.colour : "none");
          path.setAttribute("stroke-width", cross ? "2.4" : "2");
          svg.append(path);
          li.append(svg, style.label);
          list.append(li);
        }
        parent.append(list);
      }

      names = strategyNames(hello.declaration);
      const root = lab.root;
      const line = lab.element("p", "cs-status");
      status = {
        name: document.createElement("strong"),
        settings: document.createElement("span"),
        resting: document.createElement("span"),
      };
      status.settings.className = "cs-settings";
      status.resting.className = "cs-resting";
      line.append(status.name, " ", status.settings, " ", status.resting);
      stage = lab.own(createStage(root));
      stage.onResize(() => paint());
      legend(root);
      const send = lab.send;
      strips = lab.own(
        createStrips(root, {
          names,
          strategies: STRATEGIES,
          onPick: send ? (strategy) => send("set_strategy", { strategy }) : null,
        }),
      );
      side = lab.side ? lab.own(createSide(lab.side, lab.metricsSlot, { names })) : null;
      clock = createStageClock({ reduced });
      lab.onDestroy(() => {
        if (raf !== null) cancelAnimationFrame(raf);
        clearTimeout(/** @type {number | undefined} */ (sideTimer));
        raf = sideTimer = stage = strips = side = status = clock = snapshot = metrics = null;
        lanes = new Map();
        refills = new Map();
        buffer = [];
      });
      ingest(/** @type {CsSnapshot} */ (hello.snapshot), /** @type {CsMetrics} */ (hello.metrics), [], { fresh: true });
      drawSide(true);
      paint();
      return {
        update(frame) {
          if (!clock) return;
          ingest(/** @type {CsSnapshot} */ (frame.snapshot), /** @type {CsMetrics} */ (frame.metrics), frame.events ?? []);
        },
        describe: (events) => describeEvents(events, { names, hot: snapshot?.hot?.board ?? null, airports: snapshot?.airports ?? [] }),
      };
    },
  });
}
