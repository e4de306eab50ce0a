import { outboundAgents, outboundPost, type OutboundPolicy } from '../security/outbound.ts';

export interface PostResult {
  status: number;
  /** The `retry-after` header of the answer, if any. */
  retryAfter: string | null;
  /** The first `limit` bytes of the answer (the rest is read and discarded). */
  excerpt: string;
}

/**
 * POSTs deliveries with node:http keep-alive agents: a receiver gets many deliveries in a row, and reusing
 * connections with the plain http client costs a fraction of the CPU of fetch. Redirects are not followed, and
 * with OUTBOUND_PRIVATE=deny no connection goes to a private address (security/outbound.ts).
 */
export function createSender(options: { maxSockets: number; policy: OutboundPolicy }) {
  const agents = outboundAgents(options.policy, { keepAlive: true, maxSockets: options.maxSockets });
  return {
    async post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, limit: number): Promise<PostResult> {
      const answer = await outboundPost(url, { headers, body, signal, limit, policy: options.policy, agents });
      const retryAfter = answer.headers['retry-after'];
      return { status: answer.status, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, excerpt: answer.body };
    },
    close() {
      for (const agent of Object.values(agents)) agent.destroy();
    },
  };
}
