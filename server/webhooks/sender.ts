import { outboundAgents, outboundPost, type OutboundPolicy } from '../security/outbound.ts';

/** A receiver's answer's headers as an attempt keeps them: `[name, value]` pairs, in the order received. */
export interface KeptHeaders {
  headers: Array<[string, string]>;
  /** Headers left out by the bound (beyond the count, or past the bytes). */
  omitted: number;
}

export interface PostResult {
  status: number;
  /** The `retry-after` header of the answer, if any. */
  retryAfter: string | null;
  /** The first `limit` bytes of the answer (the rest is read and discarded). */
  excerpt: string;
  /** The answer's headers, bounded by `headerLimit`. */
  headers: KeptHeaders;
}

/**
 * The answer's headers in the order they arrived (names as Node's parser gives them: lower case; a header sent
 * several times is one pair per value for set-cookie, one comma-joined value for others), the first `count` of them
 * and at most `bytes` of names and values in all. A pair that does not fit ends the list: what is kept is always
 * a prefix of what was received, never a header cut in the middle.
 */
export function keptHeaders(received: Record<string, string | string[] | undefined>, bound: { count: number; bytes: number }): KeptHeaders {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(received)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([name, one]);
  }
  const headers: Array<[string, string]> = [];
  let bytes = 0;
  for (const [name, value] of pairs) {
    const size = Buffer.byteLength(name) + Buffer.byteLength(value);
    if (headers.length >= bound.count || bytes + size > bound.bytes) break;
    headers.push([name, value]);
    bytes += size;
  }
  return { headers, omitted: pairs.length - headers.length };
}

/**
 * POSTs deliveries with node:http keep-alive agents: a receiver gets many deliveries in a row, and reusing
 * connections with the plain http client costs a fraction of the CPU of fetch. Redirects are not followed, and
 * with OUTBOUND_PRIVATE=deny no connection goes to a private address (security/outbound.ts).
 */
export function createSender(options: { maxSockets: number; policy: OutboundPolicy }) {
  const agents = outboundAgents(options.policy, { keepAlive: true, maxSockets: options.maxSockets });
  return {
    async post(
      url: string,
      headers: Record<string, string>,
      body: string,
      signal: AbortSignal,
      limit: number,
      headerLimit: { count: number; bytes: number },
    ): Promise<PostResult> {
      const answer = await outboundPost(url, { headers, body, signal, limit, policy: options.policy, agents });
      const retryAfter = answer.headers['retry-after'];
      return {
        status: answer.status,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
        excerpt: answer.body,
        headers: keptHeaders(answer.headers, headerLimit),
      };
    },
    close() {
      for (const agent of Object.values(agents)) agent.destroy();
    },
  };
}
