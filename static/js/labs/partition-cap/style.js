/** The lab's own styles, added once to the page (the shared stylesheet stays shared). */

const CSS = `
.pc-header { display: grid; gap: 2px; margin-bottom: 10px; }
.pc-header p { margin: 0; }
.pc-flight { font-weight: 600; }
.pc-quorum.is-even { border-left: 4px solid var(--accent); padding-left: 8px; }
.pc-agree { color: var(--ink-soft); }
.pc-header[data-converged="no"] .pc-agree { font-weight: 600; color: var(--ink); }
.pc-clients { display: grid; grid-template-columns: 1fr 1fr; gap: var(--gap); margin: 10px 0; }
.pc-client { border: 1px solid var(--line); border-radius: var(--radius); padding: 10px 12px; background: var(--paper); }
.pc-client[data-client="tyo"] { text-align: right; }
.pc-client h3 { font-size: 1rem; margin: 0; }
.pc-who { margin: 0 0 6px; color: var(--ink-soft); font-size: 0.9rem; }
.pc-buttons { display: flex; flex-wrap: wrap; gap: 6px; }
.pc-client[data-client="tyo"] .pc-buttons { justify-content: flex-end; }
.pc-act { font: inherit; font-size: 0.85rem; padding: 4px 8px; border-radius: 6px; border: 1px solid var(--line-strong); background: var(--canvas); cursor: pointer; }
.pc-act:hover { border-color: var(--accent); }
.pc-act:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.pc-act[data-act="book-majority"], .pc-act[data-act="book-anyway"] { font-weight: 600; }
.pc-answers { list-style: none; margin: 8px 0 0; padding: 0; font-size: 0.9rem; }
.pc-answers li { padding: 2px 0; border-top: 1px dashed var(--line); }
.pc-answers li:first-child { font-weight: 600; border-top: none; }
.pc-answers li[data-result="refused"], .pc-answers li[data-result="failed"] { color: var(--danger); }
.pc-answers li[data-result="booked"] { color: var(--ok); }
.pc-error { margin: 6px 0 0; color: var(--danger); background: var(--danger-bg); padding: 4px 6px; border-radius: 6px; }
.pc-copies-wrap { overflow-x: auto; margin: 10px 0; }
.pc-copies { border-collapse: collapse; width: 100%; font-size: 0.9rem; background: var(--paper); }
.pc-copies caption { text-align: left; font-weight: 600; padding: 4px 0; }
.pc-copies th, .pc-copies td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
.pc-copies tr.is-down { color: var(--ink-faint); }
.pc-copies tr.is-conflicting td:nth-child(3) { font-weight: 600; }
.pc-verdicts h3, .pc-ops h3 { font-size: 1rem; margin: 12px 0 4px; }
.pc-vanished { border: 3px double var(--danger); border-radius: var(--radius); background: var(--danger-bg); padding: 8px 12px; margin: 6px 0; }
.pc-vanished h4 { margin: 0 0 4px; color: var(--danger); }
.pc-vanished ul { margin: 0; padding-left: 0; list-style: none; }
.pc-vanished-tag { letter-spacing: 0.06em; color: var(--danger); }
.pc-vanished-id { font-family: var(--mono); font-weight: 600; }
.pc-conflicts { margin: 4px 0; padding-left: 20px; }
.pc-conflicts li { margin: 4px 0; }
.pc-meetings { margin: 4px 0; padding-left: 20px; font-size: 0.9rem; color: var(--ink-soft); }
.pc-meetings li[data-verdict="concurrent"] { color: var(--ink); font-weight: 600; }
.pc-empty, .pc-more { color: var(--ink-faint); font-size: 0.9rem; margin: 4px 0; }
.pc-op-list { padding-left: 20px; font-size: 0.9rem; margin: 4px 0; }
.pc-op-list li[data-result="refused"] { color: var(--danger); }
.node-panel .pc-panel-bg { fill: var(--paper); stroke: var(--line-strong); opacity: 0.94; }
.node-panel.is-conflicting .pc-panel-bg { stroke: var(--ink); stroke-dasharray: 4 3; }
.node-panel .pc-line { text-anchor: middle; font-size: 12px; fill: var(--ink); }
.node-panel .pc-seats { font-weight: 700; }
.node-panel .pc-vv { font-family: var(--mono); fill: var(--ink-soft); }
.node-panel .pc-siblings { font-weight: 700; }
.node-panel .pc-standby { font-style: italic; fill: var(--ink-soft); }
.node-panel .pc-behind { font-style: italic; fill: var(--danger); }
.pc-metrics { display: grid; grid-template-columns: repeat(auto-fit, minmax(120px, 1fr)); gap: 6px; margin: 0 0 10px; }
.pc-metrics div { border: 1px solid var(--line); border-radius: 8px; padding: 4px 8px; background: var(--paper); }
.pc-metrics dt { font-size: 0.8rem; color: var(--ink-soft); }
.pc-metrics dd { margin: 0; font-size: 1.3rem; font-weight: 700; }
.pc-metrics div[data-metric="vanished"].is-nonzero dd { color: var(--danger); text-decoration: underline; }
@media (max-width: 640px) {
  .pc-clients { grid-template-columns: 1fr; }
  .pc-client[data-client="tyo"] { text-align: left; }
  .pc-client[data-client="tyo"] .pc-buttons { justify-content: flex-start; }
}
`;

/** Add the styles to the page once; returns a function that removes them. */
export function addStyles() {
  const id = "partition-cap-styles";
  let style = document.getElementById(id);
  if (!style) {
    style = document.createElement("style");
    style.id = id;
    style.textContent = CSS;
    document.head.append(style);
  }
  return () => style.remove();
}
