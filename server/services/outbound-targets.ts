import { invalid } from '../errors.ts';
import { outboundProblem } from '../security/outbound.ts';
import type { Config } from '../config.ts';

/**
 * Refuses, under OUTBOUND_PRIVATE=deny, the URLs Hearth would connect to on a tenant's behalf (webhook targets, AI
 * base URLs) that are loopback, private or link-local addresses, naming the field; each connection is checked
 * again when it is made (security/outbound.ts), so this is the early, clear error, not the only guard.
 */
export async function checkOutboundTargets(app: { config: Config }, targets: ReadonlyArray<readonly [field: string, url: string | null | undefined]>) {
  for (const [field, url] of targets) {
    if (!url) continue;
    const problem = await outboundProblem(url, app.config.outboundPrivate);
    if (problem) throw invalid(`${field}: ${problem}.`);
  }
}
