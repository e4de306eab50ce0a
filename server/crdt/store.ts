import * as encoding from 'lib0/encoding';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import type { CrdtRow, RoomId } from '../db/repos/crdt.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import type { ClusterBus } from '../cluster/bus.ts';
import type { Logger } from '../log.ts';
import { buildDoc, mergeNow } from './build.ts';
import { inferContent, type CrdtType } from './content.ts';
import { contentDigest, type Expected, reproducesNow, rootKinds } from './digest.ts';
import { collectSoon } from '../heap.ts';
import { mergeOffThread, OFFLOAD_BYTES, reproducesOffThread, sliceOffThread } from './offload.ts';

/** A room of a key, as the store keys its documents (the key's id with the room's ids). */
export interface DocKey extends RoomId {
  apiKeyId: string;
}

/** A user's connections to one document, as the admin UI's user page shows them (`presenceOf`). */
export interface UserPresence extends RoomId {
  connections: number;
  /** Whether one of them may write (an editor's), or all only read. */
  writable: boolean;
  /** The presence (awareness) states they set: a name, a colour, a cursor, as the app's client puts them. */
  states: unknown[];
}

/** The longest presence state the admin UI is sent as it is. */
const PRESENCE_STATE_CHARS = 4096;

/** Who made a change: a websocket connection, or a server-side writer (REST, later AI) named by `by`. */
export interface ServerOrigin {
  server: true;
  by: string;
}

export interface LiveDoc {
  key: DocKey;
  /** The tenant the document belongs to: what its storage is asked with. */
  scope: TenantScope;
  type: CrdtType;
  contentKey: string;
  /** Which of `type` and `contentKey` are still to be learned from the content (`INFER_*` bits; 0 once known). */
  infer: number;
  /**
   * The stored row's `created_at`: which incarnation of the key this is. A row deleted behind the store's back
   * (a document, organization or API key deleted) and created again is another document: the loaded one is
   * dropped, never reused, compacted into or appended to.
   */
  createdAt: number;
  doc: Y.Doc;
  awareness: awarenessProtocol.Awareness;
  /** Connections and the awareness client ids each controls. */
  conns: Map<object, Set<number>>;
  lastActivity: number;
  /** When an update of the document was last stored: its compaction waits for a quiet moment (`compactWhenQuiet`). */
  lastStoredAt: number;
  /** Sends an encoded message to every connection but `except`. */
  broadcast: (message: Uint8Array, except?: object) => void;
  /** Updates applied in memory, not yet stored nor broadcast (stored at the end of the event-loop turn). */
  pending: Array<{ update: Uint8Array; origin: unknown }>;
  /** What `pending` changed, gathered as they came, for `encodeBatch`; null while nothing is pending. */
  batch: Batch | null;
  /** Batches of pending updates closed at `MAX_BATCH_UPDATES` or `MAX_BATCH_BYTES`, encoded, waiting for the flush. */
  sealed: Array<{ update: Uint8Array; origins: unknown[] }>;
  /**
   * In a cluster: the stored row's `updated_at` as of the last update this instance stored or heard of. A load that
   * finds another value reads what it missed from storage (another instance's update still on its way here).
   */
  storedAt: number;
  /** In a cluster: stops listening to the room's channel (when the document leaves memory). */
  leave?: () => void;
}

/**
 * The origin of what another instance of the cluster stored (an update) or was told (presence): applied here and
 * sent to this instance's clients, never stored again nor sent back (cluster/bus.ts).
 */
export const REMOTE = Object.freeze({ remote: true });

/** The kinds of message on a room's channel: the first byte of each. */
const ROOM_UPDATE = 0;
const ROOM_AWARENESS = 1;
/** "Send me your clients' presence": a room just loaded by an instance. */
const ROOM_QUERY = 2;
/** "The room was removed or replaced": each instance checks its stored row, and drops a loaded room that is gone. */
const ROOM_CHECK = 3;
/**
 * A ROOM_CHECK's body when the room's rows were replaced (an admin reset or import), not deleted: its clients are
 * closed with 1012 ("service restart"), which y-websocket's stock provider retries, where 4404 (deleted) tells it
 * to stop for good (it gives up on 4400–4499).
 */
const REPLACED = 1;
const REPLACED_CLOSE = { code: 1012, reason: 'document replaced (reset or import); reconnect' } as const;
/** How long a room's compaction lock holds (the expiry frees the lock of an instance that died compacting). */
const COMPACT_LOCK_MS = 60_000;

export type { CrdtRow };

/** Stored updates since the last compaction after which a document is compacted, once it is quiet. */
const COMPACT_AFTER_UPDATES = 200;
/**
 * How long a document with that many updates must go without one before it is compacted. A compaction holds the
 * event loop for as long as it takes to encode, check and merge the whole document (~10–30 ms for a document of a
 * few thousand edits), and an update arriving meanwhile waits: done every 200 updates while clients write, it was
 * the tail of the propagation latency at a steady rate (issue 31). Hocuspocus waits likewise (2 s, at most 10 s).
 */
const COMPACT_QUIET_MS = 1_000;
/**
 * A document written to without a pause is compacted anyway once this many updates wait, so that its log stays
 * bounded (loading applies it, update by update). That compaction merges the updates past the kept history into one
 * row, and holds the event loop longest (tens of ms here for 10,000 small updates): at 200 updates a second, once
 * every 50 s rather than once a second. At 2,000 it fell inside the steady-rate bench's 10 s rounds.
 */
const COMPACT_MAX_UPDATES = 10_000;
/** Stored updates of each document kept as history by default (`crdtHistoryUpdates`, CRDT_HISTORY_UPDATES). */
export const DEFAULT_HISTORY_UPDATES = 1000;
/** Authors remembered per loaded document (who sent which stored update), for the history view. */
const AUTHORS_KEPT = 2000;

/**
 * A flush stores and broadcasts the pending updates of a document as one update, but encodes at most this many
 * updates (or `MAX_BATCH_BYTES` of them) in one: past it, the batch is closed and encoded as it stands and another
 * begins, so that a writer far ahead of the flush (an editing trace replayed open-loop, a client back online with
 * 20,000 offline edits) gets rows and messages of a bounded size.
 */
export const MAX_BATCH_UPDATES = 10_000;
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/** The pending updates of a document, as the flush needs them: the state before the first and what they deleted. */
export interface Batch {
  /** The document's state vector before the batch's first update (its transaction's `beforeState`). */
  before: Map<number, number>;
  /** The ranges the batch's updates deleted, by client: clock and length, one after the other, as they came. */
  deletes: Map<number, number[]>;
  bytes: number;
}

