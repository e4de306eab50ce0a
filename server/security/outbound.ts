// Where Hearth may connect on a tenant's behalf (webhook endpoints, AI base URLs). With OUTBOUND_PRIVATE=deny,
// loopback, private, link-local and other non-public addresses are refused, so that a workspace cannot use
// Hearth to reach the internal services of the machine or the network it runs in (SSRF). The check runs on the
// address actually connected to (a `lookup` for node's sockets, and IP literals before connecting), so a name
// that resolves to a public address when it is configured and to 127.0.0.1 when it is used (DNS rebinding) is
// refused too. Configuration checks it early as well, for a clear error where the URL is given.
import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type AgentOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export type OutboundPolicy = 'allow' | 'deny';

/** Addresses that are not the public internet (IANA special-purpose registries). */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier NAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address (`::ffff:127.0.0.1`, `64:ff9b::7f00:1`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = lower.match(/^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) return dotted[1];
  const hex = lower.match(/^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/);
  if (!hex) return undefined;
  const high = parseInt(hex[1] as string, 16);
  const low = parseInt(hex[2] as string, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Whether an IP address is loopback, private, link-local or otherwise not a public internet address. */
export function isPrivateAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) return NOT_PUBLIC.check(address, 'ipv4');
  if (kind !== 6) return false;
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return NOT_PUBLIC.check(v4, 'ipv4');
  return NOT_PUBLIC.check(address, 'ipv6');
}

/** A connection refused by OUTBOUND_PRIVATE=deny. */
export class OutboundRefused extends Error {
  constructor(host: string, address: string) {
    super(
      host === address
        ? `${address} is a loopback, private or link-local address, which this server does not connect to (OUTBOUND_PRIVATE=deny)`
        : `${host} resolves to ${address}, a loopback, private or link-local address, which this server does not connect to (OUTBOUND_PRIVATE=deny)`,
    );
    this.name = 'OutboundRefused';
  }
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** node's `lookup` for sockets, refusing names that resolve to a private address under `deny`. */
export function guardedLookup(policy: OutboundPolicy): LookupFunction | undefined {
  if (policy === 'allow') return undefined;
  return ((
    hostname: string,
    options: { all?: boolean; family?: number },
    callback: (error: Error | null, address?: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { family: options.family ?? 0, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const list = addresses as LookupAddress[];
      const refused = list.find((a) => isPrivateAddress(a.address));
      if (refused) return callback(new OutboundRefused(hostname, refused.address));
      if (options.all) return callback(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  }) as unknown as LookupFunction;
}

/** Throws OutboundRefused for a URL whose host is a private IP literal under `deny` (sockets skip `lookup` for those). */
export function refuseLiteral(url: URL, policy: OutboundPolicy) {
  const host = hostOf(url);
  if (policy === 'deny' && isIP(host) && isPrivateAddress(host)) throw new OutboundRefused(host, host);
}

/**
 * Why a configured URL will be refused under `policy`, or null: an IP literal or a name that resolves to a private
 * address now. A name that cannot be resolved here passes (it is checked again at every connection).
 */
export async function outboundProblem(text: string, policy: OutboundPolicy): Promise<string | null> {
  if (policy === 'allow') return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const host = hostOf(url);
  if (isIP(host)) return isPrivateAddress(host) ? new OutboundRefused(host, host).message : null;
  try {
    const addresses = await dnsPromises.lookup(host, { all: true });
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    return refused ? new OutboundRefused(host, refused.address).message : null;
  } catch {
    return null;
  }
}

/** http and https keep-alive agents whose sockets go through the policy's lookup. */
export function outboundAgents(policy: OutboundPolicy, options: AgentOptions) {
  const lookup = guardedLookup(policy);
  const withLookup = lookup ? { ...options, lookup } : options;
  return { 'http:': new HttpAgent(withLookup), 'https:': new HttpsAgent(withLookup) } as Record<string, HttpAgent>;
}

const shared = new Map<OutboundPolicy, Record<string, HttpAgent>>();
/** Keep-alive agents per policy for calls that bring none (AI providers): each socket was opened through its policy. */
function sharedAgents(policy: OutboundPolicy) {
  let agents = shared.get(policy);
  if (agents === undefined) shared.set(policy, (agents = outboundAgents(policy, { keepAlive: true })));
  return agents;
}

export interface OutboundAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The first `limit` bytes of the body (the rest is read and dropped). */
  body: string;
}

/**
 * One POST under the policy: the address connected to is checked, redirects are not followed, and at most
 * `limit` bytes of the answer are kept. Rejects with OutboundRefused, a network error or the signal's reason.
 */
export function outboundPost(
  target: string,
  request: { headers: Record<string, string>; body: string; signal: AbortSignal; limit: number; policy: OutboundPolicy; agents?: Record<string, HttpAgent> },
): Promise<OutboundAnswer> {
  return new Promise<OutboundAnswer>((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(target);
      refuseLiteral(url, request.policy);
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // Never node's global agent: a socket it keeps alive may have been opened under another policy, unchecked.
    const agents = request.agents ?? sharedAgents(request.policy);
    const req = send(
      url,
      {
        method: 'POST',
        signal: request.signal,
        headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
        agent: agents[url.protocol] ?? agents['http:'],
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < request.limit) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).subarray(0, request.limit).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}
