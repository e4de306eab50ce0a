import { createHmac } from 'node:crypto';
import type { SignedPermission } from '../../shared/schemas/access.ts';
import { constantTimeEqual, type Secrets } from './secrets.ts';

/**
 * The signature of a permission provider's decisions (/v2/auth/generate_signature; checked on every provider answer,
 * services/permission-provider.ts): HMAC-SHA256, hex, over the canonical form below, keyed by a secret derived per
 * API key from the master key. Only Hearth holds the secret; the app obtains signatures with the key's credentials,
 * so a signature made for one key never verifies for another, and nothing between Hearth and the provider can change
 * a decision without the signature failing.
 *
 * Canonical form (docs/decisions.md): the line `hearth-permissions-v1`, a newline, then the JSON array of the
 * permissions in the order given, each as the array `[userId, resourceId, type, hasAccess, accessRole, expiresAt]`
 * with `null` for an absent `accessRole` or `expiresAt`. Field order is fixed by the array, so the JSON
 * serializer's key order (and extra fields a provider adds) cannot change it.
 */
const PREFIX = 'hearth-permissions-v1\n';

export function canonicalPermissions(permissions: readonly SignedPermission[]): string {
  return PREFIX + JSON.stringify(permissions.map((p) => [p.userId, p.resourceId, p.type, p.hasAccess, p.accessRole ?? null, p.expiresAt ?? null]));
}

const signingKey = (secrets: Secrets, apiKeyId: string) => secrets.derive(`permission-signature:${apiKeyId}`);

/** 64 hex characters. */
export function signPermissions(secrets: Secrets, apiKeyId: string, permissions: readonly SignedPermission[]): string {
  return createHmac('sha256', signingKey(secrets, apiKeyId)).update(canonicalPermissions(permissions)).digest('hex');
}

/** Whether `signature` is the key's signature of exactly these permissions (compared in constant time). */
export function permissionsSigned(secrets: Secrets, apiKeyId: string, permissions: readonly SignedPermission[], signature: unknown): boolean {
  if (typeof signature !== 'string') return false;
  return constantTimeEqual(signPermissions(secrets, apiKeyId, permissions), signature.toLowerCase());
}
