// An API key's allowed domains (reference §3.1 domains/get|add|delete): the web origins whose pages may open the
// key's documents. Browsers are the only clients that state an origin, and the websocket is the only way a page
// reaches Hearth with a key's credentials (the REST operations answer no CORS preflight), so the list is enforced
// where browsers connect: the y-websocket upgrade (server/crdt/websocket.ts). An empty list allows every origin.
import { currentTime } from '../clock.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import { invalid } from '../errors.ts';
import type { AccessEvents } from './access-events.ts';

/** As many as apikey/create takes. */
export const MAX_ALLOWED_DOMAINS = 100;

type Deps = { storage: Storage };

async function change(deps: Deps & { accessEvents: AccessEvents }, scope: TenantScope, edit: (current: string[]) => string[]): Promise<string[]> {
  // row level on PostgreSQL (docs/storage.md, "Invariants"): the key's lock, then the read
  const list = await deps.storage.transaction(
    async () => {
      await deps.storage.keys.lock(scope);
      // the stored list, not the caller's cached row: the CLI may have changed it since
      const current = (await deps.storage.keys.find(scope))?.allowedDomains ?? [];
      const next = edit(current);
      if (next.length !== current.length) await deps.storage.keys.update(scope, { allowedDomains: next, updatedAt: currentTime() });
      return next;
    },
    { rowLevel: true },
  );
  // pages of an origin no longer allowed lose their connections
  deps.accessEvents.publish({ apiKeyId: scope.apiKeyId });
  return list;
}

/** The key's allowed domains (none for a key that does not exist). */
export const allowedDomainsOf = async (deps: Deps, scope: TenantScope): Promise<string[]> => (await deps.storage.keys.find(scope))?.allowedDomains ?? [];

/** Adds the domains not yet allowed, in the order given; says which were added and which were there already. */
export async function addAllowedDomains(deps: Deps & { accessEvents: AccessEvents }, scope: TenantScope, domains: string[]) {
  const added: string[] = [];
  const skipped: string[] = [];
  const list = await change(deps, scope, (current) => {
    const known = new Set(current);
    for (const domain of domains) {
      if (known.has(domain)) {
        if (!skipped.includes(domain)) skipped.push(domain);
        continue;
      }
      known.add(domain);
      added.push(domain);
    }
    if (known.size > MAX_ALLOWED_DOMAINS) throw invalid(`An API key can have at most ${MAX_ALLOWED_DOMAINS} allowed domains (it has ${current.length}).`);
    return [...known];
  });
  return { domains: list, added, skipped };
}

/** Removes the given domains; says which were removed and which were not in the list. */
export async function removeAllowedDomains(deps: Deps & { accessEvents: AccessEvents }, scope: TenantScope, domains: string[]) {
  const gone = new Set(domains);
  const removed: string[] = [];
  const list = await change(deps, scope, (current) => current.filter((d) => (gone.has(d) ? (removed.push(d), false) : true)));
  return { domains: list, removed, notFound: [...gone].filter((d) => !removed.includes(d)) };
}

/**
 * Whether a page of `origin` (the Origin header: `scheme://host[:port]`) may use a key with the `allowed` domains.
 * A domain without a port allows every port of its host; `*.example.com` allows every subdomain of example.com
 * (not example.com itself); an origin that is not a URL (`null`: a file or a sandboxed frame) matches nothing.
 */
export function originAllowed(allowed: readonly string[], origin: string): boolean {
  if (allowed.length === 0) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const hostname = url.hostname;
  const host = url.port ? `${hostname}:${url.port}` : hostname;
  for (const domain of allowed) {
    const subject = domain.includes(':') ? host : hostname;
    if (domain.startsWith('*.') ? subject.endsWith(domain.slice(1)) && subject.length > domain.length - 1 : subject === domain) return true;
  }
  return false;
}
