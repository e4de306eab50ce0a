// The floors Hearth's HTTP path is measured against: a bare node:http handler and an empty h3 handler that
// answer the same JSON as /v2/ping (and `h3-body`: the h3 handler that also reads its JSON body, the least work an
// operation does besides answering). Started as a child process by run.ts; prints its port.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { H3, toNodeHandler } from 'h3';
import { openPageStatement } from './page-statement.ts';

const result = { result: { status: 'success', message: 'pong', data: { version: 'floor' } } };
const kind = process.argv[2];
// `page`: a bare node:http handler answering a fixed body of PAGE_BYTES bytes (what any server answering a page
// of that size costs here: the copy through the kernel and the client's reading of it)
const body = kind === 'page' ? JSON.stringify({ result: { data: 'x'.repeat(Math.max(0, Number(process.env.PAGE_BYTES) - 22)) } }) : JSON.stringify(result);
/**
 * `page-db`: the computed page's floor over HTTP: every request (its body read, not parsed) answered with the page
 * statement of page-statement.ts run on PAGE_DB (a running server's hearth.db, read-only) for PAGE_KEY, PAGE_ORG and
 * PAGE_DOC, serialized with JSON.stringify. What any server must do to answer that page over HTTP on this machine.
 */
function pageFromDatabase() {
  const { PAGE_DB, PAGE_KEY, PAGE_ORG, PAGE_DOC } = process.env;
  if (!PAGE_DB || !PAGE_KEY || !PAGE_ORG || !PAGE_DOC) throw new Error('page-db needs PAGE_DB, PAGE_KEY, PAGE_ORG and PAGE_DOC');
  const { page } = openPageStatement(PAGE_DB);
  return (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page.all(PAGE_KEY, PAGE_ORG, PAGE_DOC)));
    });
  };
}

const handler =
  kind === 'page-db'
    ? pageFromDatabase()
    : kind === 'h3'
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
