// The webhook sender's thread: POSTs deliveries with node:http keep-alive agents and reports each answer. Plain
// JavaScript so that it runs as is under tsx, in dist/ and in Electron (a worker does not inherit tsx's loader).
// It touches no database: the dispatcher on the main thread reads, schedules and records; this thread only does
// the network and HTTP parsing work, on the other core, away from the requests the server answers.
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';

const agents = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: workerData.maxSockets }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: workerData.maxSockets }),
};
/** id → AbortController of the requests in flight */
const inFlight = new Map();

function post({ id, url, headers, body, limit }) {
  const controller = new AbortController();
  inFlight.set(id, controller);
  const done = (message) => {
    if (!inFlight.delete(id)) return;
    parentPort.postMessage({ id, ...message });
  };
  try {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, { method: 'POST', agent: agents[target.protocol] ?? agents['http:'], signal: controller.signal, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (chunk) => {
        if (size < limit) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] ?? null, excerpt: Buffer.concat(chunks).subarray(0, limit).toString('utf8') }));
      res.on('error', (error) => done({ error: error.message }));
    });
    req.on('error', (error) => done({ error: error.message }));
    req.end(body);
  } catch (error) {
    done({ error: error instanceof Error ? error.message : String(error) });
  }
}

parentPort.on('message', (message) => {
  if (message.type === 'post') post(message);
  else if (message.type === 'abort') {
    inFlight.get(message.id)?.abort();
    inFlight.delete(message.id);
  } else if (message.type === 'close') {
    for (const controller of inFlight.values()) controller.abort();
    agents['http:'].destroy();
    agents['https:'].destroy();
    parentPort.close();
  }
});
