import { describe, expect, it } from 'vitest';
import { deriveInitial, internalUserId } from '../../server/services/users.ts';

describe('user profile helpers', () => {
  it('derives the initial from the name, else the e-mail, else the id', () => {
    expect(deriveInitial({ userId: 'u1', name: 'jane Doe' })).toBe('J');
    expect(deriveInitial({ userId: 'u1', name: '  ', email: 'bob@example.com' })).toBe('B');
    expect(deriveInitial({ userId: 'zed' })).toBe('Z');
    expect(deriveInitial({ userId: 'u', name: 'Émile' })).toBe('É');
    expect(deriveInitial({ userId: 'u', name: '😀 smile' })).toBe('😀');
  });

  it('gives each API key its own stable internal user id', () => {
    expect(internalUserId('k1', 'u')).toBe(internalUserId('k1', 'u'));
    expect(internalUserId('k1', 'u')).not.toBe(internalUserId('k2', 'u'));
    expect(internalUserId('k1', 'u')).toMatch(/^[0-9a-f]{32}$/);
  });
});
