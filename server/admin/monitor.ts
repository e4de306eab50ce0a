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
//
// Memory is bounded (issue 42): every kept call is accounted (its summary's strings, its bodies, a fixed overhead per
// call and per ring). A workspace keeps at most `workspaceBytes` (its oldest bodies go first, then its oldest calls),
// all workspaces together at most `totalBytes` (whole unwatched workspaces go first, least recently used first, then
// the oldest bodies of the workspace holding most, then the oldest calls of the largest); a workspace's bodies are
// dropped `closeGraceMs` after its last watcher left, and calls older than `maxAgeMs` are dropped (a sweep every
// minute at most). A character counts as a byte: bodies are JSON, which V8 keeps one byte a character when ASCII.
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
  /** The request's headers as they came, secrets masked (kept with the bodies, only while watched). */
  requestHeaders?: Array<[string, string]>;
  /** The answer's headers as Hearth wrote them (kept with the bodies, only while watched). */
  responseHeaders?: Array<[string, string]>;
}

/** How much the monitor may hold (config.monitor, in bytes and milliseconds). */
export interface MonitorLimits {
  /** All workspaces' kept calls together. */
  totalBytes: number;
  /** One workspace's kept calls. */
  workspaceBytes: number;
  /** How long a workspace's bodies outlive its last watcher (a reload of the page reconnects within it). */
  closeGraceMs: number;
  /** Calls older than this are dropped. */
  maxAgeMs: number;
}

export const DEFAULT_MONITOR_LIMITS: MonitorLimits = {
  totalBytes: 64 * 1024 * 1024,
  workspaceBytes: 8 * 1024 * 1024,
  closeGraceMs: 60_000,
  maxAgeMs: 60 * 60_000,
};

const KEEP = 500;
/** Workspaces whose calls are kept at once; past it the unwatched one that called least recently is forgotten. */
const WORKSPACES = 256;
const MAX_BODY = 64 * 1024;
/** What a kept call costs besides its strings (the object, its slot, its numbers), as accounted. */
const CALL_OVERHEAD = 200;
/** What a ring costs besides its calls (its slots array, its sets), as accounted. */
const RING_OVERHEAD = KEEP * 8 + 200;
/** The most often the age sweep runs. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * A body cut at 64 KiB, as a string of its own: a slice of a large string may keep the whole of it alive in V8 (a
 * sliced string points into its parent), so the cut is copied out.
 */
const bounded = (text: string) =>
  text.length > MAX_BODY ? Buffer.from(`${text.slice(0, MAX_BODY)}… (${text.length - MAX_BODY} more characters)`, 'utf8').toString('utf8') : text;

const headerBytes = (headers: Array<[string, string]> | undefined) => {
  let size = 0;
  for (const [name, value] of headers ?? []) size += name.length + value.length + 16;
  return size;
};
const bodyBytes = (call: MonitoredCall) =>
  (call.request?.length ?? 0) + (call.response?.length ?? 0) + headerBytes(call.requestHeaders) + headerBytes(call.responseHeaders);
/** At most 50 headers, names of 256 characters and values of 1,024 (a client's own are what it sent). */
const boundedHeaders = (headers: Array<[string, string]>) =>
  headers.slice(0, 50).map(([name, value]): [string, string] => [name.slice(0, 256), value.slice(0, 1024)]);
const summaryBytes = (call: MonitoredCall) =>
  CALL_OVERHEAD +
  call.method.length +
  call.path.length +
  (call.caller?.length ?? 0) +
  call.requestId.length +
  call.workspaceId.length +
  (call.instance?.length ?? 0) +
  (call.note?.length ?? 0);

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
  calls: Array<Omit<MonitoredCall, 'id' | 'request' | 'response' | 'instance' | 'requestHeaders' | 'responseHeaders'>>;
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

/**
 * One workspace's ring: call n of the workspace lives in slot (n - 1) % KEEP, so recording is O(1). The calls kept
 * are numbers `first`..`count`; `bodied` is the oldest that may still hold bodies.
 */
