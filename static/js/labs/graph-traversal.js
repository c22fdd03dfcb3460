/**
 * Renderer of the graph-traversal lab: paths as pointers, paths as joins. One question
 * (a Cypher pattern) is answered three ways: the lab's traversal follows each node's
 * list of edges, a recursive SQL query joins the routes table once a round, networkx
 * checks the answer.
 *
 * On the stage, from the top: the course's questions as buttons (questions.js), the
 * pattern asked and the expansion's readout with "Replay the expansion", the graph
 * (view.js: SVG for small graphs, a canvas for large ones, laid out by a seeded
 * d3-force in layout.js), its key (legend.js), and the cost strip: the traversal's
 * edges read beside the SQL's rows per round and index lookups, and networkx's
 * agreement (costs.js). The three engines in full, the closures and the dependents are
 * the side panel's (side.js).
 *
 * A frame with a `question` event plays the expansion depth by depth (expansion.js):
 * each depth's frontier ringed, its edges drawn by what happened to them, the pruned
 * ones faded once their depth is over; then the answer stays drawn. Reduced motion, a
 * seek or a reconnect draws the answer at once. Implements the renderer interface of
 * docs/frontend.md.
 */

import { fmt, num, t } from "../i18n.js";
import { createLabRenderer } from "../lab-view.js";
import { duration } from "../motion.js";
import { createCosts } from "./graph-traversal/costs.js";
import { describeEvents } from "./graph-traversal/describe.js";
import { depthText, doneText, marksOf, readSoFar } from "./graph-traversal/expansion.js";
import { createLegend } from "./graph-traversal/legend.js";
import { createQuestions } from "./graph-traversal/questions.js";
import { createSide } from "./graph-traversal/side.js";
import { createGraphView } from "./graph-traversal/view.js";
import { courseQuestions, edgesText, nodesText, tourPatterns } from "./graph-traversal/words.js";

/** @import { LabEvent, Renderer, Send, Snapshot } from "../types.js" */

const DEPTH_MS = 850; // one depth of the expansion
const EXPANSION_MS = 6500; // at most, however many depths
const WIDE_PX = 680; // a stage this wide puts the costs beside the drawing

/** @type {Map<string, string>} the course's patterns seen on this page: question → pattern */
const coursePatterns = new Map();

/**
 * A renderer for one mounted lab view.
 * @returns {Renderer}
 */
