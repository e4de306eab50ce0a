import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, createSecrets, randomAlphanumeric } from '../../server/security/secrets.ts';

describe('secrets', () => {
  const secrets = createSecrets(randomBytes(32));

  it('encrypts with a fresh IV each time and decrypts back', () => {
    const a = secrets.encrypt('token-value');
    const b = secrets.encrypt('token-value');
    expect(a).not.toBe(b);
    expect(a).not.toContain('token-value');
    expect(secrets.decrypt(a)).toBe('token-value');
  });

  it('refuses tampered ciphertext and another master key', () => {
    const sealed = secrets.encrypt('x');
    const parts = sealed.split('.');
    parts[2] = Buffer.from('y').toString('base64url');
    expect(() => secrets.decrypt(parts.join('.'))).toThrow();
    expect(() => createSecrets(randomBytes(32)).decrypt(sealed)).toThrow();
  });

  it('digests deterministically per master key', () => {
    expect(secrets.digest('a')).toBe(secrets.digest('a'));
    expect(createSecrets(randomBytes(32)).digest('a')).not.toBe(secrets.digest('a'));
  });

  it('compares strings of different lengths without throwing', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });

  it('makes alphanumeric strings of the asked length', () => {
    const value = randomAlphanumeric(200);
    expect(value).toMatch(/^[A-Za-z0-9]{200}$/);
  });
});
