// The request monitor behind the admin UI's Requests page: the last calls to the API in a bounded buffer, and a
// live feed for the UI (server-sent events). A summary of every call is kept (cheap); request and response
// bodies only while somebody watches, so an unwatched server does not serialize every answer twice.
import type { CallSummary } from '../../shared/admin.ts';

/** A call as kept: the summary's fields, and the bodies when it was made while the monitor was watched. */
export interface MonitoredCall extends Omit<CallSummary, 'hasBodies'> {
  request?: string;
  response?: string;
}

const KEEP = 500;
const MAX_BODY = 64 * 1024;
/** Fields whose values are secrets: shown as "[redacted]" in the monitor. */
const SECRET_FIELDS = /^(authToken|workspaceAuthToken|customerApiKey|secret|password|token|apiKeySecret|privateKey|encryptionKey)$/;

/** The body as JSON text with secret fields redacted, cut at 64 KiB. */
export function redactBody(text: string): string {
  let out = text;
  try {
    out = JSON.stringify(JSON.parse(text), (key, value) => (SECRET_FIELDS.test(key) && typeof value === 'string' ? '[redacted]' : value));
  } catch {
    // not JSON: shown as sent
  }
  return out.length > MAX_BODY ? `${out.slice(0, MAX_BODY)}… (${out.length - MAX_BODY} more characters)` : out;
}

export function createMonitor() {
  // a ring: call n lives in slot (n - 1) % KEEP, so recording is O(1) on every request
  const ring: Array<MonitoredCall | undefined> = new Array(KEEP);
  const watchers = new Set<{ send: (call: MonitoredCall) => void; end: () => void }>();
  let next = 1;
  return {
    /** True while a UI is watching: the caller captures bodies only then. */
    get watched() {
      return watchers.size > 0;
    },
    /**
     * Keeps one call. `bodies` gives its request and response text (redacted here); it runs only while the
     * monitor is watched, so that an unwatched server never redacts nor copies a body.
     */
    record(call: Omit<MonitoredCall, 'id' | 'request' | 'response'>, bodies?: () => { request: string; response: string }) {
      const entry = call as MonitoredCall;
      entry.id = next;
      if (bodies && watchers.size > 0) {
        const { request, response } = bodies();
        entry.request = redactBody(request);
        entry.response = redactBody(response);
      }
      ring[(next - 1) % KEEP] = entry;
      next++;
      for (const watcher of watchers) watcher.send(entry);
    },
    /** The kept calls, oldest first. */
    recent(): MonitoredCall[] {
      const out: MonitoredCall[] = [];
      for (let id = Math.max(1, next - KEEP); id < next; id++) out.push(ring[(id - 1) % KEEP] as MonitoredCall);
      return out;
    },
    find(id: number): MonitoredCall | undefined {
      const entry = Number.isInteger(id) && id > 0 ? ring[(id - 1) % KEEP] : undefined;
      return entry?.id === id ? entry : undefined;
    },
    /** Adds a live watcher; `end` is called when the server stops. Returns the function that removes it. */
    watch(watcher: { send: (call: MonitoredCall) => void; end: () => void }): () => void {
      watchers.add(watcher);
      return () => watchers.delete(watcher);
    },
    /** Ends every live feed (on shutdown, so open UIs do not hold the server's connections). */
    endAll() {
      for (const watcher of [...watchers]) watcher.end();
      watchers.clear();
    },
  };
}

export type Monitor = ReturnType<typeof createMonitor>;
