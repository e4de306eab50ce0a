// Giving memory back after documents unload (issue 46). V8 collects garbage when JavaScript allocates; a server that
// has just unloaded its documents and then idles allocates next to nothing, so their heap stays as it was at its
// peak: after the editing trace, RSS stayed at 134 MB a minute after the document unloaded, against 95 MB idle at
// start, though a heap snapshot (which collects first) showed the JavaScript heap back at 20 MB. One major
// collection soon after an unload brings RSS back (86 MB in the same run). Node exposes `gc` only under
// --expose-gc: the flag is set at run time, and the function taken from a fresh context, once.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** At most one collection asked for in this long, however many documents unload. */
const MIN_INTERVAL_MS = 60_000;
/** How long after the first unload of a sweep the collection runs (the unloads of that moment done first). */
const DELAY_MS = 2_000;

let collect: (() => void) | null | undefined;
let lastAt = Number.NEGATIVE_INFINITY;
let timer: NodeJS.Timeout | undefined;

/** V8's `gc`, taken once; null where this Node does not give it. */
export function heapCollector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    collect = typeof gc === 'function' ? () => (gc as () => void)() : null;
  } catch {
    collect = null;
  }
  return collect;
}

/** Asks for one major collection a moment from now, unless one ran or is due within the minute. */
export function collectSoon() {
  if (timer || Date.now() - lastAt < MIN_INTERVAL_MS) return;
  timer = setTimeout(() => {
    timer = undefined;
    lastAt = Date.now();
    heapCollector()?.();
  }, DELAY_MS);
  timer.unref();
}
