// Limits on the connections one client may hold (issue 42): 20,000–30,000 idle or half-sent connections from one
// client used up the process's file descriptors (20,000 here), after which every new client was reset; and node
// closes a connection that never sends a byte never, a slow one only after minutes. Node's own timeouts cover a
// request once its first byte is in (`headersTimeout`, `requestTimeout`, set where the server is made); this adds
// what node has not: a deadline for the first byte, and a cap per client address on connections and websockets.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Config } from '../config.ts';

export interface ConnectionGuard {
  /**
   * Counts a websocket upgrade against its address's cap until its socket closes; false (nothing counted) when the
   * address holds its share already.
   */
  admitWebsocket(socket: Duplex): boolean;
  /** Connections refused so far, for /metrics and tests. */
  readonly refused: { connections: number; websockets: number };
}

/** A counter of open things per client address, released when each closes. */
function perAddress(max: number) {
  const open = new Map<string, number>();
  return {
    take(address: string, socket: Duplex): boolean {
      const n = (open.get(address) ?? 0) + 1;
      if (n > max) return false;
      open.set(address, n);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left > 0) open.set(address, left);
        else open.delete(address);
      });
      return true;
    },
  };
}

/** Guards `server`'s connections with `limits` (config.connections). */
export function guardConnections(server: Server, limits: Config['connections']): ConnectionGuard {
  const connections = perAddress(limits.maxPerAddress);
  const websockets = perAddress(limits.maxWebsocketsPerAddress);
  const refused = { connections: 0, websockets: 0 };
  server.on('connection', (socket: Socket) => {
    if (!connections.take(socket.remoteAddress ?? '', socket)) {
      refused.connections++;
      socket.destroy();
      return;
    }
    // A timer of our own rather than the socket's timeout: node's keep-alive uses that one, and a 'timeout'
    // listener on the server would take over its closing of idle keep-alive connections.
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.firstByteTimeoutMs);
    silent.unref();
    socket.once('close', () => clearTimeout(silent));
  });
  return {
    admitWebsocket(socket) {
      if (websockets.take((socket as Socket).remoteAddress ?? '', socket)) return true;
      refused.websockets++;
      return false;
    },
    refused,
  };
}