/** Adds a transaction (a pending update) to a batch, starting one if none is open: linear in its delete set. */
export function addToBatch(batch: Batch | null, transaction: Y.Transaction, bytes: number): Batch {
  const open = batch ?? { before: transaction.beforeState, deletes: new Map(), bytes: 0 };
  open.bytes += bytes;
  for (const [client, items] of transaction.deleteSet.clients) {
    let ranges = open.deletes.get(client);
    if (!ranges) open.deletes.set(client, (ranges = []));
    for (const item of items) ranges.push(item.clock, item.len);
  }
  return open;
}

/**
 * The batch's updates as one Yjs update (v1), in work linear in what the batch added and deleted. They are already
 * applied to `doc`: the structs are those the document has past the state before the batch, written from its store
 * as `Y.encodeStateAsUpdate(doc, before)` writes them, and the deletions are the batch's own (that call would write
 * the delete set of the whole document, found by walking every struct of it). `Y.mergeUpdates` of the updates
 * themselves costs more than linear in their number (it sorts its decoders again for each struct it writes): 63 of
 * 77 s of a server's CPU on the automerge-paper trace once the writer got ahead of the flush (issue 46).
 *
 * In a cluster, an update another instance stored and this one applied in the meantime lies past `before` too, and
 * is written again: Yjs applies an update once, so it costs bytes, never content.
 */
export function encodeBatch(doc: Y.Doc, batch: Batch): Uint8Array {
  const encoder = new Y.UpdateEncoderV1();
  const rest = encoder.restEncoder;
  const from: Array<[number, number]> = [];
  for (const [client, structs] of doc.store.clients) {
    const last = structs[structs.length - 1];
    const clock = batch.before.get(client) ?? 0;
    if (last && last.id.clock + last.length > clock) from.push([client, clock]);
  }
  // higher client ids first, as Yjs writes them
  from.sort((a, b) => b[0] - a[0]);
  encoding.writeVarUint(rest, from.length);
  for (const [client, after] of from) {
    const structs = doc.store.clients.get(client) as Array<Y.Item | Y.GC>;
    const clock = Math.max(after, (structs[0] as Y.Item | Y.GC).id.clock);
    const start = Y.findIndexSS(structs, clock);
    const first = structs[start] as Y.Item | Y.GC;
    encoding.writeVarUint(rest, structs.length - start);
    encoder.writeClient(client);
    encoding.writeVarUint(rest, clock);
    first.write(encoder, clock - first.id.clock);
    for (let i = start + 1; i < structs.length; i++) (structs[i] as Y.Item | Y.GC).write(encoder, 0);
  }
  const deletes = [...batch.deletes].sort((a, b) => b[0] - a[0]);
  encoding.writeVarUint(rest, deletes.length);
  for (const [client, flat] of deletes) {
    const ranges = mergedRanges(flat);
    encoder.resetDsCurVal();
    encoding.writeVarUint(rest, client);
    encoding.writeVarUint(rest, ranges.length / 2);
    for (let i = 0; i < ranges.length; i += 2) {
      encoder.writeDsClock(ranges[i] as number);
      encoder.writeDsLen(ranges[i + 1] as number);
    }
  }
  return encoder.toUint8Array();
}

/** Ranges (clock, length, one after the other) sorted by clock, those that touch or overlap made one. */
function mergedRanges(flat: number[]): number[] {
  const order: number[] = [];
  for (let i = 0; i < flat.length; i += 2) order.push(i);
  order.sort((a, b) => (flat[a] as number) - (flat[b] as number));
  const out: number[] = [];
  for (const i of order) {
    const clock = flat[i] as number;
    const len = flat[i + 1] as number;
    const n = out.length;
    if (n > 0 && (out[n - 2] as number) + (out[n - 1] as number) >= clock) out[n - 1] = Math.max(out[n - 1] as number, clock + len - (out[n - 2] as number));
    else out.push(clock, len);
  }
  return out;
}

/** One stored update of a document's log: the history's unit. */
export interface LogEntry {
  seq: number;
  createdAt: number;
  update: Uint8Array;
}

/**
 * What `buildDoc` builds, one turn of the event loop at a time, for a large stored document (issue 42: a 313 KB
 * snapshot of 30,000 nested XML elements held the event loop 90–170 ms to load): the snapshot and each large log
 * update in slices cut in the Yjs worker thread, one slice a turn; small updates up to OFFLOAD_BYTES a turn. Throws
 * when the snapshot cannot be applied; a log update that cannot is left out (`onLeftOut` hears of it).
 */
async function buildDocInTurns(base: Uint8Array | null, updates: readonly Uint8Array[], onLeftOut: (error: unknown) => void): Promise<Y.Doc> {
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const doc = new Y.Doc({ gc: true });
  try {
    if (base) {
      for (const [i, slice] of (await sliceOffThread(base)).entries()) {
        if (i > 0) await turn();
        Y.applyUpdate(doc, slice);
      }
    }
    let bytes = base?.length ?? 0;
    for (const update of updates) {
      if (bytes > OFFLOAD_BYTES) {
        await turn();
        bytes = 0;
      }
      try {
        if (update.length <= OFFLOAD_BYTES) Y.applyUpdate(doc, update);
        else {
          for (const slice of await sliceOffThread(update)) {
            await turn();
            Y.applyUpdate(doc, slice);
          }
        }
      } catch (error) {
        onLeftOut(error);
      }
      bytes += update.length;
    }
    return doc;
  } catch (error) {
    doc.destroy();
    throw error;
  }
}

/**
 * Updates merged into one (a corrupted one is left out), through a document: the state they build. Large ones
 * (30,000 nested XML elements: 80–160 ms to build) are merged in the Yjs worker thread.
 */
async function mergeRobust(updates: Uint8Array[]): Promise<Uint8Array> {
  if (updates.length === 1) return updates[0] as Uint8Array;
  if (updates.reduce((sum, u) => sum + u.length, 0) > OFFLOAD_BYTES) return mergeOffThread(updates);
  return mergeNow(updates);
}

/**
 * Whether every change in `snapshot` is also in `updates` (its state vector is covered by theirs): read from each
 * update's metadata (per client, the lowest clock any update starts at and the highest any reaches, what the
 * metadata of the merged log would say), without merging them: merging a history of 1,000 updates took ~90 ms,
 * in one piece, on every compaction. A log with an update that cannot be read counts as not covering.
 */
