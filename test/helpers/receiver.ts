import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver answers: a status (and headers), or `hang` to never answer (a timeout test). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/**
 * A real webhook receiver on 127.0.0.1 (DESIGN §4: third parties are local servers speaking their protocol).
 * Answers come from `script` in order, then `fallback`; every request is recorded.
 */
export async function startReceiver(options: { script?: Answer[]; fallback?: Answer } = {}) {
  const received: Received[] = [];
  const script = [...(options.script ?? [])];
  let fallback: Answer = options.fallback ?? { status: 200, body: 'ok' };
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = script.shift() ?? fallback;
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** Requests whose JSON body has this event type. */
    events: (type: string) => received.filter((r) => (JSON.parse(r.body) as { event?: string }).event === type),
    answer(next: Answer) {
      fallback = next;
    },
    /** Answers the requests held by `hang` now (an attempt kept in flight, then succeeding). */
    release(status = 200) {
      for (const res of hanging) res.writeHead(status).end('ok');
      hanging.clear();
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
