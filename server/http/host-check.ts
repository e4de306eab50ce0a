// Which `Host` names Hearth answers to, as local dev servers do (Vite's `server.allowedHosts`, Jupyter's
// `allow_remote_access`): loopback names, IP literals, PUBLIC_URL's host and ALLOWED_HOSTS. A web page whose own
// name is made to resolve to 127.0.0.1 (DNS rebinding) reaches the port, but its requests carry its own name in
// `Host`, which is refused here before anything else runs: HTTP requests, admin calls and websocket upgrades alike.
import { isIP } from 'node:net';

/** The name of a Host header: lower case, without the port, IPv6 brackets or a trailing dot. */
export function hostName(header: string): string {
  let name = header.trim().toLowerCase();
  if (name.startsWith('[')) {
    const end = name.indexOf(']');
    return end === -1 ? name : name.slice(1, end);
  }
  const colon = name.lastIndexOf(':');
  // one colon and digits after it: a port (more colons would be a bare IPv6 address, which Host never is)
  if (colon !== -1 && name.indexOf(':') === colon) name = name.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** Names that always mean this machine: `localhost` and its subdomains (RFC 6761). */
const isLoopbackName = (name: string) => name === 'localhost' || name.endsWith('.localhost');

/** Whether a name is a loopback name or loopback address (127.0.0.0/8, ::1). */
export function isLoopbackHost(name: string): boolean {
  if (isLoopbackName(name)) return true;
  const kind = isIP(name);
  if (kind === 4) return name.startsWith('127.');
  return kind === 6 && (name === '::1' || name === '0:0:0:0:0:0:0:1');
}

/** An allowed-hosts entry matches a name: exactly, `.example.com` for the domain and its subdomains, `*` for any. */
function matches(entry: string, name: string): boolean {
  const rule = entry.trim().toLowerCase();
  if (rule === '*') return true;
  if (rule.startsWith('.')) return name === rule.slice(1) || name.endsWith(rule);
  return hostName(rule) === name;
}

const KEEP = 256;

/**
 * The check for one server: `allowed(hostHeader)`. Answers are kept per header text (a server sees a handful of
 * names), so the check costs a Map lookup on every request. A request without a Host header (HTTP/1.0; every
 * browser sends one) is allowed: it cannot come from a rebound page.
 */
export function createHostCheck(options: { allowedHosts: readonly string[]; publicUrl?: string | undefined }) {
  const publicHost = options.publicUrl ? hostName(new URL(options.publicUrl).host) : undefined;
  const kept = new Map<string, boolean>();
  const decide = (header: string) => {
    const name = hostName(header);
    if (name === '') return false;
    if (isLoopbackName(name) || isIP(name) !== 0 || name === publicHost) return true;
    return options.allowedHosts.some((entry) => matches(entry, name));
  };
  return (header: string | null | undefined): boolean => {
    if (header === undefined || header === null) return true;
    let answer = kept.get(header);
    if (answer === undefined) {
      if (kept.size >= KEEP) kept.clear();
      kept.set(header, (answer = decide(header)));
    }
    return answer;
  };
}

export type HostCheck = ReturnType<typeof createHostCheck>;

/** What a refused name is told: which setting lets it in. */
export function hostRefusal(header: string): string {
  const name = hostName(header);
  return `Host "${name}" is not allowed. Hearth answers to loopback names, IP addresses, PUBLIC_URL's host and the names in ALLOWED_HOSTS; to reach it by this name, add it to ALLOWED_HOSTS (allowedHosts in hearth.config.json).`;
}

/** The Host header from node's raw header list, without building `req.headers`. */
export function rawHost(raw: readonly string[]): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.length === 4 && (key === 'Host' || key === 'host' || key.toLowerCase() === 'host')) return raw[i + 1];
  }
  return undefined;
}