export function logCovers(updates: Uint8Array[], snapshot: Uint8Array | null): boolean {
  if (!snapshot) return true;
  try {
    const wanted = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(snapshot));
    if (wanted.size === 0) return true;
    if (updates.length === 0) return false;
    const from = new Map<number, number>();
    const to = new Map<number, number>();
    for (const update of updates) {
      const meta = Y.parseUpdateMeta(update);
      for (const [client, clock] of meta.from) if (clock < (from.get(client) ?? Number.POSITIVE_INFINITY)) from.set(client, clock);
      for (const [client, clock] of meta.to) if (clock > (to.get(client) ?? 0)) to.set(client, clock);
    }
    for (const [client, clock] of wanted) if (from.get(client) !== 0 || (to.get(client) ?? 0) < clock) return false;
    return true;
  } catch {
    return false;
  }
}

/**
 * What a snapshot of a document must load into: the document's content digest (digest.ts: each root type read as
 * the document reads it) and its state vector (every update of every client). Read on the event loop with the
 * snapshot, in the same turn: a walk of its types (~10 ms for 30,000 nested XML elements), not a load.
 */
function expectedOf(doc: Y.Doc): Expected {
  const kinds = rootKinds(doc);
  return { kinds, digest: contentDigest(doc, kinds), stateVector: Y.encodeStateVector(doc) };
}

/**
 * Whether a snapshot loads into a document of the `expected` content and state vector; false when it throws.
 * Loading a large one (30,000 nested XML elements: 80–160 ms in one piece) is done in the Yjs worker thread.
 */
async function reproduces(snapshot: Uint8Array, expected: Expected): Promise<boolean> {
  if (snapshot.length > OFFLOAD_BYTES) return reproducesOffThread(snapshot, expected);
  return reproducesNow(snapshot, expected);
}

const keyString = (k: DocKey) => JSON.stringify([k.apiKeyId, k.organizationId, k.documentId, k.editorId]);
/** A room's channel between the instances of a cluster. */
const roomChannel = (k: DocKey) => `room:${keyString(k)}`;
const keyOf = (scope: TenantScope, room: RoomId): DocKey => ({
  apiKeyId: scope.apiKeyId,
  organizationId: room.organizationId,
  documentId: room.documentId,
  editorId: room.editorId,
});
const roomOf = (k: DocKey): RoomId => ({ organizationId: k.organizationId, documentId: k.documentId, editorId: k.editorId });

/**
 * The Yjs documents Hearth holds. Loading reads the snapshot and the updates after it from storage, so it is complete
 * before a client is answered. Every update is appended to the update log before it is broadcast, before a REST
 * call answers and before a client is sent the document's state: what anyone was told is on disk. Updates of one
 * event-loop turn are stored together (`flush`, one unit of work). The log is merged into the snapshot past a
 * threshold and when an idle document is unloaded.
 *
 * History (the admin UI's document history and restore): compaction writes the whole state as the snapshot
 * (what loading starts from) but keeps the newest `historyUpdates` updates of the log, older ones merged into
 * the first kept row, so that the log alone rebuilds the document at any kept point. Loading applies the log over
 * the snapshot again, which Yjs ignores (every kept update is already in it). `historyUpdates: 0` deletes the
 * log at each compaction, as before there was history.
 */
