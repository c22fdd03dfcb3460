/**
 * The side panel: the last ten seconds from each lane's `history` (100 ms buckets) —
 * queries in the database at once for all four lanes on one scale, and the watched
 * lane's hit rate, the age of the board it served and its latency (p50, p99); XFetch's
 * chance of an early refresh, exp(−x / (δ·β)), drawn over the rate measured per bin;
 * the arithmetic of misses from the last second; and the cache servers with the boards
 * each holds. The metrics slot gets the totals of the four lanes side by side.
 */

import { createLineChart } from "../../charts.js";
import { decimal, fmt, num, percent, t } from "../../i18n.js";
import { STRATEGIES, ms } from "./words.js";

/** @import { CsLaneNumbers, CsLaneView, CsMetrics, CsSnapshot } from "./types.js" */

const MIN_BIN_READS = 10; // a measured point needs this many reads in its bin
const TEXTBOOK_DELTA_US = 400_000;
const TEXTBOOK_AT_S = [2, 0.4, 0.1];

/**
 * One figure: a heading, a caption, and a box for the chart.
 * @param {HTMLElement} parent
 * @param {string} className
 * @param {string} heading
 */
function figure(parent, className, heading) {
  const el = document.createElement("figure");
  el.className = `cs-chart ${className}`;
  const caption = document.createElement("figcaption");
  const title = document.createElement("strong");
  title.textContent = heading;
  const note = document.createElement("span");
  note.className = "cs-chart-note";
  caption.append(title, " ", note);
  el.append(caption);
  parent.append(el);
  return { el, title, note };
}

const seconds1 = (/** @type {number} */ v) => fmt(t("%(s)s s"), { s: decimal(v, v % 1 === 0 ? 0 : 1) });

/**
 * @param {HTMLElement} side
 * @param {HTMLElement | null} metricsSlot
 * @param {{names: Record<string, string>}} options
 */
