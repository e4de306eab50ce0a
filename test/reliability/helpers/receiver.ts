import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  webhookId: string;
  body: string;
  status: number;
  at: number;
}

/**
 * A webhook receiver on 127.0.0.1 that is slow and unreliable on purpose: it answers after a random delay and
 * fails a share of the requests with 500, so that the server's outbox always has deliveries pending or being
 * retried when it is killed.
 */
export async function startFlakyReceiver(options: { failureRate: number; maxDelayMs: number }) {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = Math.random() < options.failureRate ? 500 : 200;
      setTimeout(() => {
        deliveries.push({ webhookId: String(req.headers['webhook-id'] ?? ''), body: Buffer.concat(chunks).toString('utf8'), status, at: Date.now() });
        res.writeHead(status).end(status === 200 ? 'ok' : 'try again');
      }, Math.random() * options.maxDelayMs);
    });
  });
  // keep-alive sockets of a killed server are the server's problem, not the receiver's
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    deliveries,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FlakyReceiver = Awaited<ReturnType<typeof startFlakyReceiver>>;