export function createCrdtStore(
  app: { storage: Storage; log: Logger; cluster?: ClusterBus },
  options: { idleMs?: number; historyUpdates?: number; onChange?: (scope: TenantScope, key: DocKey, now: number) => Promise<void> } = {},
) {
  const { storage, cluster } = app;
  const idleMs = options.idleMs ?? 30_000;
  const historyUpdates = options.historyUpdates ?? DEFAULT_HISTORY_UPDATES;
  const live = new Map<string, LiveDoc>();
  /** Documents being loaded: a second load of the same key waits for the first instead of building a twin. */
  const loading = new Map<string, Promise<LiveDoc | undefined>>();
  /** Totals since the process started (GET /metrics). */
  const totals = { stored: 0, sent: 0, heard: 0 };
  /** Who sent each stored update (by log seq), per document, while this process runs: the log keeps no author. */
  const authors = new Map<string, Map<number, string>>();

  /**
   * The stored document: its snapshot and the updates after it. Should the log not apply (Yjs trusts its peers, and
   * a client's corrupted updates can make that fail), the updates are applied one by one and any that fails is left
   * out, so that a document always loads. Throws when the snapshot cannot be applied.
   */
  function storedDoc(k: DocKey, snapshot: Uint8Array | null, updates: Uint8Array[]): Y.Doc {
    return buildDoc(snapshot, updates, leftOut(k));
  }

  /** Logs a stored update left out of a document because it cannot be applied (the first time, that it happened). */
  function leftOut(k: DocKey) {
    let warned = false;
    return (error: unknown) => {
      if (!warned) app.log.warn('CRDT update log does not apply as a whole; applying its updates one by one', { ...k });
      warned = true;
      app.log.warn('CRDT stored update left out: it cannot be applied', { error: String(error), ...k });
    };
  }

  /**
   * Merges the update log into a snapshot of the document in memory, once the snapshot is checked: Yjs trusts its
   * peers, and a client's corrupted updates (valid ones with a byte changed) can leave a document that its own
   * snapshot no longer reproduces (content lost on reload, or a snapshot that throws when loaded; found by fuzzing
   * the websocket, test/crdt/corrupted-updates.test.ts). Then the stored snapshot and log stay as they are, and
   * the document is dropped from memory so that it loads from them again: memory never holds what the disk does
   * not. Its clients reconnect and sync with it.
   */
  async function compact(entry: LiveDoc) {
    if (!cluster) return compactHeld(entry);
    // one instance at a time per room; another holds it: that one compacts
    const release = await cluster.lock(`compact:${keyString(entry.key)}`, COMPACT_LOCK_MS);
    if (!release) return;
    try {
      await compactHeld(entry);
    } finally {
      await release().catch((error: unknown) => app.log.warn('CRDT compaction lock not released (it expires)', { error: String(error), ...entry.key }));
    }
  }

  /**
   * In a cluster the document in memory may lack updates other instances stored (their messages still on the way):
   * the stored snapshot and log, read in the compaction's unit of work, are applied to it first, so that the snapshot
   * that replaces them holds all of them. Yjs skips what the document already has.
   */
  async function compactHeld(entry: LiveDoc) {
    // the snapshot and what it must load into are read in one turn; the load may take turns (in the worker thread)
    const checked = async () => {
      const snapshot = Buffer.from(Y.encodeStateAsUpdate(entry.doc));
      return (await reproduces(snapshot, expectedOf(entry.doc))) ? snapshot : undefined;
    };
    // dropped meanwhile (deleted, replaced or reloaded while its snapshot was checked): nothing of it is written
    const dropped = () => live.get(keyString(entry.key)) !== entry;
    let snapshot = cluster ? undefined : await checked();
    if (dropped()) return;
    const room = roomOf(entry.key);
    let corrupted = !cluster && snapshot === undefined;
    // one instance: the history's merge is planned before the unit of work (it may take the worker thread a while),
    // from the stored snapshot and log, which only this instance's flushes change, and not while this runs (inTurn)
    let plan: TrimPlan | undefined;
    if (!cluster && !corrupted && historyUpdates > 0) {
      const stored = await storage.crdt.stored(entry.scope, room);
      if (!stored || stored.row.createdAt !== entry.createdAt || dropped()) return;
      plan = await planTrim(stored.row.snapshot, stored.log);
      if (dropped()) return;
    }
    if (!corrupted)
      await storage.transaction(async () => {
        // replaced while the unit waited for its turn (an import or reset is a unit of work of its own): the row is
        // another document now, and nothing of this one is written over it
        if (dropped() || (await storage.crdt.head(entry.scope, room))?.createdAt !== entry.createdAt) return;
        const previous = await storage.crdt.snapshot(entry.scope, room);
        if (cluster) {
          applyStored(entry, previous, await storage.crdt.log(entry.scope, room));
          snapshot = await checked();
          if (dropped()) return;
          corrupted = snapshot === undefined;
          if (!snapshot) return;
        }
        // the plan made from other rows than these (never expected: the rows are this instance's to change) is not
        // written; this compaction then stores its snapshot and leaves the log as it is, for the next one to trim
        if (historyUpdates > 0 && !(plan ? await applyTrim(entry, plan, previous) : (await trimHistory(entry, previous), true))) {
          app.log.warn('CRDT history trim skipped: the stored log changed since it was planned', { ...entry.key });
        }
        await storage.crdt.setSnapshot(entry.scope, room, snapshot as Buffer, Date.now());
        if (historyUpdates === 0) await storage.crdt.deleteLog(entry.scope, room);
      });
    if (corrupted) {
      app.log.warn('CRDT document not reproduced by its own snapshot (corrupted updates from a client); reloading it from storage', { ...entry.key });
      evict(entry, 1011, 'document reloaded from storage; reconnect');
    }
  }

  /** Applies a stored snapshot and log to a loaded document, as another instance's updates (REMOTE). */
  function applyStored(entry: LiveDoc, snapshot: Uint8Array | null, log: ReadonlyArray<{ update: Uint8Array }>) {
    for (const update of [...(snapshot ? [snapshot] : []), ...log.map((l) => l.update)]) {
      try {
        Y.applyUpdate(entry.doc, update, REMOTE);
      } catch {
        // left out when the document was loaded too (storedDoc), and logged then
      }
    }
  }

  /** Sends a message to the other instances that have the room loaded. */
  function tellRoom(entry: LiveDoc, kind: number, body: Uint8Array = new Uint8Array(0), stamp = 0) {
    if (!cluster) return;
    const message = Buffer.allocUnsafe(9 + body.length);
    message[0] = kind;
    message.writeDoubleBE(stamp, 1);
    message.set(body, 9);
    cluster.publish(roomChannel(entry.key), message);
  }

  /** A message of another instance about a loaded room. */
  function heard(entry: LiveDoc, message: Buffer) {
    if (live.get(keyString(entry.key)) !== entry || message.length < 9) return;
    const kind = message[0];
    const stamp = message.readDoubleBE(1);
    const body = message.subarray(9);
    if (kind === ROOM_UPDATE) {
      entry.storedAt = stamp;
      totals.heard++;
      try {
        Y.applyUpdate(entry.doc, body, REMOTE);
      } catch (error) {
        app.log.warn('CRDT update from another instance cannot be applied', { error: String(error), ...entry.key });
      }
    } else if (kind === ROOM_AWARENESS) {
      try {
        awarenessProtocol.applyAwarenessUpdate(entry.awareness, body, REMOTE);
      } catch (error) {
        app.log.warn('presence from another instance cannot be applied', { error: String(error), ...entry.key });
      }
    } else if (kind === ROOM_QUERY) {
      const ids = [...entry.conns.values()].flatMap((controlled) => [...controlled]).filter((id) => entry.awareness.getStates().has(id));
      if (ids.length > 0) tellRoom(entry, ROOM_AWARENESS, awarenessProtocol.encodeAwarenessUpdate(entry.awareness, ids));
    } else if (kind === ROOM_CHECK) {
      void storage.crdt
        .head(entry.scope, roomOf(entry.key))
        .then((row) => {
          if (row?.createdAt === entry.createdAt) return;
          if (body[0] === REPLACED) evict(entry, REPLACED_CLOSE.code, REPLACED_CLOSE.reason);
          else evict(entry);
        })
        .catch((error: unknown) => app.log.warn('CRDT room check failed', { error: String(error), ...entry.key }));
    }
  }

  /** What a history trim writes: the log's rows `first`..`last` become one row at `first` holding `base`. */
  interface TrimPlan {
    /** The snapshot and the rows the plan was made from (checked again in the unit of work that writes it). */
    previous: Uint8Array | null;
    seqs: number[];
    merge?: { first: number; last: number; base: Uint8Array; createdAt: number };
  }

  /**
   * Plans the trim of the log: keeps the newest `historyUpdates` updates and merges the older ones into the first kept
   * row, so that the log alone rebuilds the document at every kept point. A log that does not start from the
   * beginning (a document compacted before history was kept, or seeded) gets the previous snapshot merged into its
   * first row. The merge (in the worker thread when large) runs here, outside any unit of work: it never holds the
   * writer that every tenant's writes wait for.
   */
  async function planTrim(previous: Uint8Array | null, rows: ReadonlyArray<{ seq: number; createdAt: number; update: Uint8Array }>): Promise<TrimPlan> {
    const plan: TrimPlan = { previous, seqs: rows.map((r) => r.seq) };
    if (rows.length === 0) return plan;
    const needsBase = !logCovers(
      rows.map((r) => r.update),
      previous,
    );
    const merged = Math.max(rows.length - historyUpdates, needsBase ? 1 : 0);
    if (merged === 0) return plan;
    const head = rows.slice(0, merged);
    const base = await mergeRobust([...(needsBase && previous ? [previous] : []), ...head.map((r) => r.update)]);
    const first = head[0] as (typeof rows)[number];
    const last = head[head.length - 1] as (typeof rows)[number];
    plan.merge = { first: first.seq, last: last.seq, base, createdAt: last.createdAt };
    return plan;
  }

  /** Writes a planned trim, in the caller's unit of work; false when the snapshot or log changed since it was planned. */
  async function applyTrim(entry: LiveDoc, plan: TrimPlan, previous: Uint8Array | null): Promise<boolean> {
    const room = roomOf(entry.key);
    const samePrevious = previous === null || plan.previous === null ? previous === plan.previous : Buffer.from(previous).equals(Buffer.from(plan.previous));
    if (!samePrevious) return false;
    const seqs = await storage.crdt.logSeqs(entry.scope, room);
    if (seqs.length !== plan.seqs.length || seqs.some((seq, n) => seq !== plan.seqs[n])) return false;
    if (!plan.merge) return true;
    const { first, last, base, createdAt } = plan.merge;
    await storage.crdt.mergeLog(entry.scope, room, first, last, base, createdAt);
    const known = authors.get(keyString(entry.key));
    if (known) for (const seq of plan.seqs) if (seq >= first && seq <= last) known.delete(seq);
    return true;
  }

  /** Plans and writes the trim in one go, in the caller's unit of work (a cluster's compaction, which reads the log there). */
  async function trimHistory(entry: LiveDoc, previous: Uint8Array | null): Promise<void> {
    const plan = await planTrim(previous, await storage.crdt.log(entry.scope, roomOf(entry.key)));
    await applyTrim(entry, plan, previous);
  }

  const dirty = new Set<LiveDoc>();
  let flushQueued = false;
  /** The flush in progress (flushes run one after another, each taking what was dirty when it began). */
  let flushing: Promise<void> = Promise.resolve();
  const authorOf = (origin: unknown): string | null =>
    origin && typeof origin === 'object' && 'server' in origin
      ? (origin as ServerOrigin).by
      : origin && typeof origin === 'object' && 'userId' in origin
        ? ((origin as { userId: unknown }).userId as string | null)
        : null;

  /** Remembers who sent a stored update: server writers by name, connections by user (or by API key without one). */
  function rememberAuthor(k: DocKey, seq: number, origins: unknown[]) {
    if (historyUpdates === 0) return;
    const names = [
      ...new Set(
        origins.map(
          (origin) =>
            authorOf(origin) ??
            // a connection with the key's own credentials (a backend): named by its key (issue 44)
            (origin && typeof origin === 'object' && 'ws' in origin
              ? `API key ${(origin as { scope?: { apiKeyId?: string } }).scope?.apiKeyId ?? '?'} (websocket)`
              : 'unknown'),
        ),
      ),
    ];
    const id = keyString(k);
    let known = authors.get(id);
    if (!known) {
      if (authors.size >= 10_000) authors.clear();
      authors.set(id, (known = new Map()));
    }
    known.set(seq, names.join(', '));
    if (known.size > AUTHORS_KEPT) known.delete(known.keys().next().value as number);
  }

  /**
   * Stores, then broadcasts, every update applied since the last flush: one unit of work for all documents and
   * one update per document that combines its pending ones (`encodeBatch`, linear in them; one per
   * `MAX_BATCH_UPDATES` past that). Under a burst of keystrokes this costs one commit and one message per reader
   * per event-loop turn instead of one per keystroke. If the write fails, the documents of the batch are dropped
   * from memory and their clients disconnected: they reconnect, sync from what is stored, and send their edits
   * again, so memory never holds what the disk does not. Resolves once everything dirty when it was called is
   * stored and broadcast.
   */
  function flush(): Promise<void> {
    flushQueued = false;
    const run = flushing.then(flushNow);
    // a flush that failed after its write (a broadcast that threw) fails its own callers, not the flushes after it
    flushing = run.catch(() => undefined);
    return run;
  }

  /** The turn's own flush (no caller waits for it): a failure is logged, never an unhandled rejection. */
  const flushTurn = () =>
    void flush().catch((error: unknown) => app.log.error('CRDT flush failed', { error: error instanceof Error ? error.message : String(error) }));

  /**
   * Closes the document's open batch: its pending updates encoded as one (`encodeBatch`, linear in them; a lone
   * update as it is), to be stored and broadcast by the next flush.
   */
  function seal(entry: LiveDoc) {
    const pending = entry.pending.splice(0);
    const batch = entry.batch;
    entry.batch = null;
    if (pending.length === 0 || !batch) return;
    const update = pending.length === 1 ? (pending[0] as { update: Uint8Array }).update : encodeBatch(entry.doc, batch);
    entry.sealed.push({ update, origins: pending.map((i) => i.origin) });
  }

  async function flushNow() {
    if (dirty.size === 0) return;
    const batch = [...dirty];
    dirty.clear();
    const now = Date.now();
    const items = batch.flatMap((entry) => {
      seal(entry);
      const chunks = entry.sealed.splice(0);
      return chunks.map(({ update, origins }, n) => {
        const distinct = new Set(origins);
        const only = distinct.size === 1 ? [...distinct][0] : undefined;
        const except = typeof only === 'object' && only !== null && entry.conns.has(only) ? only : undefined;
        // the document's last batch of the flush: what its content is learned from and its change told after
        const last = n === chunks.length - 1;
        return { entry, merged: update, except, origins, last, lastUpdatedBy: authorOf(origins[origins.length - 1]) };
      });
    });
    let counts: Array<number | null>;
    try {
      // Row level on PostgreSQL (docs/storage.md, "Invariants"): each append bumps its document's row and appends in
      // one statement, whose row lock orders the flushes of several instances (the second waits for the first's
      // commit, then bumps the count it left); the created_at in its WHERE finds a row made again; the debounced
      // event is opened under the outbox's unique pending key. A compaction (SERIALIZABLE) that meets a flush's bump
      // runs again, so it never drops an update appended after it read the log.
      counts = await storage.transaction(
        async () => {
          const appended = await storage.crdt.append(
            items.map((i) => ({
              scope: i.entry.scope,
              room: roomOf(i.entry.key),
              rowCreatedAt: i.entry.createdAt,
              update: i.merged,
              lastUpdatedBy: i.lastUpdatedBy,
            })),
            now,
          );
          const out: Array<number | null> = [];
          for (const [n, item] of items.entries()) {
            const written = appended[n];
            if (!written) {
              out.push(null);
              continue;
            }
            const { entry } = item;
            rememberAuthor(entry.key, written.seq, item.origins);
            if (!item.last) {
              out.push(written.updateCount);
              continue;
            }
            if (entry.infer) {
              const learned = inferContent(entry.doc, entry.infer, entry.type, entry.contentKey);
              if (learned) await settle(entry, learned.type, learned.contentKey);
            }
            await options.onChange?.(entry.scope, entry.key, now);
            out.push(written.updateCount);
          }
          return out;
        },
        { rowLevel: true },
      );
    } catch (error) {
      app.log.error('CRDT updates could not be stored; reloading the documents from storage', {
        error: error instanceof Error ? error.message : String(error),
      });
      for (const entry of batch) evict(entry, 1011, 'storage failed; reconnect');
      return;
    }
    for (const [n, { entry, merged, except, last }] of items.entries()) {
      const count = counts[n] ?? null;
      // Deleted, created again, or moved to another document id (a migration) while loaded: nothing to append to.
      if (count === null) evict(entry);
      // dropped meanwhile (an earlier batch of the document found its row gone)
      else if (live.get(keyString(entry.key)) !== entry) continue;
      else {
        totals.stored++;
        totals.sent += entry.conns.size - (except ? 1 : 0);
        entry.broadcast(encodeUpdateMessage(merged), except);
        entry.storedAt = now;
        tellRoom(entry, ROOM_UPDATE, merged, now);
        entry.lastStoredAt = now;
        if (!last) continue;
        if (count >= COMPACT_MAX_UPDATES) await compact(entry).catch(compactionFailed(entry));
        else if (count >= COMPACT_AFTER_UPDATES) compactWhenQuiet(entry);
      }
    }
  }

  const compactionFailed = (entry: LiveDoc) => (error: unknown) => app.log.error('CRDT compaction failed', { error: String(error), ...entry.key });

  /** Documents waiting for a quiet moment to be compacted, with the timer that looks again. */
  const compactTimers = new Map<LiveDoc, NodeJS.Timeout>();

  /**
   * Compacts the document once no update of it has been stored for `COMPACT_QUIET_MS`, in turn with the flushes
   * (never between a flush's write and its broadcast), if it is still loaded and still has that many updates.
   */
  function compactWhenQuiet(entry: LiveDoc) {
    if (compactTimers.has(entry)) return;
    const look = () => {
      const wait = entry.lastStoredAt + COMPACT_QUIET_MS - Date.now();
      if (wait > 0) {
        compactTimers.set(entry, setTimeout(look, wait).unref());
        return;
      }
      compactTimers.delete(entry);
      const stillLoaded = () => live.get(keyString(entry.key)) === entry;
      if (!stillLoaded()) return;
      inTurn(async () => {
        if (!stillLoaded()) return;
        const row = await storage.crdt.head(entry.scope, roomOf(entry.key));
        if (row && row.createdAt === entry.createdAt && row.updateCount >= COMPACT_AFTER_UPDATES && stillLoaded()) await compact(entry);
      }).catch(compactionFailed(entry));
    };
    compactTimers.set(entry, setTimeout(look, COMPACT_QUIET_MS).unref());
  }

  /**
   * Runs work in turn with the flushes, never while one stores. A compaction runs so: its snapshot is read, checked
   * (a large one in the worker thread, over turns) and written while no flush appends to the log it replaces.
   */
  function inTurn(work: () => Promise<void>): Promise<void> {
    const run = flushing.then(work);
    flushing = run.catch(() => undefined);
    return run;
  }

  /** Compacts a loaded document that has stored updates since its snapshot, in turn with the flushes. */
  const compactIfLogged = (entry: LiveDoc) =>
    inTurn(async () => {
      const row = await storage.crdt.head(entry.scope, roomOf(entry.key));
      if (row && row.createdAt === entry.createdAt && row.updateCount > 0 && live.get(keyString(entry.key)) === entry) await compact(entry);
    });

  function stopCompactTimer(entry: LiveDoc) {
    const timer = compactTimers.get(entry);
    if (timer) clearTimeout(timer);
    compactTimers.delete(entry);
  }

  /**
   * Fixes a room's type and content key (learned from its content), stored, and in memory once that commits: a unit
   * of work retried on PostgreSQL must find the entry still unsettled, or the retry would skip the stored settle.
   */
  async function settle(entry: LiveDoc, type: CrdtType, contentKey: string) {
    await storage.crdt.settle(entry.scope, roomOf(entry.key), type, contentKey);
    storage.afterCommit(() => Object.assign(entry, { type, contentKey, infer: 0 }));
  }

  function queue(entry: LiveDoc, update: Uint8Array, origin: unknown, transaction: Y.Transaction) {
    entry.batch = addToBatch(entry.batch, transaction, update.length);
    entry.pending.push({ update, origin });
    if (entry.pending.length >= MAX_BATCH_UPDATES || entry.batch.bytes >= MAX_BATCH_BYTES) seal(entry);
    dirty.add(entry);
    // A server-side write (REST) waits for `flush` itself (transact's caller); a client's waits for the turn's end.
    if (!flushQueued) {
      flushQueued = true;
      setImmediate(flushTurn);
    }
  }

  /** Drops a loaded document whose stored row is gone, disconnecting its clients. */
  function evict(entry: LiveDoc, code = 4404, reason = 'document deleted or moved') {
    const id = keyString(entry.key);
    if (live.get(id) !== entry) return;
    live.delete(id);
    entry.leave?.();
    dirty.delete(entry);
    stopCompactTimer(entry);
    entry.pending.length = 0;
    entry.batch = null;
    entry.sealed.length = 0;
    for (const conn of entry.conns.keys()) (conn as { ws?: { close(code: number, reason: string): void } }).ws?.close(code, reason);
    entry.awareness.destroy();
    entry.doc.destroy();
  }

  /**
   * Compacts and unloads the documents idle for `idleMs`. Background work: it lets the event loop turn between
   * documents. Storage calls resolve without leaving the turn (better-sqlite3 is synchronous), so a sweep of 1,000
   * documents held the loop for 0.4–0.6 s in one piece, and every update arriving meanwhile waited that long
   * (issue 31's steady-rate bench, 30 s after its 1,000-room scenario).
   */
  async function unloadIfIdle() {
    await flush();
    const now = Date.now();
    for (const [id, entry] of live) {
      if (entry.conns.size === 0 && now - entry.lastActivity >= idleMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        // taken up again meanwhile (a client, a REST read): not idle any more
        if (live.get(id) !== entry || entry.conns.size > 0 || Date.now() - entry.lastActivity < idleMs) continue;
        await compactIfLogged(entry);
        // dropped by compact, or taken up again meanwhile (a client, or a REST call that holds it to write)
        if (live.get(id) !== entry || entry.conns.size > 0 || dirty.has(entry) || Date.now() - entry.lastActivity < idleMs) continue;
        stopCompactTimer(entry);
        entry.awareness.destroy();
        entry.doc.destroy();
        live.delete(id);
        entry.leave?.();
        // their heap is garbage now, but an idle server allocates too little for V8 to collect it (heap.ts)
        collectSoon();
      }
    }
  }
  let sweeping: Promise<void> | undefined;
  const sweeper = setInterval(
    () => {
      sweeping ??= unloadIfIdle()
        .catch((error: unknown) => app.log.error('CRDT idle sweep failed', { error: String(error) }))
        .finally(() => (sweeping = undefined));
    },
    Math.max(50, Math.min(idleMs, 5_000)),
  );
  sweeper.unref();

  /** Once the caller's unit of work commits: the other instances drop the room if its stored row is gone. */
  function tellOthersToCheck(k: DocKey, replaced = false) {
    if (!cluster) return;
    const message = Buffer.alloc(replaced ? 10 : 9);
    message[0] = ROOM_CHECK;
    if (replaced) message[9] = REPLACED;
    storage.afterCommit(() => cluster.publish(roomChannel(k), message));
  }

  async function loadNow(scope: TenantScope, room: RoomId, id: string): Promise<LiveDoc | undefined> {
    const k = keyOf(scope, room);
    const loaded = live.get(id);
    if (loaded) {
      const head = await storage.crdt.head(scope, room);
      if (head?.createdAt === loaded.createdAt && live.get(id) === loaded) {
        loaded.lastActivity = Date.now();
        // another instance learned the room's type and content key from what its client wrote
        if (cluster && loaded.infer !== 0) {
          const row = await storage.crdt.find(scope, room);
          if (row?.createdAt === loaded.createdAt && row.infer === 0) Object.assign(loaded, { type: row.type, contentKey: row.contentKey, infer: 0 });
        }
        // another instance stored an update whose message has not arrived yet: read it, so that a reader (a REST
        // call, a new connection) sees every update stored before it asked, on whichever instance
        if (cluster && head.updatedAt !== loaded.storedAt) {
          const stored = await storage.crdt.stored(scope, room);
          if (stored && stored.row.createdAt === loaded.createdAt && live.get(id) === loaded) {
            applyStored(loaded, stored.row.snapshot, stored.log);
            loaded.storedAt = stored.row.updatedAt;
          }
        }
        return loaded;
      }
      evict(loaded);
    }
    // In a cluster, the room's channel is heard before storage is read: an update another instance stores meanwhile
    // is in what is read, or in a message heard (or both: Yjs applies an update once).
    let target: LiveDoc | undefined;
    const early: Buffer[] = [];
    const leave = await cluster?.subscribe(roomChannel(k), (message) => (target ? heard(target, message) : early.push(message)));
    let stored: Awaited<ReturnType<typeof storage.crdt.stored>>;
    try {
      stored = await storage.crdt.stored(scope, room);
    } catch (error) {
      leave?.();
      throw error;
    }
    if (!stored || live.has(id)) {
      leave?.();
      return stored ? live.get(id) : undefined;
    }
    const updates = stored.log.map((l) => l.update);
    let doc: Y.Doc;
    if ((stored.row.snapshot?.length ?? 0) + updates.reduce((sum, u) => sum + u.length, 0) <= OFFLOAD_BYTES) {
      // A snapshot or update that cannot be applied throws here: the caller fails, and nothing empty is ever stored.
      doc = storedDoc(k, stored.row.snapshot, updates);
    } else {
      // A large one is built a turn at a time (buildDocInTurns). Should the room be deleted or replaced meanwhile, it is
      // read again. Updates another instance stores meanwhile need no second read: the room's channel is heard
      // already (`early`, applied below), and a compaction there changes no content; a second read for them would
      // start over for as long as someone writes.
      try {
        doc = await buildDocInTurns(stored.row.snapshot, updates, leftOut(k));
      } catch (error) {
        leave?.();
        throw error;
      }
      const built = doc;
      const head = await storage.crdt.head(scope, room).catch((error: unknown) => {
        built.destroy();
        leave?.();
        throw error;
      });
      if (live.has(id) || !head || head.createdAt !== stored.row.createdAt) {
        doc.destroy();
        leave?.();
        return live.get(id) ?? (head ? loadNow(scope, room, id) : undefined);
      }
    }
    const awareness = new awarenessProtocol.Awareness(doc);
    awareness.setLocalState(null);
    const entry: LiveDoc = {
      key: k,
      scope,
      type: stored.row.type,
      contentKey: stored.row.contentKey,
      infer: stored.row.infer,
      createdAt: stored.row.createdAt,
      doc,
      awareness,
      conns: new Map(),
      lastActivity: Date.now(),
      lastStoredAt: 0,
      broadcast: () => undefined,
      pending: [],
      batch: null,
      sealed: [],
      storedAt: stored.row.updatedAt,
      leave,
    };
    doc.on('update', (update: Uint8Array, origin: unknown, _doc: Y.Doc, transaction: Y.Transaction) => {
      entry.lastActivity = Date.now();
      // stored by the instance that accepted it: this one only tells its own clients
      if (origin === REMOTE) {
        totals.sent += entry.conns.size;
        entry.broadcast(encodeUpdateMessage(update));
      } else queue(entry, update, origin, transaction);
    });
    if (cluster) {
      awareness.on('update', ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
        // each instance times out the presence it holds by itself
        if (origin === REMOTE || origin === 'timeout') return;
        tellRoom(entry, ROOM_AWARENESS, awarenessProtocol.encodeAwarenessUpdate(awareness, [...added, ...updated, ...removed]));
      });
    }
    live.set(id, entry);
    target = entry;
    for (const message of early.splice(0)) heard(entry, message);
    tellRoom(entry, ROOM_QUERY);
    return entry;
  }

  return {
    find: (scope: TenantScope, room: RoomId) => storage.crdt.find(scope, room),
    liveCount: () => live.size,

    /**
     * Creates the stored document (no content yet); the caller writes content through `transact`. False when the
     * room has one already (another client or request made it first), which is left as it is.
     */
    async create(scope: TenantScope, room: RoomId, type: CrdtType, contentKey: string, infer = 0) {
      const now = Date.now();
      if (!(await storage.crdt.create(scope, room, { type, contentKey, infer, now }))) return false;
      // A document still loaded under this key belongs to a row deleted meanwhile (a document delete): drop it. Only
      // once the row is made (a create that fails, another client having made the room first, leaves the loaded one
      // be), and not the row just made, which another client's load may have found already.
      const stale = live.get(keyString(keyOf(scope, room)));
      if (stale && stale.createdAt !== now) evict(stale);
      return true;
    },

    /** The loaded document, loading it from storage first when needed; undefined when none is stored. */
    async load(scope: TenantScope, room: RoomId): Promise<LiveDoc | undefined> {
      // A reader (REST get, a new connection) sees only what is stored.
      if (dirty.size > 0) await flush();
      const id = keyString(keyOf(scope, room));
      const pending = loading.get(id);
      if (pending) return pending;
      const loaded = loadNow(scope, room, id).finally(() => loading.delete(id));
      loading.set(id, loaded);
      return loaded;
    },

    /**
     * Drops the document from memory (if loaded) and disconnects its clients, with a code they reconnect on (the
     * rows were replaced: a reset or an import); its rows are the caller's to change.
     */
    forget(k: DocKey) {
      const entry = live.get(keyString(k));
      if (entry) evict(entry, REPLACED_CLOSE.code, REPLACED_CLOSE.reason);
      tellOthersToCheck(k, true);
    },

    /** The document already in memory, without looking at storage (the websocket's re-checks). */
    loaded: (scope: TenantScope, room: RoomId) => live.get(keyString(keyOf(scope, room))),

    /**
     * Applies a server-side change in one Yjs transaction, then stores and broadcasts it: resolves once it is
     * stored (a REST call answers after that).
     */
    async transact(entry: LiveDoc, origin: ServerOrigin, change: (doc: Y.Doc) => void) {
      entry.doc.transact(() => change(entry.doc), origin);
      await flush();
    },

    settle,

    /** Removes the stored document and disconnects its clients; whether it existed. */
    async remove(scope: TenantScope, room: RoomId) {
      const entry = live.get(keyString(keyOf(scope, room)));
      if (entry) evict(entry);
      const removed = await storage.crdt.remove(scope, room);
      tellOthersToCheck(keyOf(scope, room));
      return removed;
    },

    /** Stores and unloads every document (on shutdown). */
    async flushAll() {
      await flush();
      for (const entry of [...live.values()]) await compactIfLogged(entry);
    },

    /** Stores and broadcasts pending updates now (before a client is sent the document's state). */
    flush,

    /** Whether updates wait to be stored. */
    hasPending: () => dirty.size > 0,

    /** The stored snapshot and update log of a document, oldest first (after pending updates are stored). */
    async log(scope: TenantScope, room: RoomId): Promise<{ snapshot: Uint8Array | null; entries: LogEntry[] } | undefined> {
      if (dirty.size > 0) await flush();
      const stored = await storage.crdt.stored(scope, room);
      return stored ? { snapshot: stored.row.snapshot, entries: stored.log } : undefined;
    },

    /** Who sent a stored update, when this process stored it (the log itself keeps no author). */
    authorOf(k: DocKey, seq: number): string | null {
      return authors.get(keyString(k))?.get(seq) ?? null;
    },

    /** How many stored updates of each document are kept as history. */
    historyUpdates,

    /** Websocket connections open to every loaded document (the admin dashboard's gauge). */
    totalConnections(): number {
      let n = 0;
      for (const entry of live.values()) n += entry.conns.size;
      return n;
    },

    /**
     * Updates stored (one a document per flush: the updates of one event-loop turn merged), update messages sent to
     * this instance's clients, and updates heard from other instances of the cluster, since the process started.
     */
    totals: () => ({ ...totals }),

    /** Clients connected to the document now (0 when it is not loaded). */
    connections(k: DocKey): number {
      return live.get(keyString(k))?.conns.size ?? 0;
    },

    /**
     * Where a user is connected now, on this instance: the documents of the key that have a connection opened with
     * the user's token, how many, whether they may write, and the presence (awareness) states those connections set.
     * A state is the client's own JSON: one over PRESENCE_STATE_CHARS is named by its size instead.
     */
    presenceOf(apiKeyId: string, userId: string): UserPresence[] {
      const found: UserPresence[] = [];
      for (const entry of live.values()) {
        if (entry.key.apiKeyId !== apiKeyId) continue;
        let connections = 0;
        let writable = false;
        const states: unknown[] = [];
        for (const [conn, controlled] of entry.conns) {
          const c = conn as { userId?: string | null; readOnly?: boolean };
          if (c.userId !== userId) continue;
          connections++;
          writable ||= c.readOnly === false;
          for (const id of controlled) {
            const state = entry.awareness.getStates().get(id);
            if (state === undefined) continue;
            const json = JSON.stringify(state);
            states.push(json.length <= PRESENCE_STATE_CHARS ? state : { omitted: `a presence state of ${json.length} characters` });
          }
        }
        const { organizationId, documentId, editorId } = entry.key;
        if (connections > 0) found.push({ organizationId, documentId, editorId, connections, writable, states });
      }
      return found.sort((a, b) => keyString({ apiKeyId, ...a }).localeCompare(keyString({ apiKeyId, ...b })));
    },

    close() {
      clearInterval(sweeper);
      for (const timer of compactTimers.values()) clearTimeout(timer);
      compactTimers.clear();
    },

    unloadIfIdle,
  };
}

export type CrdtStore = ReturnType<typeof createCrdtStore>;

export const MESSAGE_SYNC = 0;
export const MESSAGE_AWARENESS = 1;

export function encodeUpdateMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  syncProtocol.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}
