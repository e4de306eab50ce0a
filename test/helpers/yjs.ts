import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';

/** A real y-websocket client (the library browsers use) connected to Hearth's /yjs endpoint. */
export function connectYjs(baseUrl: string, room: { organizationId: string; documentId: string; editorId: string }, params: Record<string, string>) {
  const doc = new Y.Doc();
  const url = baseUrl.replace(/^http/, 'ws') + '/yjs';
  const name = [room.organizationId, room.documentId, room.editorId].map(encodeURIComponent).join('/');
  const provider = new WebsocketProvider(url, name, doc, { WebSocketPolyfill: WebSocket as never, params, disableBc: true, connect: true });
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

/** The HTTP status a websocket upgrade to `path` (under `baseUrl`) is answered with: 101 when it opens. */
export const upgradeStatus = (baseUrl: string, path: string) =>
  new Promise<number>((resolve) => {
    const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + path);
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', () => undefined);
  });
