// The request monitor behind the admin UI's Requests page: each workspace's last calls to the API in a bounded
// buffer of its own, and a live feed for the UI (server-sent events). A session sees only the calls its own
// workspace made (with its workspace credentials or any of its API keys); calls no workspace authenticated
// (public operations, wrong credentials) are kept for nobody. A summary of every call is kept (cheap); request
// and response bodies only while somebody of that workspace watches, so an unwatched server does not serialize
// every answer twice. Bodies arrive redacted by the operations' schemas (http/redact.ts).
import type { CallSummary } from '../../shared/admin.ts';
import { createMetrics, type RequestSample } from '../metrics.ts';

/** A call as kept: the summary's fields, and the bodies when it was made while the monitor was watched. */
export interface MonitoredCall extends Omit<CallSummary, 'hasBodies'> {
  /** The workspace that made the call (its credentials, or one of its API keys'). */
  workspaceId: string;
  request?: string;
  response?: string;
}

const KEEP = 500;
/** Workspaces whose calls are kept at once; past it the one that called least recently is forgotten. */
const WORKSPACES = 256;
const MAX_BODY = 64 * 1024;

/** A body cut at 64 KiB. */
const bounded = (text: string) => (text.length > MAX_BODY ? `${text.slice(0, MAX_BODY)}… (${text.length - MAX_BODY} more characters)` : text);

interface Watcher {
  send: (call: MonitoredCall) => void;
  end: () => void;
}

/** One workspace's ring: call n of the workspace lives in slot (n - 1) % KEEP, so recording is O(1). */
class Ring {
  readonly calls: Array<MonitoredCall | undefined> = new Array(KEEP);
  count = 0;
  readonly watchers = new Set<Watcher>();
}

export function createMonitor() {
  const rings = new Map<string, Ring>();
  let next = 1;
  const ringOf = (workspaceId: string) => {
    let ring = rings.get(workspaceId);
    if (ring === undefined) {
      if (rings.size >= WORKSPACES) {
        for (const [id, r] of rings) {
          if (r.watchers.size > 0) continue;
          rings.delete(id);
          break;
        }
      }
      rings.set(workspaceId, (ring = new Ring()));
    } else if (ring.count % 64 === 0) {
      // now and then, move a busy workspace to the end: the map's first entries are the least recently used
      rings.delete(workspaceId);
      rings.set(workspaceId, ring);
    }
    return ring;
  };
  const ordered = (ring: Ring) => {
    const out: MonitoredCall[] = [];
    for (let n = Math.max(1, ring.count - KEEP + 1); n <= ring.count; n++) out.push(ring.calls[(n - 1) % KEEP] as MonitoredCall);
    return out;
  };
  const metrics = createMetrics();
  return {
    /** Request counters and latency histograms of every call, authenticated or not (server/metrics.ts). */
    metrics,
    /** Counts one answered call in the metrics (every call, whichever workspace made it, if any). */
    count(sample: RequestSample) {
      metrics.record(sample);
    },
    /** True while a UI of `workspaceId` is watching: the caller captures bodies only then. */
    watched(workspaceId: string): boolean {
      return (rings.get(workspaceId)?.watchers.size ?? 0) > 0;
    },
    /**
     * Keeps one call of `call.workspaceId`. `bodies` gives its request and response text, already redacted; it
     * runs only while that workspace's monitor is watched.
     */
    record(call: Omit<MonitoredCall, 'id' | 'request' | 'response'>, bodies?: () => { request: string; response: string }) {
      const ring = ringOf(call.workspaceId);
      const entry = call as MonitoredCall;
      entry.id = next++;
      if (bodies && ring.watchers.size > 0) {
        const { request, response } = bodies();
        entry.request = bounded(request);
        entry.response = bounded(response);
      }
      ring.calls[ring.count % KEEP] = entry;
      ring.count++;
      for (const watcher of ring.watchers) watcher.send(entry);
    },
    /** The workspace's kept calls, oldest first. */
    recent(workspaceId: string): MonitoredCall[] {
      const ring = rings.get(workspaceId);
      return ring ? ordered(ring) : [];
    },
    /** One kept call of the workspace by id. */
    find(workspaceId: string, id: number): MonitoredCall | undefined {
      const ring = rings.get(workspaceId);
      if (!ring || !Number.isInteger(id) || id <= 0) return undefined;
      return ordered(ring).find((call) => call.id === id);
    },
    /** Adds a live watcher of the workspace's calls; `end` is called when the server stops. Returns the function that removes it. */
    watch(workspaceId: string, watcher: Watcher): () => void {
      const ring = ringOf(workspaceId);
      ring.watchers.add(watcher);
      return () => ring.watchers.delete(watcher);
    },
    /** Ends every live feed (on shutdown, so open UIs do not hold the server's connections). */
    endAll() {
      for (const ring of rings.values()) {
        for (const watcher of [...ring.watchers]) watcher.end();
        ring.watchers.clear();
      }
    },
  };
}

export type Monitor = ReturnType<typeof createMonitor>;
