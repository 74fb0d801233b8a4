/**
 * Structural sharing between a cached object and its next version, so the cache keeps one copy of
 * what did not change: otherwise Ingress status churn leaves ~1 KB of old-generation garbage per
 * update. Plain decoded data only; the walk is depth-limited (deeper parts are kept as they are).
 *
 * Pure: no I/O.
 *
 * @module
 */

/** How deep the walk goes; decoded Kubernetes objects are a few levels deep. */
const MAX_DEPTH = 12;

/** `next`, with each part equal to the same part of `previous` replaced by that part. */
export function shareUnchanged<T>(previous: T, next: T): T {
  return share(previous, next, 0) as T;
}

function share(previous: unknown, next: unknown, depth: number): unknown {
  if (previous === next) return previous;
  if (typeof next === "string") return next === previous ? previous : next;
  if (typeof next !== "object" || next === null || typeof previous !== "object" || previous === null) {
    return next;
  }
  if (depth >= MAX_DEPTH) return next;
  if (Array.isArray(next)) {
    if (!Array.isArray(previous)) return next;
    // Allocated only at the first difference: an unchanged part costs a walk, not a copy.
    let out: unknown[] | undefined = previous.length === next.length ? undefined : [];
    for (let index = 0; index < next.length; index++) {
      const shared = index < previous.length ? share(previous[index], next[index], depth + 1) : next[index];
      if (out === undefined && shared !== previous[index]) out = previous.slice(0, index);
      out?.push(shared);
    }
    return out ?? previous;
  }
  if (Array.isArray(previous)) return next;
  const old = previous as Readonly<Record<string, unknown>>;
  const fresh = next as Readonly<Record<string, unknown>>;
  const keys = Object.keys(fresh);
  let out: Record<string, unknown> | undefined;
  let index = 0;
  for (const key of keys) {
    const known = Object.hasOwn(old, key);
    const shared = known ? share(old[key], fresh[key], depth + 1) : fresh[key];
    if (out === undefined && (!known || shared !== old[key])) {
      out = {};
      for (const earlier of keys.slice(0, index)) out[earlier] = old[earlier];
    }
    if (out !== undefined) out[key] = shared;
    index++;
  }
  if (out !== undefined) return out;
  // Every key of the new version is shared; the same set of keys makes it the cached object.
  let count = 0;
  for (const key in old) if (Object.hasOwn(old, key)) count++;
  if (count === keys.length) return previous;
  const copy: Record<string, unknown> = {};
  for (const key of keys) copy[key] = old[key];
  return copy;
}
