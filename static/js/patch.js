/**
 * Snapshot deltas (playground/delta.py): a frame may carry `patch`, the operations that
 * turn the previous frame's snapshot into this one, instead of the whole `snapshot`.
 * `["s", path, value]` sets, `["d", path]` deletes an object key; a path is a list of
 * object keys and list indexes, and an empty path replaces the whole snapshot.
 */

/**
 * The snapshot after `operations`, applied to a copy of `previous` (never mutated).
 * @param {any} previous
 * @param {[string, (string | number)[], unknown?][]} operations
 * @returns {any}
 */
export function applyPatch(previous, operations) {
  let root = structuredClone(previous);
  for (const [kind, path, value] of operations) {
    if (path.length === 0) {
      root = structuredClone(value);
      continue;
    }
    let parent = root;
    for (const step of path.slice(0, -1)) parent = parent[step];
    const last = path[path.length - 1];
    if (kind === "d") delete parent[last];
    else parent[last] = value;
  }
  return root;
}
