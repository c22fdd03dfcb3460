// ES module shim for d3's UMD bundle: the bundle attaches itself to globalThis.d3 when
// evaluated; we take it from there and remove the global so modules stay global-free.
import "./d3.min.js";

const d3 = globalThis.d3;
delete globalThis.d3;

export default d3;