export function createSide(side, metricsSlot, { names }) {
  const root = document.createElement("div");
  root.className = "cs-side";
  side.append(root);

  const head = document.createElement("h2");
  head.textContent = t("The last ten seconds");
  root.append(head);

  // database concurrency, the four lanes on one scale
  const flight = figure(root, "cs-in-flight", t("Queries in the database at once"));
  flight.el.dataset.spot = "in-flight";
  const multiples = STRATEGIES.map((strategy, i) => {
    const last = i === STRATEGIES.length - 1;
    const row = document.createElement("div");
    row.className = "cs-multiple";
    row.dataset.strategy = strategy;
    const label = document.createElement("span");
    label.className = "cs-multiple-name";
    label.textContent = names[strategy];
    const chartBox = document.createElement("div");
    row.append(label, chartBox);
    flight.el.append(row);
    const chart = createLineChart(chartBox, {
      width: 360,
      height: last ? 62 : 44,
      margin: { left: 30, right: 66, top: 6, bottom: last ? 20 : 4 },
      yTicks: 2,
      xTicks: last ? 4 : 0,
      xFormat: seconds1,
      className: "cs-mini",
    });
    return { strategy, row, chart };
  });

  const hitRate = figure(root, "cs-hit-rate", t("Hit rate"));
  const hitChart = createLineChart(hitRate.el, {
    width: 360,
    height: 120,
    yLabel: t("hits"),
    xLabel: t("virtual time"),
    xFormat: seconds1,
    yFormat: (v) => percent(v, 0),
  });
  const age = figure(root, "cs-age", t("Age of the board served"));
  const ageChart = createLineChart(age.el, {
    width: 360,
    height: 120,
    yLabel: t("seconds"),
    xLabel: t("virtual time"),
    xFormat: seconds1,
    yFormat: (v) => decimal(v, v >= 10 || v % 1 === 0 ? 0 : 1),
  });
  const latency = figure(root, "cs-latency", t("Latency of a read"));
  const latencyChart = createLineChart(latency.el, {
    width: 360,
    height: 130,
    yLabel: t("ms"),
    xLabel: t("virtual time"),
    xFormat: seconds1,
    yFormat: (v) => (v >= 10 || v % 1 === 0 ? num(v) : decimal(v, 1)),
  });

  const xfetch = figure(root, "cs-xfetch", t("XFetch: the chance that a read refreshes early"));
  xfetch.el.dataset.spot = "xfetch";
  const xfetchChart = createLineChart(xfetch.el, {
    width: 360,
    height: 170,
    margin: { left: 40, right: 84, top: 12, bottom: 32 },
    yLabel: t("refresh early"),
    xLabel: t("time before expiry (ms)"),
    yFormat: (v) => percent(v, 0),
    xTicks: 5,
  });

  const arithmetic = document.createElement("p");
  arithmetic.className = "cs-arithmetic";
  root.append(arithmetic);

  const servers = document.createElement("section");
  servers.className = "cs-servers";
  const serversHead = document.createElement("h3");
  serversHead.textContent = t("Cache servers");
  const serversNote = document.createElement("p");
  serversNote.className = "cs-chart-note";
  serversNote.textContent = t("Each board lives on one server, chosen by the hash of its key (board:LAX); every read of it goes there.");
  const serverList = document.createElement("ul");
  serverList.className = "cs-server-list";
  servers.append(serversHead, serversNote, serverList);
  root.append(servers);

  /** @type {HTMLElement | null} the metrics slot's table of totals */
  let totals = null;
  if (metricsSlot) {
    totals = document.createElement("div");
    totals.className = "cs-totals";
    metricsSlot.append(totals);
  }

  // Drawn only where it can be seen (or nearly): while the stage plays, the charts are
  // usually under the first screen, and drawing them there cost a long frame a second.
  // What is not drawn is drawn as soon as it scrolls into view.
  /** @type {Map<Element, boolean>} whether each part is in view (or nearly) */
  const seen = new Map();
  /** @type {[CsSnapshot, CsMetrics] | null} the lab as it is now */
  let latest = null;
  const watcher = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) seen.set(entry.target, entry.isIntersecting);
      drawSeen();
    },
    { rootMargin: "200px" },
  );
  watcher.observe(root);
  if (totals) watcher.observe(totals);

  function drawSeen() {
    if (!latest) return;
    const [snapshot, metrics] = latest;
    if (seen.get(root)) draw(snapshot, metrics);
    if (totals && seen.get(totals)) updateTotals(metrics);
  }

  /**
   * Take the lab as it is now; draw what is in view (everything, the first time).
   * @param {CsSnapshot} snapshot
   * @param {CsMetrics} metrics
   * @param {{all?: boolean}} [options]
   */
  function update(snapshot, metrics, { all = false } = {}) {
    latest = [snapshot, metrics];
    if (all) {
      draw(snapshot, metrics);
      if (totals) updateTotals(metrics);
      return;
    }
    drawSeen();
  }

  /**
   * @param {CsSnapshot} snapshot
   * @param {CsMetrics} metrics
   */
  function draw(snapshot, metrics) {
    const watched = snapshot.strategy;
    /** @type {Record<string, CsLaneView>} */
    const lanes = Object.fromEntries(snapshot.lanes.map((l) => [l.strategy, l]));
    // the window moves by whole seconds (its axis is drawn again once a virtual second)
    const now = snapshot.now_us / 1e6;
    const end = Math.max(Math.ceil(now), 1);
    const xDomain = /** @type {[number, number]} */ ([Math.max(0, end - 10), end]);
    const inWindow = (/** @type {number[]} */ b) => b[0] / 1e6 >= xDomain[0] - 0.1;

    // queries in flight, one scale for all four
    const peaks = STRATEGIES.map((s) => Math.max(0, ...(lanes[s]?.history ?? []).filter(inWindow).map((b) => b[4])));
    const top = Math.max(snapshot.db_limit, ...peaks, 1);
    for (const [i, m] of multiples.entries()) {
      const history = (lanes[m.strategy]?.history ?? []).filter(inWindow);
      m.row.classList.toggle("is-watched", m.strategy === watched);
      m.row.dataset.peak = String(peaks[i]);
      m.chart.update({
        series: [
          {
            id: "peak",
            label: fmt(t("most %(n)s"), { n: num(peaks[i]) }),
            points: history.map((b) => [b[0] / 1e6, b[4]]),
            area: true,
            className: "cs-series-flight",
          },
        ],
        xDomain,
        yDomain: [0, top],
        marks: [{ y: snapshot.db_limit, label: "", className: "cs-limit" }],
        summary: fmt(t("%(lane)s: at most %(n)s queries in the database at once in the last ten seconds."), {
          lane: names[m.strategy],
          n: num(peaks[i]),
        }),
      });
    }
    flight.note.textContent = fmt(t("the most in each 100 ms, all four on one scale; the dashed line is the database's limit, %(n)s at once (more wait in its queue)."), {
      n: num(snapshot.db_limit),
    });

    // the watched lane
    const history = (lanes[watched]?.history ?? []).filter(inWindow);
    const read = (/** @type {number[]} */ b) => b[1] > 0;
    const name = names[watched];
    hitRate.note.textContent = fmt(t("of %(lane)s, in each 100 ms"), { lane: name });
    /** @type {Array<[number, number | null]>} */
    const rates = history.map((b) => [b[0] / 1e6, read(b) ? b[2] / b[1] : null]);
    const lastRate = [...rates].reverse().find((p) => p[1] !== null)?.[1] ?? null;
    hitChart.update({
      series: [{ id: "hits", label: lastRate === null ? "" : percent(lastRate, 0), points: rates, className: "cs-series-hits" }],
      xDomain,
      yDomain: [0, 1],
      summary: fmt(t("Hit rate of %(lane)s over the last ten seconds, %(last)s in the last 100 ms."), {
        lane: name,
        last: lastRate === null ? "–" : percent(lastRate, 1),
      }),
    });
    age.note.textContent = fmt(t("the oldest copy %(lane)s served in each 100 ms; it drops to zero when the board is refilled"), { lane: name });
    /** @type {Array<[number, number | null]>} */
    const ages = history.map((b) => [b[0] / 1e6, read(b) ? b[5] / 1e6 : null]);
    const topAge = Math.max(1, ...ages.map((p) => p[1] ?? 0));
    ageChart.update({
      series: [{ id: "age", label: "", points: ages, className: "cs-series-age" }],
      xDomain,
      yDomain: [0, topAge * 1.05],
      marks: [{ y: snapshot.ttl_ms / 1000, label: t("lifetime"), className: "cs-ttl" }],
      summary: fmt(t("The age of the board %(lane)s served, at most %(age)s in the last ten seconds."), {
        lane: name,
        age: seconds1(topAge),
      }),
    });
    latency.note.textContent = fmt(t("p50 and p99 of %(lane)s's reads in each 100 ms"), { lane: name });
    /** @type {Array<[number, number | null]>} */
    const p50 = history.map((b) => [b[0] / 1e6, read(b) ? b[7] / 1000 : null]);
    /** @type {Array<[number, number | null]>} */
    const p99 = history.map((b) => [b[0] / 1e6, read(b) ? b[8] / 1000 : null]);
    const topLatency = Math.max(1, ...p99.map((p) => p[1] ?? 0));
    latencyChart.update({
      series: [
        { id: "p99", label: t("p99"), points: p99, className: "cs-series-p99" },
        { id: "p50", label: t("p50"), points: p50, className: "cs-series-p50" },
      ],
      xDomain,
      yDomain: [0, topLatency * 1.1],
      summary: fmt(t("Latency of %(lane)s's reads: p99 up to %(p99)s in the last ten seconds."), {
        lane: name,
        p99: ms(topLatency * 1000),
      }),
    });

    updateXfetch(snapshot, metrics, lanes);
    updateArithmetic(snapshot, metrics);
    updateServers(snapshot, metrics);
  }

  /**
   * XFetch's curve, and the rate measured per bin.
   * @param {CsSnapshot} snapshot
   * @param {CsMetrics} metrics
   * @param {Record<string, CsLaneView>} lanes by strategy
   */
  function updateXfetch(snapshot, metrics, lanes) {
    const lane = lanes.xfetch;
    const hot = snapshot.airports.indexOf(snapshot.hot.board);
    const delta = lane?.boards?.[String(hot)]?.delta_us ?? snapshot.query_ms * 1000;
    const beta = Number(snapshot.beta) || 1;
    const scale = (delta * beta) / 1000; // ms: x in units of δ·β
    const bins = metrics.lanes?.xfetch?.xfetch_bins ?? [];
    const width = snapshot.model.x_bin;
    const span = snapshot.model.x_bins * width;
    // from far before expiry to expiry, so the curve's label sits at its end, at expiry
    const curve = Array.from({ length: 97 }, (_, i) => {
      const x = ((96 - i) / 96) * span;
      return /** @type {[number, number]} */ ([x * scale, Math.exp(-x)]);
    });
    const measured = bins
      .map(([reads, early], i) => ({ reads, x: (i + 0.5) * width * scale, p: reads ? early / reads : null }))
      .filter((b) => b.reads >= MIN_BIN_READS);
    const marks = [{ x: scale, y: Math.exp(-1), label: fmt(t("%(p)s at δ·β = %(time)s"), { p: percent(Math.exp(-1), 1), time: ms(scale * 1000) }) }];
    if (delta === TEXTBOOK_DELTA_US) {
      marks.length = 0;
      for (const s of TEXTBOOK_AT_S) {
        const p = Math.exp(-(s * 1000) / scale);
        marks.push({ x: s * 1000, y: p, label: fmt(t("%(p)s at %(time)s"), { p: percent(p, p < 0.01 ? 2 : 1), time: seconds1(s) }) });
      }
    }
    xfetchChart.update({
      series: [
        { id: "theory", label: t("exp(−x / δβ)"), points: curve, className: "cs-series-theory" },
        {
          id: "measured",
          label: measured.length ? t("measured") : "",
          points: measured.map((b) => /** @type {[number, number]} */ ([b.x, b.p ?? 0])),
          line: false,
          dots: true,
          className: "cs-series-measured",
        },
      ],
      xDomain: [span * scale, 0],
      yDomain: [0, 1],
      marks,
      summary: fmt(t("The chance that a read refreshes early, exp(−x / (δ·β)) with δ = %(delta)s and β = %(beta)s: %(p1)s at %(x1)s before expiry. %(n)s measured points."), {
        delta: ms(delta),
        beta: snapshot.beta,
        p1: percent(Math.exp(-1), 1),
        x1: ms(scale * 1000),
        n: num(measured.length),
      }),
    });
    xfetch.note.textContent = fmt(t("δ = %(delta)s (the last query's time), β = %(beta)s; dots: the share of reads that did, in bins with %(min)s reads or more."), {
      delta: ms(delta),
      beta: snapshot.beta,
      min: num(MIN_BIN_READS),
    });
    xfetch.el.dataset.delta = String(delta);
    xfetch.el.dataset.points = String(measured.length);
  }

  /**
   * The misses of the last second, in numbers.
   * @param {CsSnapshot} snapshot
   * @param {CsMetrics} metrics
   */
  function updateArithmetic(snapshot, metrics) {
    const watched = snapshot.strategy;
    const last = metrics.lanes?.[watched]?.last_second;
    if (!last || !last.reads || !last.seconds) {
      arithmetic.textContent = t("No reads in the last second: the readers rest until someone acts.");
      return;
    }
    const perSecond = last.reads / last.seconds;
    const hitRateNow = last.hit_rate ?? 0;
    const misses = perSecond * (1 - hitRateNow);
    arithmetic.textContent = fmt(t("%(lane)s, the last second: %(reads)s reads/s × (1 − %(hit)s) = %(misses)s misses/s; %(queries)s queries/s reached the database."), {
      lane: names[watched],
      reads: num(perSecond),
      hit: percent(hitRateNow, 1),
      misses: num(misses),
      queries: num(last.queries / last.seconds),
    });
  }

  let serversKey = "";
  /** @type {{li: HTMLLIElement, reads: HTMLSpanElement, bar: HTMLSpanElement}[]} */
  let serverItems = [];

  /**
   * The cache servers, the boards each holds and their reads.
   * @param {CsSnapshot} snapshot
   * @param {CsMetrics} metrics
   */
  function updateServers(snapshot, metrics) {
    const hotServer = metrics.hot_server;
    const key = JSON.stringify([snapshot.servers.map((s) => s.boards), hotServer, snapshot.hot.board]);
    if (key !== serversKey) {
      serversKey = key;
      serverItems = snapshot.servers.map((server) => {
        const li = document.createElement("li");
        li.className = "cs-server";
        const hot = server.id === hotServer;
        li.classList.toggle("is-hot", hot);
        li.dataset.server = String(server.id);
        const name = document.createElement("strong");
        name.textContent = fmt(t("Server %(n)s"), { n: num(server.id) });
        const boards = document.createElement("span");
        boards.className = "cs-server-boards";
        boards.textContent = server.boards.length ? server.boards.map((b) => t(b)).join(" ") : t("no boards");
        const reads = document.createElement("span");
        reads.className = "cs-server-reads";
        const bar = document.createElement("span");
        bar.className = "cs-server-bar";
        li.append(name, " ", boards, " ", reads, bar);
        if (hot) {
          const mark = document.createElement("span");
          mark.className = "cs-server-hot";
          mark.textContent = fmt(t("holds the hot board, %(board)s"), { board: t(snapshot.hot.board) });
          li.append(mark);
        }
        return { li, reads, bar };
      });
      serverList.replaceChildren(...serverItems.map((item) => item.li));
    }
    const most = Math.max(1, ...snapshot.servers.map((s) => s.reads));
    snapshot.servers.forEach((server, i) => {
      const item = serverItems[i];
      if (!item) return;
      item.reads.textContent = fmt(t("%(n)s reads"), { n: num(server.reads) });
      item.bar.style.setProperty("--share", String(server.reads / most));
    });
  }

  /** @type {HTMLElement[][] | null} the totals table's cells, [row][lane], made once */
  let cells = null;

  /** @param {CsMetrics} metrics */
  function updateTotals(metrics) {
    /** @type {Array<[string, (lane: CsLaneNumbers) => string]>} */
    const rows = [
      [t("Reads"), (l) => num(l.reads)],
      [t("Hits"), (l) => num(l.hits)],
      [t("Database queries"), (l) => num(l.queries)],
      [t("Early refreshes"), (l) => num(l.early)],
      [t("Waited for the lock"), (l) => num(l.waited)],
      [t("Gave up waiting"), (l) => num(l.gave_up)],
      [t("Refused, the queue full"), (l) => num(l.busy ?? 0)],
      [t("Most queries at once"), (l) => num(l.peak_in_flight)],
      [t("Most identical queries at once"), (l) => num(l.most_refills_at_once)],
      [t("Oldest board served"), (l) => seconds1(l.max_age_us / 1e6)],
      [t("Most stale board served"), (l) => (l.max_stale_us ? ms(l.max_stale_us) : "0")],
    ];
    if (!cells) {
      const table = document.createElement("table");
      table.className = "cs-totals-table";
      const caption = document.createElement("caption");
      caption.textContent = t("Since the start, lane by lane");
      table.append(caption);
      const headRow = document.createElement("tr");
      headRow.append(document.createElement("td"));
      for (const s of STRATEGIES) {
        const th = document.createElement("th");
        th.scope = "col";
        th.textContent = names[s];
        headRow.append(th);
      }
      table.createTHead().append(headRow);
      const body = table.createTBody();
      cells = rows.map(([label]) => {
        const tr = document.createElement("tr");
        const th = document.createElement("th");
        th.scope = "row";
        th.textContent = label;
        tr.append(th);
        const row = STRATEGIES.map(() => document.createElement("td"));
        tr.append(...row);
        body.append(tr);
        return row;
      });
      /** @type {HTMLElement} */ (totals).replaceChildren(table);
    }
    rows.forEach(([, value], r) => {
      STRATEGIES.forEach((s, c) => {
        const words = metrics.lanes?.[s] ? value(metrics.lanes[s]) : "–";
        const cell = /** @type {HTMLElement[][]} */ (cells)[r][c];
        if (cell.textContent !== words) cell.textContent = words;
      });
    });
  }

  return {
    update,
    destroy() {
      watcher.disconnect();
      root.remove();
      totals?.remove();
    },
  };
}