export function createRenderer() {
  return createLabRenderer({
    className: "gt-lab",
    place: "replace",
    metrics: { text: metricsText, className: "gt-numbers" },
    drawsItself: true,
    mount(lab, hello) {
      const root = lab.root;
      /** @type {ReturnType<typeof createQuestions>} */
      let questions;
      /** @type {ReturnType<typeof createStatus>} */
      let status;
      /** @type {ReturnType<typeof createGraphView>} */
      let view;
      /** @type {ReturnType<typeof createLegend>} */
      let legend;
      /** @type {ReturnType<typeof createCosts>} */
      let costs;
      /** @type {ReturnType<typeof createSide> | null} */
      let side = null;
      /** @type {Snapshot | null} the snapshot drawn */
      let shown = null;
      /** @type {Record<string, string>} the graphs in words, by code */
      let graphNames = {};
      /** @type {{cancelled: boolean, timers: number[]} | null} the expansion playing */
      let playing = null;

      /**
       * The course's question whose pattern is asked now, if any.
       * @param {Snapshot} snapshot
       */
      function currentQuestion(snapshot) {
        if (!snapshot.question) return null;
        if (typeof snapshot.course === "string") return snapshot.course;
        for (const [value, pattern] of coursePatterns) if (pattern === snapshot.pattern) return value;
        return null;
      }

      /**
       * Everything but the expansion's marks: the graph, the strip, the side, the key.
       * @param {Snapshot} snapshot
       * @param {LabEvent[]} [events]
       */
      function drawState(snapshot, events = []) {
        view.setGraph(snapshot);
        view.setCuts(snapshot.graph.node_count <= 150 ? snapshot.closures : null);
        questions.update(currentQuestion(snapshot));
        status.pattern.textContent = snapshot.pattern;
        status.pattern.title = snapshot.pattern;
        status.element.dataset.asked = String(Boolean(snapshot.question));
        status.replay.hidden = !snapshot.question;
        costs.update(snapshot);
        legend.update(snapshot);
        side?.update(snapshot, events);
        root.dataset.graph = snapshot.graph.which;
        root.dataset.grown = String(snapshot.graph.grown);
        root.dataset.mode = snapshot.question?.query.mode ?? "";
      }

      /**
       * @param {any} question the snapshot's question
       * @param {number} upto the depths shown
       * @param {boolean} final the answer too
       */
      function marks(question, upto, final) {
        return marksOf(question, {
          upto,
          final,
          size: view.size(),
          minutes: (from, to) => view.minutesOf(from, to),
        });
      }

      /**
       * The answer, drawn over the whole expansion.
       * @param {Snapshot} snapshot
       */
      function drawAnswer(snapshot, fadeMs = 0) {
        const question = snapshot.question;
        if (!question) {
          view.setMarks(null);
          status.readout.textContent = t("Not asked yet: press a question above, or run a pattern.");
          root.dataset.playing = "false";
          return;
        }
        view.setMarks(marks(question, question.traversal.depths.length, true), fadeMs);
        status.readout.textContent = doneText(question);
        costs.progress(question.traversal.touched);
        root.dataset.playing = "false";
        root.dataset.shownDepths = String(question.traversal.depths.length);
      }

      function stop() {
        if (!playing) return;
        playing.cancelled = true;
        for (const timer of playing.timers) clearTimeout(timer);
        playing = null;
      }

      /**
       * Play the expansion of the snapshot's question, depth by depth.
       * @param {Snapshot} snapshot
       */
      async function play(snapshot) {
        stop();
        const question = snapshot.question;
        const depths = question?.traversal.depths ?? [];
        const per = duration(Math.max(380, Math.min(DEPTH_MS, EXPANSION_MS / Math.max(1, depths.length))));
        if (!question || !depths.length || !per) {
          drawAnswer(snapshot);
          return;
        }
        const run = { cancelled: false, timers: /** @type {number[]} */ ([]) };
        playing = run;
        const wait = (/** @type {number} */ ms) => new Promise((resolve) => run.timers.push(window.setTimeout(resolve, ms)));
        root.dataset.playing = "true";
        for (let k = 1; k <= depths.length; k += 1) {
          view.setMarks(marks(question, k, false), Math.round(per * 0.4));
          status.readout.textContent = depthText(question, k);
          costs.progress(readSoFar(question, k));
          root.dataset.shownDepths = String(k);
          await wait(per);
          if (run.cancelled) return;
        }
        playing = null;
        drawAnswer(snapshot, Math.round(per * 0.5));
      }

      const declaration = hello.declaration;
      for (const [value, pattern] of tourPatterns(declaration)) if (!coursePatterns.has(value)) coursePatterns.set(value, pattern);
      const graphAction = declaration?.actions?.find((a) => a.name === "set_graph");
      const graphParam = /** @type {any} */ (graphAction?.params?.find((p) => p.name === "graph"));
      graphNames = Object.fromEntries((graphParam?.choices ?? []).map((/** @type {{ value: unknown, label: unknown }} */ c) => [String(c.value), String(c.label)]));
      const send = lab.send;
      // refused clicks of the drawing (a node's menu, a question button): said on the stage
      /** @type {Set<string>} */
      const ours = new Set();
      const sender = send
        ? /** @type {Send} */ (action, args) => {
            const ref = send(action, args);
            if (ref) ours.add(ref);
            status.error.hidden = true;
            return ref;
          }
        : null;
      lab.onDestroy(() => stop());
      questions = lab.own(createQuestions(root, { questions: courseQuestions(declaration), send: sender }));
      status = createStatus(root, () => shown && play(shown));
      const drawing = lab.element("div", "gt-drawing");
      view = lab.own(createGraphView(drawing, { send: sender }));
      legend = lab.own(createLegend(drawing));
      costs = lab.own(createCosts(root));
      // wide: the costs in a column beside the drawing; narrow: a strip under it
      const shape = new ResizeObserver(([entry]) => {
        const wide = entry.contentRect.width >= WIDE_PX;
        if (root && root.dataset.layout !== (wide ? "wide" : "narrow")) root.dataset.layout = wide ? "wide" : "narrow";
      });
      shape.observe(root);
      lab.onDestroy(() => shape.disconnect());
      side = lab.side ? lab.own(createSide(lab.side)) : null;
      lab.onError((error) => {
        if (!ours.delete(error.ref ?? "")) return false;
        status.error.textContent = fmt(t("Not applied: %(message)s"), { message: error.message || error.code });
        status.error.hidden = false;
        return true;
      });
      shown = hello.snapshot;
      drawState(shown);
      drawAnswer(shown);
      return {
        update(frame) {
          const snapshot = frame.snapshot;
          const events = frame.events ?? [];
          if (frame.action?.name === "course_query" && snapshot.question) {
            coursePatterns.set(String(frame.action.args?.question), snapshot.pattern);
          }
          stop();
          shown = snapshot;
          drawState(snapshot, events);
          lab.drawMetrics(frame.metrics, snapshot);
          if (events.some((e) => e.type === "question") && snapshot.question) play(snapshot);
          else drawAnswer(snapshot);
        },
        describe: (events) => describeEvents(events, shown, graphNames),
      };
    },
  });
}

/**
 * The line over the drawing: the pattern asked (code, never translated), the readout
 * of the expansion ("depth 2 · frontier 3 · 5 edges read"), "Replay the expansion", and
 * a refused click's reason.
 * @param {HTMLElement} parent
 * @param {() => void} replay
 */
function createStatus(parent, replay) {
  const element = document.createElement("div");
  element.className = "gt-status";
  const pattern = document.createElement("code");
  pattern.className = "gt-pattern";
  pattern.translate = false;
  const line = document.createElement("div");
  line.className = "gt-status-line";
  const readout = document.createElement("p");
  readout.className = "gt-readout";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "gt-replay";
  button.textContent = t("Replay the expansion");
  button.addEventListener("click", replay);
  line.append(pattern, button);
  const error = document.createElement("p");
  error.className = "gt-error";
  error.setAttribute("role", "alert");
  error.hidden = true;
  element.append(line, readout, error);
  parent.append(element);
  return { element, pattern, readout, replay: button, error };
}

/**
 * The graph's size and the last question's costs, in words.
 * @param {Record<string, any>} metrics
 * @param {Snapshot} snapshot
 */
function metricsText(metrics, snapshot) {
  const kind = snapshot.graph.kind;
  const parts = [fmt(t("%(nodes)s, %(edges)s"), { nodes: nodesText(kind, metrics.nodes), edges: edgesText(kind, metrics.edges) })];
  if (metrics.edges_touched !== null && metrics.edges_touched !== undefined) {
    parts.push(
      fmt(t("last question: %(read)s edges read, %(rows)s SQL rows, %(lookups)s index lookups"), {
        read: num(metrics.edges_touched),
        rows: num(metrics.sql_rows),
        lookups: num(metrics.sql_lookups),
      }),
    );
  }
  if (metrics.closed) parts.push(fmt(t("closed: %(n)s"), { n: num(metrics.closed) }));
  return parts.join(" · ");
}