class Ring {
  readonly calls: Array<MonitoredCall | undefined> = new Array(KEEP);
  count = 0;
  first = 1;
  bodied = 1;
  /** Accounted bytes of its kept calls, bodies included, and of the ring itself. */
  bytes = RING_OVERHEAD;
  /** The bodies' part of `bytes`. */
  bodies = 0;
  readonly watchers = new Set<Watcher>();
  /** Drops the bodies once the last watcher has been gone for the grace period. */
  closeTimer: ReturnType<typeof setTimeout> | undefined;

  at(n: number): MonitoredCall | undefined {
    return this.calls[(n - 1) % KEEP];
  }
}

export function createMonitor(limits: MonitorLimits = DEFAULT_MONITOR_LIMITS, now: () => number = Date.now) {
  const rings = new Map<string, Ring>();
  let total = 0;
  let next = 1;
  let lastSweep = now();

  /** Drops the bodies of the ring's call n (they are accounted no more). */
  const stripBodies = (ring: Ring, call: MonitoredCall) => {
    const size = bodyBytes(call);
    if (size === 0) return;
    delete call.request;
    delete call.response;
    delete call.requestHeaders;
    delete call.responseHeaders;
    ring.bytes -= size;
    ring.bodies -= size;
    total -= size;
  };
  /** Drops the ring's oldest bodies until it holds at most `bodies` bytes of them. */
  const stripOldestBodies = (ring: Ring, bodies: number) => {
    while (ring.bodies > bodies && ring.bodied <= ring.count) {
      const call = ring.at(ring.bodied);
      if (call && ring.bodied >= ring.first) stripBodies(ring, call);
      ring.bodied++;
    }
  };
  /** Drops the ring's oldest call. */
  const dropOldest = (ring: Ring) => {
    const call = ring.at(ring.first);
    if (call) {
      const size = summaryBytes(call) + bodyBytes(call);
      ring.bytes -= size;
      ring.bodies -= bodyBytes(call);
      total -= size;
      ring.calls[(ring.first - 1) % KEEP] = undefined;
    }
    ring.first++;
    if (ring.bodied < ring.first) ring.bodied = ring.first;
  };
  const forget = (id: string, ring: Ring) => {
    clearTimeout(ring.closeTimer);
    rings.delete(id);
    total -= ring.bytes;
  };
  /** Keeps one workspace's ring within its cap, and all of them within the global one. */
  const enforce = (ring: Ring) => {
    if (ring.bytes > limits.workspaceBytes) stripOldestBodies(ring, Math.max(0, ring.bodies - (ring.bytes - limits.workspaceBytes)));
    while (ring.bytes > limits.workspaceBytes && ring.first <= ring.count) dropOldest(ring);
    if (total <= limits.totalBytes) return;
    // whole unwatched workspaces first, least recently used first (never the one just recorded): nobody looks at them
    for (const [id, r] of rings) {
      if (total <= limits.totalBytes) return;
      if (r !== ring && r.watchers.size === 0) forget(id, r);
    }
    // then the bodies of the workspaces that hold most of them
    while (total > limits.totalBytes) {
      let largest: Ring | undefined;
      for (const r of rings.values()) if (r.bodies > 0 && (!largest || r.bodies > largest.bodies)) largest = r;
      if (!largest) break;
      stripOldestBodies(largest, Math.max(0, largest.bodies - (total - limits.totalBytes)));
    }
    // then the oldest calls of the largest
    while (total > limits.totalBytes) {
      let largest: Ring | undefined;
      for (const r of rings.values()) if (r.first <= r.count && (!largest || r.bytes > largest.bytes)) largest = r;
      if (!largest) break;
      dropOldest(largest);
    }
  };
  /** Drops calls older than maxAgeMs, and the unwatched workspaces left with none. */
  const sweep = () => {
    const t = now();
    lastSweep = t;
    const oldest = t - limits.maxAgeMs;
    for (const [id, ring] of rings) {
      while (ring.first <= ring.count && (ring.at(ring.first)?.at ?? 0) < oldest) dropOldest(ring);
      if (ring.first > ring.count && ring.watchers.size === 0) forget(id, ring);
    }
  };
  const sweepTimer = setInterval(sweep, Math.min(SWEEP_INTERVAL_MS, Math.max(1_000, limits.maxAgeMs / 4)));
  sweepTimer.unref?.();

  const ringOf = (workspaceId: string) => {
    let ring = rings.get(workspaceId);
    if (ring === undefined) {
      if (rings.size >= WORKSPACES) {
        for (const [id, r] of rings) {
          if (r.watchers.size > 0) continue;
          forget(id, r);
          break;
        }
      }
      rings.set(workspaceId, (ring = new Ring()));
      total += ring.bytes;
    } else if (ring.count % 64 === 0) {
      // now and then, move a busy workspace to the end: the map's first entries are the least recently used
      rings.delete(workspaceId);
      rings.set(workspaceId, ring);
    }
    return ring;
  };
  const ordered = (ring: Ring) => {
    const out: MonitoredCall[] = [];
    for (let n = Math.max(ring.first, ring.count - KEEP + 1); n <= ring.count; n++) out.push(ring.at(n) as MonitoredCall);
    return out;
  };
  /** Keeps one call in its workspace's ring and sends it to the workspace's live watchers. */
  const keep = (entry: MonitoredCall) => {
    if (now() - lastSweep > SWEEP_INTERVAL_MS) sweep();
    const ring = ringOf(entry.workspaceId);
    entry.id = next++;
    // the slot's call of KEEP calls ago leaves the ring
    if (ring.count - ring.first + 1 >= KEEP) dropOldest(ring);
    ring.calls[ring.count % KEEP] = entry;
    ring.count++;
    const size = summaryBytes(entry) + bodyBytes(entry);
    ring.bytes += size;
    ring.bodies += bodyBytes(entry);
    total += size;
    enforce(ring);
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
    record(
      call: Omit<MonitoredCall, 'id' | 'request' | 'response' | 'instance' | 'requestHeaders' | 'responseHeaders'>,
      bodies?: () => { request: string; response: string; headers?: Array<[string, string]>; responseHeaders?: Array<[string, string]> },
    ) {
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
        const { request, response, headers, responseHeaders } = bodies();
        entry.request = bounded(request);
        entry.response = bounded(response);
        if (headers) entry.requestHeaders = boundedHeaders(headers);
        if (responseHeaders) entry.responseHeaders = boundedHeaders(responseHeaders);
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
    /**
     * Adds a live watcher of the workspace's calls; `end` is called when the server stops. Returns the function that
     * removes it; once the last watcher is gone, the workspace's bodies are dropped after the grace period.
     */
    watch(workspaceId: string, watcher: Watcher): () => void {
      const ring = ringOf(workspaceId);
      ring.watchers.add(watcher);
      clearTimeout(ring.closeTimer);
      ring.closeTimer = undefined;
      return () => {
        if (!ring.watchers.delete(watcher) || ring.watchers.size > 0) return;
        clearTimeout(ring.closeTimer);
        ring.closeTimer = setTimeout(() => {
          ring.closeTimer = undefined;
          if (ring.watchers.size === 0) stripOldestBodies(ring, 0);
        }, limits.closeGraceMs);
        ring.closeTimer.unref?.();
      };
    },
    /** What the monitor holds now, as accounted (tests; the operator's metrics). */
    usage(): { bytes: number; bodyBytes: number; workspaces: number; byWorkspace: Map<string, { bytes: number; bodyBytes: number; calls: number }> } {
      const byWorkspace = new Map<string, { bytes: number; bodyBytes: number; calls: number }>();
      let bodies = 0;
      for (const [id, ring] of rings) {
        byWorkspace.set(id, { bytes: ring.bytes, bodyBytes: ring.bodies, calls: Math.max(0, ring.count - ring.first + 1) });
        bodies += ring.bodies;
      }
      return { bytes: total, bodyBytes: bodies, workspaces: rings.size, byWorkspace };
    },
    /** Drops what is older than the age limit now (the timer does it every minute at most). */
    sweep,
    /** Ends every live feed (on shutdown, so open UIs do not hold the server's connections). */
    endAll() {
      clearInterval(sweepTimer);
      for (const ring of rings.values()) clearTimeout(ring.closeTimer);
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
