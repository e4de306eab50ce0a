// The floors Hearth's HTTP path is measured against: a bare node:http handler and an empty h3 handler that
// answer the same JSON as /v2/ping (and `h3-body`: the h3 handler that also reads its JSON body, the least work an
// operation does besides answering). Started as a child process by run.ts; prints its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { H3, toNodeHandler } from 'h3';

const result = { result: { status: 'success', message: 'pong', data: { version: 'floor' } } };
const kind = process.argv[2];
// `page`: a bare node:http handler answering a fixed body of PAGE_BYTES bytes (what any server answering a page
// of that size costs here: the copy through the kernel and the client's reading of it)
const body = kind === 'page' ? JSON.stringify({ result: { data: 'x'.repeat(Math.max(0, Number(process.env.PAGE_BYTES) - 22)) } }) : JSON.stringify(result);
const handler =
  kind === 'h3'
    ? toNodeHandler(new H3().post('/v2/ping', () => result))
    : kind === 'h3-body'
      ? // the least an operation must do besides answering: read its JSON body
        toNodeHandler(new H3().post('/v2/ping', async (event) => (await event.req.json(), result)))
      : (_req: unknown, res: import('node:http').ServerResponse) => {
          res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        };
const server = createServer(handler as Parameters<typeof createServer>[1]);
// an optional port (the cold-start suite times a start from spawn to the first answer on a port it chose)
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
