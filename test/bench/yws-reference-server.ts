// The y-websocket reference server (@y/websocket-server's utilities, in memory, no persistence) as the peer
// Hearth's sync is measured against. Started as a child process by the crdt suite; prints its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setupWSConnection } from '@y/websocket-server/utils';
import { WebSocketServer } from 'ws';

const server = createServer((_req, res) => res.writeHead(200).end('ok'));
const wss = new WebSocketServer({ noServer: true });
wss.on('connection', (conn, req) => setupWSConnection(conn, req));
server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)));
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
