/**
 * A plain data table in a scrolling wrapper: a header row of column names, then one
 * row a record. Cells are text; the columns listed in `codeColumns` hold commands or
 * code, set in <code> and marked not to be translated by the browser.
 *
 * @param {string[]} head
 * @param {string[][]} rows
 * @param {{wrapClass: string, codeColumns?: number[]}} options
 * @returns {HTMLDivElement}
 */
export function dataTable(head, rows, { wrapClass, codeColumns = [] }) {
  const wrap = document.createElement("div");
  wrap.className = wrapClass;
  const el = document.createElement("table");
  const tr = document.createElement("tr");
  for (const text of head) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = text;
    tr.append(th);
  }
  el.createTHead().append(tr);
  const body = el.createTBody();
  for (const cells of rows) {
    const row = document.createElement("tr");
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      if (codeColumns.includes(i)) {
        const code = document.createElement("code");
        code.translate = false;
        code.textContent = text;
        td.append(code);
      } else {
        td.textContent = text;
      }
      row.append(td);
    });
    body.append(row);
  }
  wrap.append(el);
  return wrap;
}
