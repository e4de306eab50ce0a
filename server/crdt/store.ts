import { and, asc, eq, sql } from 'drizzle-orm';
import * as encoding from 'lib0/encoding';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import type { AppContext } from '../context.ts';
import { transaction, type Db } from '../db/client.ts';
import { crdtDocuments, crdtUpdates } from '../db/schema.ts';
import { contentJson, inferContent, type CrdtType } from './content.ts';

export interface DocKey {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  editorId: string;
}

/** Who made a change: a websocket connection, or a server-side writer (REST, later AI) named by `by`. */
export interface ServerOrigin {
  server: true;
  by: string;
}

export interface LiveDoc {
  key: DocKey;
  type: CrdtType;
  contentKey: string;
  /** Which of `type` and `contentKey` are still to be learned from the content (`INFER_*` bits; 0 once known). */
  infer: number;
  /**
   * The stored row's `created_at`: which incarnation of the key this is. A row deleted behind the store's back
   * (a document, organization or API key deleted in SQL) and created again is another document: the loaded one
   * is dropped, never reused, compacted into or appended to.
   */
  createdAt: number;
  doc: Y.Doc;
  awareness: awarenessProtocol.Awareness;
  /** Connections and the awareness client ids each controls. */
  conns: Map<object, Set<number>>;
  lastActivity: number;
  /** Sends an encoded message to every connection but `except`. */
  broadcast: (message: Uint8Array, except?: object) => void;
  /** Updates applied in memory, not yet stored nor broadcast (stored at the end of the event-loop turn). */
  pending: Array<{ update: Uint8Array; origin: unknown }>;
}

export type CrdtRow = typeof crdtDocuments.$inferSelect;

const COMPACT_AFTER_UPDATES = 200;
/** Stored updates of each document kept as history by default (`crdtHistoryUpdates`, CRDT_HISTORY_UPDATES). */
export const DEFAULT_HISTORY_UPDATES = 1000;
/** Authors remembered per loaded document (who sent which stored update), for the history view. */
const AUTHORS_KEPT = 2000;

/** One stored update of a document's log: the history's unit. */
export interface LogEntry {
  seq: number;
  createdAt: number;
  update: Uint8Array;
}

/** Applies updates one by one (a corrupted one is left out) and returns the document's full state. */
function mergeRobust(updates: Uint8Array[]): Uint8Array {
  try {
    return Y.mergeUpdates(updates);
  } catch {
    const doc = new Y.Doc({ gc: true });
    try {
      for (const update of updates) {
        try {
          Y.applyUpdate(doc, update);
        } catch {
          // left out, as storedDoc does
        }
      }
      return Y.encodeStateAsUpdate(doc);
    } finally {
      doc.destroy();
    }
  }
}

/**
 * Whether every change in `snapshot` is also in `updates` (its state vector is covered by theirs): read from the
 * updates' metadata, without building the document; a log that cannot be merged counts as not covering.
 */
export function logCovers(updates: Uint8Array[], snapshot: Uint8Array | null): boolean {
  if (!snapshot) return true;
  try {
    const wanted = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(snapshot));
    if (wanted.size === 0) return true;
    if (updates.length === 0) return false;
    const { from, to } = Y.parseUpdateMeta(updates.length === 1 ? (updates[0] as Uint8Array) : Y.mergeUpdates(updates));
    for (const [client, clock] of wanted) if (from.get(client) !== 0 || (to.get(client) ?? 0) < clock) return false;
    return true;
  } catch {
    return false;
  }
}

type RootTypes = Map<string, typeof Y.AbstractType<unknown>>;

/** The root types of documents by name, each with the constructor of the first document that has it. */
function rootTypes(...docs: Y.Doc[]): RootTypes {
  const types: RootTypes = new Map();
  for (const doc of docs) for (const [name, type] of doc.share) if (!types.has(name)) types.set(name, type.constructor as typeof Y.AbstractType<unknown>);
  return types;
}

/**
 * A document's root types as JSON, each read as `types` has it, so that two documents compare alike (a root only
 * one of them has is read as an empty one in the other).
 */
function contentOf(doc: Y.Doc, types: RootTypes): string {
  return contentJson([...types].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, type]) => [name, doc.get(name, type).toJSON()]));
}

/**
 * Whether a snapshot of `doc` loads into a document of the same content (every root type's JSON, each read as
 * `doc` types it) and the same state vector (every update of every client); false when it throws.
 */
