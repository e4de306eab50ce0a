import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface PostResult {
  status: number;
  headers: IncomingHttpHeaders;
  /** The first `limit` bytes of the answer (the rest is discarded unread). */
  excerpt: string;
}

/**
 * POSTs a delivery with node:http and keep-alive agents: a receiver gets many deliveries in a row, and reusing
 * connections with the plain http client costs a fraction of the CPU of fetch (undici and web streams), CPU the
 * server shares with the requests it answers. Redirects are not followed (a 3xx is the answer).
 */
export function createTransport(options: { maxSockets: number }) {
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, maxSockets: options.maxSockets }),
    'https:': new HttpsAgent({ keepAlive: true, maxSockets: options.maxSockets }),
  };
  return {
    post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, limit: number): Promise<PostResult> {
      return new Promise<PostResult>((resolve, reject) => {
        const target = new URL(url);
        const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
        const agent = target.protocol === 'https:' ? agents['https:'] : agents['http:'];
        const req = send(target, { method: 'POST', agent, signal, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < limit) chunks.push(chunk);
            size += chunk.length;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, excerpt: Buffer.concat(chunks).subarray(0, limit).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
