/**
 * The quorum renderer's own styles, scoped under `.quorum-lab` and added with the
 * renderer (removed with it), so the shared stylesheet needs nothing lab-specific.
 */

const CSS = `
.quorum-lab { display: grid; gap: 12px; grid-template-columns: minmax(0, 1fr); min-width: 0; }
.quorum-lab .q-summary p { margin: 0 0 4px; }
.quorum-lab .q-levels { font-weight: 600; }
.quorum-lab .q-promise[data-guaranteed="false"] { color: #8a4b00; }
.quorum-lab .q-promise[data-guaranteed="true"] { color: var(--ok, #1f7a3a); }
.quorum-lab .q-overlap { color: var(--ink-soft, #4a525c); }
.quorum-lab .q-replay { background: #fff6e0; border: 1px solid #e6b34a; border-radius: 6px;
  padding: 6px 10px; }
.quorum-lab .q-card-box { fill: #fff; stroke: var(--line-strong, #aab1bb); }
.quorum-lab .q-value { font-weight: 700; font-size: 14px; fill: var(--ink, #1b1f24); }
.quorum-lab .q-version { font-size: 11px; fill: var(--ink-soft, #4a525c);
  font-family: var(--mono, monospace); }
.quorum-lab .q-tag rect { fill: #eef1f5; stroke: #8d96a3; }
.quorum-lab .q-tag text { font-size: 10px; font-weight: 600; fill: var(--ink, #1b1f24); }
.quorum-lab .q-tag-w rect { fill: #dbeafb; stroke: #0072B2; }
.quorum-lab .q-tag-r rect { fill: #fdebd0; stroke: #b86e00; }
.quorum-lab .q-tag-shared rect { fill: #fff1a8; stroke: #7a6100; stroke-width: 1.5; }
.quorum-lab .q-tag-coord rect { fill: #1b1f24; stroke: #1b1f24; }
.quorum-lab .q-tag-coord text { fill: #fff; }
.quorum-lab .q-tag-hint rect { fill: #f6e3ef; stroke: #CC79A7; }
.quorum-lab .q-coordinator-ring { fill: none; stroke: #1b1f24; stroke-width: 2;
  stroke-dasharray: 5 4; }
.quorum-lab .q-shared-ring { fill: none; stroke: #c9a400; stroke-width: 4; }
.quorum-lab .node-panel.is-down .q-card-box { stroke-dasharray: 4 3; fill: #f1f2f4; }
.quorum-lab .q-trials, .quorum-lab .q-history { background: var(--paper, #fff);
  border: 1px solid var(--line, #d8dce2); border-radius: var(--radius, 10px); padding: 10px 14px; }
.quorum-lab h2 { font-size: 1.05rem; margin: 0 0 6px; }
.quorum-lab .q-trials-buttons { display: flex; gap: 8px; flex-wrap: wrap; }
.quorum-lab .q-note { margin: 0 0 6px; color: var(--ink-soft, #4a525c); font-size: 0.9rem; }
.quorum-lab .q-table-wrap { overflow-x: auto; max-height: 22rem; overflow-y: auto; }
.quorum-lab .q-table { border-collapse: collapse; width: 100%; font-size: 0.88rem; }
.quorum-lab .q-table th, .quorum-lab .q-table td { text-align: left; padding: 4px 8px;
  border-bottom: 1px solid var(--line, #d8dce2); white-space: nowrap; }
.quorum-lab .q-table th { position: sticky; top: 0; background: var(--paper, #fff); }
.quorum-lab .q-table td.q-num { font-variant-numeric: tabular-nums; }
.quorum-lab .q-table td.q-status-failed { white-space: normal; min-width: 16rem;
  color: var(--danger, #a3161a); }
.quorum-lab .q-table tr.is-stale { background: #fdeceb; }
.quorum-lab .q-table td.q-verdict-stale { font-weight: 700; color: var(--danger, #a3161a); }
.quorum-lab .q-table td.q-verdict-fresh { color: var(--ok, #1f7a3a); }
.q-metrics { display: grid; grid-template-columns: auto auto; gap: 2px 12px; margin: 0 0 12px; }
.q-metrics dt { color: var(--ink-soft, #4a525c); }
.q-metrics dd { margin: 0; font-variant-numeric: tabular-nums; font-weight: 600; }
`;

/** Add the styles to the page; returns a function that removes them. */
export function addStyles() {
  const style = document.createElement("style");
  style.dataset.lab = "quorum";
  style.textContent = CSS;
  document.head.append(style);
  return () => style.remove();
}
