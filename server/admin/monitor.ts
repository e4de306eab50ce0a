// The request monitor behind the admin UI's Requests page: each workspace's last calls to the API in a bounded
// buffer of its own, and a live feed for the UI (server-sent events). A session sees only the calls its own
// workspace made (with its workspace credentials or any of its API keys); calls no workspace authenticated
// (public operations, wrong credentials) are kept for nobody. A summary of every call is kept (cheap); request
// and response bodies only while somebody of that workspace watches, so an unwatched server does not serialize
// every answer twice. Bodies arrive redacted by the operations' schemas (http/redact.ts).
//
// In a cluster (issue 31) each instance publishes the summaries of the calls it answered over Redis, in one message
// per SHARE_INTERVAL_MS, and keeps the other instances' in the same rings, marked with the instance that answered
// them: a session sees its workspace's calls whichever instance it is signed in to. Bodies stay on the instance that
// answered (they are large and only kept while watched there). The metrics stay per instance, as Prometheus
// scrapes each instance.
import type { CallSummary } from '../../shared/admin.ts';
import type { ClusterBus } from '../cluster/bus.ts';
import type { Logger } from '../log.ts';
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

/** The channel of the call summaries every instance of a cluster publishes. */
const CHANNEL = 'monitor:calls';
/** How often an instance publishes the summaries of the calls it answered since (one message each time). */
export const SHARE_INTERVAL_MS = 100;
/**
 * The most summaries one message carries: past it the oldest of the interval are left out of the shared feed (they
 * stay in this instance's monitor). 10,000 calls a second per instance; a ring keeps 500 a workspace anyway.
 */
const SHARE_BATCH = 1_000;

/** What one message carries: the sending instance, and its calls' summaries with their workspace. */
interface SharedCalls {
  instance: string;
  calls: Array<Omit<MonitoredCall, 'id' | 'request' | 'response' | 'instance'>>;
}

interface Sharing {
  cluster: ClusterBus;
  pending: SharedCalls['calls'];
  timer?: ReturnType<typeof setTimeout>;
  /** Set by endAll: other instances' calls arriving until the bus closes are dropped. */
  ended: boolean;
}

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
  /** Keeps one call in its workspace's ring and sends it to the workspace's live watchers. */
  const keep = (entry: MonitoredCall) => {
    const ring = ringOf(entry.workspaceId);
    entry.id = next++;
    ring.calls[ring.count % KEEP] = entry;
    ring.count++;
    for (const watcher of ring.watchers) watcher.send(entry);
  };
  /** The cluster this instance shares its calls with, and the summaries not published yet (share below). */
  let sharing: Sharing | undefined;
  const publish = () => {
    if (!sharing) return;
    sharing.timer = undefined;
    const calls = sharing.pending.splice(0).slice(-SHARE_BATCH);
    if (calls.length === 0) return;
    const message: SharedCalls = { instance: sharing.cluster.instanceId, calls };
    sharing.cluster.publish(CHANNEL, Buffer.from(JSON.stringify(message)));
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
    record(call: Omit<MonitoredCall, 'id' | 'request' | 'response' | 'instance'>, bodies?: () => { request: string; response: string }) {
      const entry = call as MonitoredCall;
      if (sharing) {
        // the summary as it is now (no id, no bodies), published with the others of the interval
        sharing.pending.push({ ...call });
        if (sharing.pending.length > 2 * SHARE_BATCH) sharing.pending.splice(0, sharing.pending.length - SHARE_BATCH);
        if (sharing.timer === undefined) {
          sharing.timer = setTimeout(publish, SHARE_INTERVAL_MS);
          sharing.timer.unref?.();
        }
      }
      if (bodies && (rings.get(call.workspaceId)?.watchers.size ?? 0) > 0) {
        const { request, response } = bodies();
        entry.request = bounded(request);
        entry.response = bounded(response);
      }
      keep(entry);
    },
    /**
     * Shares calls with the other instances of a cluster: publishes this instance's, keeps theirs. Resolves once
     * subscribed; `endAll` stops it. The subscription is left to the bus's close, which follows: unsubscribing
     * while Redis is away fails, and there is nothing to gain from it on the way out.
     */
    async share(cluster: ClusterBus, log: Logger) {
      if (sharing) return;
      const state: Sharing = { cluster, pending: [], ended: false };
      sharing = state;
      await cluster.subscribe(CHANNEL, (payload) => {
        if (state.ended) return;
        let message: SharedCalls;
        try {
          message = JSON.parse(payload.toString('utf8')) as SharedCalls;
          if (typeof message.instance !== 'string' || !Array.isArray(message.calls)) throw new Error('not a batch of calls');
        } catch {
          log.warn('monitor: an unreadable message of another instance was dropped');
          return;
        }
        for (const call of message.calls) keep({ ...call, instance: message.instance } as MonitoredCall);
      });
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
      if (sharing) {
        // calls of the last interval are published before the bus closes
        clearTimeout(sharing.timer);
        publish();
        sharing.ended = true;
        sharing = undefined;
      }
      for (const ring of rings.values()) {
        for (const watcher of [...ring.watchers]) watcher.end();
        ring.watchers.clear();
      }
    },
  };
}

export type Monitor = ReturnType<typeof createMonitor>;
