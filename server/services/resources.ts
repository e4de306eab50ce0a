import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { RESOURCES_DIR } from '../paths.ts';

/** The package's JSON lists, loaded on first use (a require: JSON imports are not stable in Node 20's ESM). */
const requireList = createRequire(import.meta.url);

export interface RegionList {
  persistence: string[];
  realtime: string[];
}

let regions: { persistence: Set<string>; realtime: Set<string> } | undefined;

/** The supported regions (resources/regions.json), read once. */
export function supportedRegions() {
  if (!regions) {
    const file = join(RESOURCES_DIR, 'regions.json');
    const list = JSON.parse(readFileSync(file, 'utf8')) as RegionList;
    regions = { persistence: new Set(list.persistence), realtime: new Set(list.realtime) };
  }
  return regions;
}

let disposable: { exact: Set<string>; wildcard: string[] } | undefined;

/**
 * True when the address belongs to a disposable (throw-away) mail domain. The list is the
 * `disposable-email-domains` package (about 120k domains, loaded on first use so that start-up stays fast);
 * its wildcard list also matches every subdomain.
 */
export function isDisposableEmail(address: string): boolean {
  if (!disposable) {
    disposable = {
      exact: new Set(requireList('disposable-email-domains') as string[]),
      wildcard: requireList('disposable-email-domains/wildcard.json') as string[],
    };
  }
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  if (disposable.exact.has(domain)) return true;
  return disposable.wildcard.some((w) => domain === w || domain.endsWith('.' + w));
}