function reproduces(snapshot: Uint8Array, doc: Y.Doc): boolean {
  const copy = new Y.Doc({ gc: true });
  try {
    Y.applyUpdate(copy, snapshot);
    const types = rootTypes(doc, copy);
    return contentOf(copy, types) === contentOf(doc, types) && Buffer.from(Y.encodeStateVector(copy)).equals(Y.encodeStateVector(doc));
  } catch {
    return false;
  } finally {
    copy.destroy();
  }
}

const keyString = (k: DocKey) => JSON.stringify([k.apiKeyId, k.organizationId, k.documentId, k.editorId]);
const logOf = (k: DocKey) => and(eq(crdtUpdates.apiKeyId, k.apiKeyId), eq(crdtUpdates.organizationId, k.organizationId), eq(crdtUpdates.documentId, k.documentId), eq(crdtUpdates.editorId, k.editorId));
const where = (k: DocKey) =>
  and(eq(crdtDocuments.apiKeyId, k.apiKeyId), eq(crdtDocuments.organizationId, k.organizationId), eq(crdtDocuments.documentId, k.documentId), eq(crdtDocuments.editorId, k.editorId));

/**
 * The Yjs documents Hearth holds. Loading reads the snapshot and the updates after it synchronously from SQLite,
 * so it is complete before a client is answered. Every update is appended to the update log before it is
 * broadcast, before a REST call answers and before a client is sent the document's state: what anyone was told
 * is on disk. Updates of one event-loop turn are stored together (`flush`). The log is
 * merged into the snapshot past a threshold and when an idle document is unloaded.
 *
 * History (the admin UI's document history and restore): compaction writes the whole state as the snapshot
 * (what loading starts from) but keeps the newest `historyUpdates` updates of the log, older ones merged into
 * the first kept row, so that the log alone rebuilds the document at any kept point. Loading applies the log over
 * the snapshot again, which Yjs ignores (every kept update is already in it). `historyUpdates: 0` deletes the
 * log at each compaction, as before there was history.
 */
