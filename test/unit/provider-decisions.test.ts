// The permission provider's recent decisions, as the admin UI's key page lists them (services/permission-provider.ts):
// kept per API key, so that one key's traffic never pushes another key's decisions out, newest first, bounded.
import { describe, expect, it } from 'vitest';
import { recentProviderDecisions, rememberProviderDecision } from '../../server/services/permission-provider.ts';

const question = (userId: string) => ({ userId, type: 'document' as const, resourceId: 'doc', organizationId: 'org' });
const granted = { access: true, accessRole: 'editor' as const, reasons: ['granted by the permission provider'] };

describe('recent permission provider decisions', () => {
  it("are kept per key: a busy key does not push a quiet key's decisions out", () => {
    const app = {};
    rememberProviderDecision(app, 'quiet', question('q1'), granted);
    rememberProviderDecision(app, 'quiet', question('q2'), { access: false, accessRole: null, reasons: ['denied by the permission provider'] });
    for (let n = 0; n < 5_000; n++) rememberProviderDecision(app, 'busy', question(`u${n}`), granted);
    expect(recentProviderDecisions(app, 'quiet').map((d) => [d.userId, d.access, d.reason])).toEqual([
      ['q2', false, 'denied by the permission provider'],
      ['q1', true, 'granted by the permission provider'],
    ]);
    // the busy key's newest first, at most the limit asked, and at most 100 kept
    const busy = recentProviderDecisions(app, 'busy', 1_000);
    expect(busy).toHaveLength(100);
    expect(busy[0]?.userId).toBe('u4999');
    expect(busy.at(-1)?.userId).toBe('u4900');
    expect(recentProviderDecisions(app, 'busy', 3).map((d) => d.userId)).toEqual(['u4999', 'u4998', 'u4997']);
    expect(recentProviderDecisions(app, 'none')).toEqual([]);
  });

  it('forget the keys whose newest decision is oldest, past 1,000 keys', () => {
    const app = {};
    for (let n = 0; n < 1_001; n++) rememberProviderDecision(app, `k${n}`, question('u'), granted);
    expect(recentProviderDecisions(app, 'k0')).toEqual([]);
    expect(recentProviderDecisions(app, 'k1')).toHaveLength(1);
    // a decision of k1 makes it the newest: k2 goes next
    rememberProviderDecision(app, 'k1', question('v'), granted);
    rememberProviderDecision(app, 'k1001', question('u'), granted);
    expect(recentProviderDecisions(app, 'k1')).toHaveLength(2);
    expect(recentProviderDecisions(app, 'k2')).toEqual([]);
  });
});
