// A webhook receiver in its own process for the webhooks suite, so that answering ~2,000 deliveries a second does
// not share an event loop with the load generator whose latencies are being measured. Answers 204 to every
// delivery; GET /stats returns { count, last } (deliveries received, time of the last one). Prints its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let count = 0;
let last = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count, last }));
    return;
  }
  req.resume();
  req.on('end', () => {
    count++;
    last = Date.now();
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