export function createCrdtStore(app: Pick<AppContext, 'db' | 'log'>, options: { idleMs?: number; historyUpdates?: number; onChange?: (tx: Db, key: DocKey, now: number) => void } = {}) {
  const idleMs = options.idleMs ?? 30_000;
  const historyUpdates = options.historyUpdates ?? DEFAULT_HISTORY_UPDATES;
  const live = new Map<string, LiveDoc>();
  /** Who sent each stored update (by log seq), per document, while this process runs: the log keeps no author. */
  const authors = new Map<string, Map<number, string>>();

  const find = (k: DocKey): CrdtRow | undefined => app.db.select().from(crdtDocuments).where(where(k)).get();
  const placeholders = {
    apiKeyId: sql.placeholder('apiKeyId'),
    organizationId: sql.placeholder('organizationId'),
    documentId: sql.placeholder('documentId'),
    editorId: sql.placeholder('editorId'),
  } as unknown as DocKey;
  // The write path of every keystroke: statements prepared once (drizzle would rebuild and recompile them).
  const statements = {
    bump: app.db
      .update(crdtDocuments)
      .set({ updateCount: sql`${crdtDocuments.updateCount} + 1`, updatedAt: sql.placeholder('updatedAt') as unknown as number, lastUpdatedBy: sql.placeholder('lastUpdatedBy') as unknown as string })
      .where(and(where(placeholders), eq(crdtDocuments.createdAt, sql.placeholder('rowCreatedAt'))))
      .returning({ updateCount: crdtDocuments.updateCount })
      .prepare(),
    // The stored row without its snapshot (which can be megabytes): what checking a loaded document needs.
    head: app.db
      .select({ createdAt: crdtDocuments.createdAt, updateCount: crdtDocuments.updateCount })
      .from(crdtDocuments)
      .where(where(placeholders))
      .prepare(),
    settle: app.db
      .update(crdtDocuments)
      .set({ type: sql.placeholder('type') as unknown as CrdtType, contentKey: sql.placeholder('contentKey') as unknown as string, infer: 0 })
      .where(where(placeholders))
      .prepare(),
    append: app.db
      .insert(crdtUpdates)
      .values({ ...placeholders, update: sql.placeholder('update') as unknown as Buffer, createdAt: sql.placeholder('createdAt') as unknown as number })
      .prepare(),
  };

  /**
   * The stored document: its snapshot and the updates after it, merged. Should the merged log not apply (Yjs
   * trusts its peers, and a client's corrupted updates can make its merge fail), the updates are applied one by
   * one and any that fails is left out, so that a document always loads. Throws when the snapshot cannot be applied.
   */
  function storedDoc(k: DocKey, snapshot: Uint8Array | null): Y.Doc {
    const doc = new Y.Doc({ gc: true });
    if (snapshot) Y.applyUpdate(doc, snapshot);
    const updates = app.db
      .select({ update: crdtUpdates.update })
      .from(crdtUpdates)
      .where(and(eq(crdtUpdates.apiKeyId, k.apiKeyId), eq(crdtUpdates.organizationId, k.organizationId), eq(crdtUpdates.documentId, k.documentId), eq(crdtUpdates.editorId, k.editorId)))
      .orderBy(asc(crdtUpdates.seq))
      .all();
    if (updates.length === 0) return doc;
    try {
      Y.applyUpdate(doc, Y.mergeUpdates(updates.map((u) => u.update)));
      return doc;
    } catch (error) {
      doc.destroy();
      app.log.warn('CRDT update log does not apply merged; applying its updates one by one', { error: String(error), ...k });
    }
    const again = new Y.Doc({ gc: true });
    if (snapshot) Y.applyUpdate(again, snapshot);
    for (const { update } of updates) {
      try {
        Y.applyUpdate(again, update);
      } catch (error) {
        app.log.warn('CRDT stored update left out: it cannot be applied', { error: String(error), ...k });
      }
    }
    return again;
  }

  /**
   * Merges the update log into a snapshot of the document in memory, once the snapshot is checked: Yjs trusts its
   * peers, and a client's corrupted updates (valid ones with a byte changed) can leave a document that its own
   * snapshot no longer reproduces (content lost on reload, or a snapshot that throws when loaded; found by fuzzing
   * the websocket, test/crdt/corrupted-updates.test.ts). Then the stored snapshot and log stay as they are, and
   * the document is dropped from memory so that it loads from them again: memory never holds what the disk does
   * not. Its clients reconnect and sync with it.
   */
  function compact(entry: LiveDoc) {
    const snapshot = Buffer.from(Y.encodeStateAsUpdate(entry.doc));
    if (!reproduces(snapshot, entry.doc)) {
      app.log.warn('CRDT document not reproduced by its own snapshot (corrupted updates from a client); reloading it from storage', { ...entry.key });
      evict(entry, 1011, 'document reloaded from storage; reconnect');
      return;
    }
    transaction(app.db, (tx) => {
      const previous = tx.select({ snapshot: crdtDocuments.snapshot }).from(crdtDocuments).where(where(entry.key)).get()?.snapshot ?? null;
      tx.update(crdtDocuments).set({ snapshot, updateCount: 0, compactedAt: Date.now() }).where(where(entry.key)).run();
      if (historyUpdates === 0 || !trimHistory(tx, entry.key, previous)) tx.delete(crdtUpdates).where(logOf(entry.key)).run();
    });
  }

  /**
   * Keeps the newest `historyUpdates` updates of the log and merges the older ones into the first kept row, so that
   * the log alone rebuilds the document at every kept point. A log that does not start from the beginning (a
   * document compacted before history was kept, or seeded) gets the previous snapshot merged into its first row.
   * False when the log cannot be kept (it does not rebuild the document): the caller then deletes it.
   */
  function trimHistory(tx: Db, k: DocKey, previousSnapshot: Uint8Array | null): boolean {
    const rows = tx.select({ seq: crdtUpdates.seq, createdAt: crdtUpdates.createdAt, update: crdtUpdates.update }).from(crdtUpdates).where(logOf(k)).orderBy(asc(crdtUpdates.seq)).all();
    if (rows.length === 0) return true;
    const needsBase = !logCovers(rows.map((r) => r.update), previousSnapshot);
    const merged = Math.max(rows.length - historyUpdates, needsBase ? 1 : 0);
    if (merged === 0) return true;
    const head = rows.slice(0, merged);
    const base = mergeRobust([...(needsBase && previousSnapshot ? [previousSnapshot] : []), ...head.map((r) => r.update)]);
    const first = head[0] as (typeof rows)[number];
    const last = head[head.length - 1] as (typeof rows)[number];
    tx.update(crdtUpdates).set({ update: Buffer.from(base), createdAt: last.createdAt }).where(eq(crdtUpdates.seq, first.seq)).run();
    if (head.length > 1) tx.delete(crdtUpdates).where(and(logOf(k), sql`${crdtUpdates.seq} > ${first.seq}`, sql`${crdtUpdates.seq} <= ${last.seq}`)).run();
    const known = authors.get(keyString(k));
    if (known) for (const row of head) known.delete(row.seq);
    return true;
  }

  const dirty = new Set<LiveDoc>();
  let flushQueued = false;
  const authorOf = (origin: unknown): string | null =>
    origin && typeof origin === 'object' && 'server' in origin ? (origin as ServerOrigin).by : origin && typeof origin === 'object' && 'userId' in origin ? ((origin as { userId: unknown }).userId as string | null) : null;

  /** Remembers who sent a stored update: server writers by name, connections by user (or "websocket client"). */
  function rememberAuthor(k: DocKey, seq: number, origins: unknown[]) {
    if (historyUpdates === 0) return;
    const names = [...new Set(origins.map((origin) => authorOf(origin) ?? (origin && typeof origin === 'object' && 'ws' in origin ? 'websocket client' : 'unknown')))];
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
   * Stores, then broadcasts, every update applied since the last flush: one transaction for all documents and
   * one merged update per document. Under a burst of keystrokes this costs one commit and one message per reader
   * per event-loop turn instead of one per keystroke. If the write fails, the documents of the batch are dropped
   * from memory and their clients disconnected: they reconnect, sync from what is stored, and send their edits
   * again, so memory never holds what the disk does not.
   */
  function flush() {
    flushQueued = false;
    if (dirty.size === 0) return;
    const batch = [...dirty];
    dirty.clear();
    const now = Date.now();
    let written: Array<{ entry: LiveDoc; merged: Uint8Array; except: object | undefined; count: number | null }>;
    try {
      written = transaction(app.db, (tx) =>
        batch.map((entry) => {
          const items = entry.pending.splice(0);
          const merged = items.length === 1 ? (items[0] as { update: Uint8Array }).update : Y.mergeUpdates(items.map((i) => i.update));
          const origins = new Set(items.map((i) => i.origin));
          const only = origins.size === 1 ? [...origins][0] : undefined;
          const except = typeof only === 'object' && only !== null && entry.conns.has(only) ? only : undefined;
          const k = entry.key;
          const row = statements.bump.get({ ...k, rowCreatedAt: entry.createdAt, updatedAt: now, lastUpdatedBy: authorOf(items[items.length - 1]?.origin) });
          // Deleted, created again, or moved to another document id (a migration) while loaded: nothing to append to.
          if (!row) return { entry, merged, except, count: null };
          const appended = statements.append.run({ ...k, update: Buffer.from(merged), createdAt: now });
          rememberAuthor(k, Number(appended.lastInsertRowid), items.map((i) => i.origin));
          if (entry.infer) {
            const learned = inferContent(entry.doc, entry.infer, entry.type, entry.contentKey);
            if (learned) settle(entry, learned.type, learned.contentKey);
          }
          options.onChange?.(tx, k, now);
          return { entry, merged, except, count: row.updateCount };
        }),
      );
    } catch (error) {
      app.log.error('CRDT updates could not be stored; reloading the documents from storage', { error: error instanceof Error ? error.message : String(error) });
      for (const entry of batch) evict(entry, 1011, 'storage failed; reconnect');
      return;
    }
    for (const { entry, merged, except, count } of written) {
      if (count === null) evict(entry);
      else {
        entry.broadcast(encodeUpdateMessage(merged), except);
        if (count >= COMPACT_AFTER_UPDATES) compact(entry);
      }
    }
  }

  /** Fixes a room's type and content key (learned from its content, or given by a REST write), in memory and stored. */
  function settle(entry: LiveDoc, type: CrdtType, contentKey: string) {
    statements.settle.run({ ...entry.key, type, contentKey });
    Object.assign(entry, { type, contentKey, infer: 0 });
  }

  function queue(entry: LiveDoc, update: Uint8Array, origin: unknown) {
    entry.pending.push({ update, origin });
    dirty.add(entry);
    // A server-side write (REST) answers only after its change is stored: flush now.
    if (origin && typeof origin === 'object' && 'server' in origin) flush();
    else if (!flushQueued) {
      flushQueued = true;
      setImmediate(flush);
    }
  }

  /** Drops a loaded document whose stored row is gone, disconnecting its clients. */
  function evict(entry: LiveDoc, code = 4404, reason = 'document deleted or moved') {
    const id = keyString(entry.key);
    if (live.get(id) !== entry) return;
    live.delete(id);
    dirty.delete(entry);
    entry.pending.length = 0;
    for (const conn of entry.conns.keys()) (conn as { ws?: { close(code: number, reason: string): void } }).ws?.close(code, reason);
    entry.awareness.destroy();
    entry.doc.destroy();
  }

  function unloadIfIdle() {
    flush();
    const now = Date.now();
    for (const [id, entry] of live) {
      if (entry.conns.size === 0 && now - entry.lastActivity >= idleMs) {
        const row = statements.head.get({ ...entry.key });
        if (row && row.createdAt === entry.createdAt && row.updateCount > 0) compact(entry);
        if (live.get(id) !== entry) continue; // dropped by compact
        entry.awareness.destroy();
        entry.doc.destroy();
        live.delete(id);
      }
    }
  }
  const sweeper = setInterval(unloadIfIdle, Math.max(50, Math.min(idleMs, 5_000)));
  sweeper.unref();

  return {
    find,
    liveCount: () => live.size,

    /** Creates the stored document (no content yet); the caller writes content through `transact`. */
    create(k: DocKey, type: CrdtType, contentKey: string, infer = 0) {
      // A document still loaded under this key belongs to a row deleted in SQL (a document delete): drop it.
      const stale = live.get(keyString(k));
      if (stale) evict(stale);
      const now = Date.now();
      app.db.insert(crdtDocuments).values({ ...k, type, contentKey, infer, snapshot: null, updateCount: 0, createdAt: now, updatedAt: now }).run();
    },

    /** The loaded document, loading it from SQLite first when needed; undefined when none is stored. */
    load(k: DocKey): LiveDoc | undefined {
      // A reader (REST get, a new connection) sees only what is stored.
      if (dirty.size > 0) flush();
      const id = keyString(k);
      const loaded = live.get(id);
      if (loaded) {
        if (statements.head.get({ ...k })?.createdAt === loaded.createdAt) {
          loaded.lastActivity = Date.now();
          return loaded;
        }
        evict(loaded);
      }
      const row = find(k);
      if (!row) return undefined;
      // A snapshot or update that cannot be applied throws here: the caller fails, and nothing empty is ever stored.
      const doc = storedDoc(k, row.snapshot);
      const awareness = new awarenessProtocol.Awareness(doc);
      awareness.setLocalState(null);
      const entry: LiveDoc = {
        key: { ...k },
        type: row.type,
        contentKey: row.contentKey,
        infer: row.infer,
        createdAt: row.createdAt,
        doc,
        awareness,
        conns: new Map(),
        lastActivity: Date.now(),
        broadcast: () => undefined,
        pending: [],
      };
      doc.on('update', (update: Uint8Array, origin: unknown) => {
        entry.lastActivity = Date.now();
        queue(entry, update, origin);
      });
      live.set(id, entry);
      return entry;
    },

    /** Applies a server-side change in one Yjs transaction (persisted and broadcast by the update handler). */
    transact(entry: LiveDoc, origin: ServerOrigin, change: (doc: Y.Doc) => void) {
      entry.doc.transact(() => change(entry.doc), origin);
    },

    settle,

    /** Removes the stored document and disconnects its clients. */
    remove(k: DocKey) {
      const id = keyString(k);
      const entry = live.get(id);
      if (entry) evict(entry);
      return app.db.delete(crdtDocuments).where(where(k)).run().changes > 0;
    },

    /** Stores and unloads every document (on shutdown). */
    flushAll() {
      flush();
      for (const entry of live.values()) {
        const row = statements.head.get({ ...entry.key });
        if (row && row.createdAt === entry.createdAt && row.updateCount > 0) compact(entry);
      }
    },

    /** Stores and broadcasts pending updates now (before a client is sent the document's state). */
    flush,

    /** The stored snapshot and update log of a document, oldest first (after pending updates are stored). */
    log(k: DocKey): { snapshot: Uint8Array | null; entries: LogEntry[] } | undefined {
      if (dirty.size > 0) flush();
      return app.db.transaction((tx) => {
        const row = tx.select({ snapshot: crdtDocuments.snapshot }).from(crdtDocuments).where(where(k)).get();
        if (!row) return undefined;
        const entries = tx.select({ seq: crdtUpdates.seq, createdAt: crdtUpdates.createdAt, update: crdtUpdates.update }).from(crdtUpdates).where(logOf(k)).orderBy(asc(crdtUpdates.seq)).all();
        return { snapshot: row.snapshot, entries };
      });
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

    /** Clients connected to the document now (0 when it is not loaded). */
    connections(k: DocKey): number {
      return live.get(keyString(k))?.conns.size ?? 0;
    },

    close() {
      clearInterval(sweeper);
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
