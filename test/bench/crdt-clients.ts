// The CRDT clients the sync benchmarks drive: y-websocket's provider (for Hearth and the reference server) and a
// minimal client speaking Hocuspocus' framing.
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';

export interface Client {
  doc: Y.Doc;
  synced: Promise<void>;
  destroy(): void;
}
export type Connect = () => Client;

/** A y-websocket client (the provider editors use). */
export function yWebsocketClient(url: string, room: string, params: Record<string, string>): Client {
  const doc = new Y.Doc();
  const provider = new WebsocketProvider(url, room, doc, { WebSocketPolyfill: WebSocket as never, params, disableBc: true });
  const synced = new Promise<void>((resolve) => provider.on('sync', (s: boolean) => s && resolve()));
  return { doc, synced, destroy: () => provider.destroy() };
}

// Hocuspocus frames every message as varString(document name), varUint(type), payload; a connection starts
// with an Auth message carrying a token. Only what the bench needs: auth, sync and updates (no awareness).
const HP_SYNC = 0;
const HP_AUTH = 2;
const HP_SYNC_REPLY = 4;

/** A Hocuspocus client speaking its wire protocol (what @hocuspocus/provider sends), with y-protocols' sync. */
export function hocuspocusClient(url: string, name: string): Client {
  const doc = new Y.Doc();
  const ws = new WebSocket(url);
  const frame = (type: number, write: (e: encoding.Encoder) => void) => {
    const e = encoding.createEncoder();
    encoding.writeVarString(e, name);
    encoding.writeVarUint(e, type);
    write(e);
    return encoding.toUint8Array(e);
  };
  let resolveSynced: () => void;
  const synced = new Promise<void>((r) => (resolveSynced = r));
  ws.on('open', () => {
    ws.send(
      frame(HP_AUTH, (e) => {
        encoding.writeVarUint(e, 0); // AuthMessageType.Token
        encoding.writeVarString(e, 'bench');
      }),
    );
    ws.send(frame(HP_SYNC, (e) => syncProtocol.writeSyncStep1(e, doc)));
  });
  ws.on('message', (data: Buffer) => {
    const d = decoding.createDecoder(new Uint8Array(data));
    decoding.readVarString(d);
    const type = decoding.readVarUint(d);
    if (type !== HP_SYNC && type !== HP_SYNC_REPLY) return;
    const reply = encoding.createEncoder();
    const kind = syncProtocol.readSyncMessage(d, reply, doc, ws);
    if (kind === syncProtocol.messageYjsSyncStep2) resolveSynced();
    if (encoding.length(reply) > 0) ws.send(frame(HP_SYNC_REPLY, (e) => encoding.writeUint8Array(e, encoding.toUint8Array(reply))));
  });
  doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin !== ws && ws.readyState === WebSocket.OPEN) ws.send(frame(HP_SYNC, (e) => syncProtocol.writeUpdate(e, update)));
  });
  return { doc, synced, destroy: () => ws.close() };
}
