import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface PostResult {
  status: number;
  /** The `retry-after` header of the answer, if any. */
  retryAfter: string | null;
  /** The first `limit` bytes of the answer (the rest is read and discarded). */
  excerpt: string;
}

/**
 * POSTs deliveries with node:http keep-alive agents: a receiver gets many deliveries in a row, and reusing
 * connections with the plain http client costs a fraction of the CPU of fetch. Redirects are not followed.
 */
export function createSender(options: { maxSockets: number }) {
  const agents: Record<string, HttpAgent> = {
    'http:': new HttpAgent({ keepAlive: true, maxSockets: options.maxSockets }),
    'https:': new HttpsAgent({ keepAlive: true, maxSockets: options.maxSockets }),
  };
  return {
    post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, limit: number): Promise<PostResult> {
      return new Promise<PostResult>((resolve, reject) => {
        let target: URL;
        try {
          target = new URL(url);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
        const req = send(target, { method: 'POST', agent: agents[target.protocol] ?? agents['http:'], signal, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < limit) chunks.push(chunk);
            size += chunk.length;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: (res.headers['retry-after'] as string | undefined) ?? null, excerpt: Buffer.concat(chunks).subarray(0, limit).toString('utf8') }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    close() {
      for (const agent of Object.values(agents)) agent.destroy();
    },
  };
}
