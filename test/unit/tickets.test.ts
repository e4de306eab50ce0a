// The admin UI's websocket tickets are bounded (issue 42): any signed-in session may ask for them, so past the cap
// the oldest go; expired ones never stay.
import { describe, expect, it } from 'vitest';
import { createTickets } from '../../server/admin/tickets.ts';

const key = (n: number) => ({ apiKeyId: 'k', organizationId: 'o', documentId: `d${n}`, editorId: 'main' });

describe('admin websocket tickets', () => {
  it('keeps at most 10,000: the oldest go first, the newest stay valid', () => {
    const tickets = createTickets();
    const ids = Array.from({ length: 10_050 }, (_, n) => tickets.issue(key(n)));
    expect(tickets.size).toBe(10_000);
    expect(tickets.valid(ids[0]!, key(0))).toBe(false);
    expect(tickets.valid(ids[10_049]!, key(10_049))).toBe(true);
    expect(tickets.valid(ids[10_049]!, key(1))).toBe(false);
  });
});
