import fc from 'fast-check';
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';

/** A real y-websocket client (the library browsers use) connected to Hearth's /yjs endpoint. */
export function connectYjs(
  baseUrl: string,
  room: { organizationId: string; documentId: string; editorId: string },
  params: Record<string, string>,
  socket: typeof WebSocket = WebSocket,
) {
  const doc = new Y.Doc();
  const url = baseUrl.replace(/^http/, 'ws') + '/yjs';
  const name = [room.organizationId, room.documentId, room.editorId].map(encodeURIComponent).join('/');
  const provider = new WebsocketProvider(url, name, doc, { WebSocketPolyfill: socket as never, params, disableBc: true, connect: true });
  const synced = new Promise<void>((resolve) => {
    if (provider.synced) resolve();
    provider.on('sync', (isSynced: boolean) => isSynced && resolve());
  });
  return {
    doc,
    provider,
    synced,
    close() {
      provider.destroy();
      doc.destroy();
    },
  };
}

/**
 * Nests `depth` XML elements (`<p>` in `<p>`…) in `doc`'s fragment `name`, in one transaction (one per level costs
 * quadratic time): issue 42's hostile document (30,000 levels: 313 KB as one update).
 */
export function nestXml(doc: Y.Doc, name: string, depth: number): Y.Doc {
  doc.transact(() => {
    let current = new Y.XmlElement('p');
    doc.getXmlFragment(name).insert(0, [current]);
    for (let i = 1; i < depth; i++) {
      const next = new Y.XmlElement('p');
      current.insert(0, [next]);
      current = next;
    }
  });
  return doc;
}

/**
 * How a websocket upgrade to `path` (under `baseUrl`) is answered: 101 when it opens, else the refusal's status
 * and body. `origin` sends an Origin header, as a browser page of that origin does.
 */
export const upgradeAnswer = (baseUrl: string, path: string, options: { origin?: string } = {}) =>
  new Promise<{ status: number; body: string }>((resolve) => {
    const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + path, options.origin === undefined ? {} : { origin: options.origin });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('open', () => {
      resolve({ status: 101, body: '' });
      ws.close();
    });
    ws.on('error', () => undefined);
  });

/** The HTTP status a websocket upgrade to `path` (under `baseUrl`) is answered with: 101 when it opens. */
export const upgradeStatus = async (baseUrl: string, path: string, options: { origin?: string } = {}) => (await upgradeAnswer(baseUrl, path, options)).status;

/** A y-websocket message: its kind (0 sync, 1 awareness), the sync step when a sync one, and the payload. */
export function yjsMessage(kind: number, step: number | null, payload: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, kind);
  if (step !== null) encoding.writeVarUint(encoder, step);
  encoding.writeVarUint8Array(encoder, payload);
  return encoding.toUint8Array(encoder);
}

/**
 * `count` corrupted y-websocket messages (the same for the same seed): random bytes, a client's own updates with a
 * few bytes changed (as sync step 2 and as a state vector in step 1), state vectors and awareness updates of
 * garbage.
 */
export function corruptedMessages(valid: Uint8Array[], count: number, seed: number): Uint8Array[] {
  const changed = fc
    .tuple(fc.nat(valid.length - 1), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }))
    .map(([i, edits]) => {
      const copy = Uint8Array.from(valid[i]!);
      for (const [at, byte] of edits) copy[at % copy.length] = byte;
      return copy;
    });
  const message = fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    changed.map((u) => yjsMessage(0, 1, u)),
    changed.map((u) => yjsMessage(0, 0, u)),
    fc.uint8Array({ maxLength: 32 }).map((u) => yjsMessage(0, 0, u)),
    fc.uint8Array({ maxLength: 64 }).map((u) => yjsMessage(1, null, u)),
  );
  return fc.sample(message, { numRuns: count, seed });
}
