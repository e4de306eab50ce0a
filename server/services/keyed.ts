/**
 * An object keyed by the caller's ids (per-item outcome maps, groupings): it has no prototype, so that an id named
 * `__proto__`, `constructor` or `toString` is a key like any other. On a plain `{}`, `out['__proto__'] = x` sets
 * the prototype instead of a key (the item's outcome vanished from the answer), and `out['constructor']` is truthy
 * before anything was set. JSON.stringify writes it as any object.
 */
export function keyed<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
