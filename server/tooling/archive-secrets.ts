/**
 * Secrets in an archive. In the database they are encrypted under the data dir's master key (and credentials are
 * also stored as HMAC digests under it), so an archive must not carry them as they are stored: with `include` each
 * value is decrypted and sealed again under a key derived from a passphrase (scrypt, AES-256-GCM), and the import
 * seals it under the target's master key and recomputes the digests; with `omit` the values are left out and the
 * import generates fresh ones where a row cannot exist without one.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { createSecrets, randomAlphanumeric, randomHex, type Secrets } from '../security/secrets.ts';
import { newSigningSecret } from '../webhooks/crypto.ts';

export type SecretsMode = 'include' | 'omit';

/**
 * The shortest passphrase an export's secrets are sealed with. scrypt slows a guess down, not enough for a word:
 * an archive copied off a machine can be attacked offline for as long as anyone likes.
 */
export const MIN_PASSPHRASE_LENGTH = 12;

/** What is wrong with a passphrase to seal secrets with, or undefined. */
export function passphraseProblem(passphrase: string): string | undefined {
  if ([...passphrase.normalize('NFC')].length < MIN_PASSPHRASE_LENGTH)
    return `The passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters long: it is all that protects the exported secrets`;
  return undefined;
}

/** What an archive's rows hold in place of a secret that was left out. */
export const OMITTED = 'omitted';

export interface SecretColumn {
  /** What the value is, for the import summary. */
  label: string;
  /** The keyed digest column recomputed from the plaintext on import. */
  digest?: string;
  /**
   * When the archive has no value: `fresh` makes a new secret of the same form, `drop-row` leaves the row out
   * (the row is nothing but the secret), `null` stores none (with `alsoNull` columns that only make sense with it),
   * `placeholder` stores a fixed text.
   */
  whenOmitted: { fresh: () => string } | { dropRow: true } | { nullWith: string[] } | { placeholder: string };
}

/** Every encrypted column of the schema (archive-schema.ts refuses to run if one is missing here). */
export const SECRET_COLUMNS: Record<string, Record<string, SecretColumn>> = {
  workspaces: { authTokenEnc: { label: 'workspace auth token', digest: 'authTokenDigest', whenOmitted: { fresh: () => randomHex(16) } } },
  auth_tokens: { tokenEnc: { label: 'API key auth token', digest: 'tokenDigest', whenOmitted: { fresh: () => `yauth_${randomAlphanumeric(40)}` } } },
  api_key_secrets: { valueEnc: { label: 'API key secret (AI provider key, e-mail provider key, basic-webhook token)', whenOmitted: { dropRow: true } } },
  mail_outbox: {
    bodyEnc: {
      label: 'e-mail body (may carry sign-in links)',
      whenOmitted: {
        placeholder: JSON.stringify({
          text: '(The body of this e-mail was left out of the export.)',
          html: '<p>(The body of this e-mail was left out of the export.)</p>',
        }),
      },
    },
  },
  webhook_endpoints: {
    secretEnc: { label: 'webhook endpoint signing secret', whenOmitted: { fresh: newSigningSecret } },
    previousSecretEnc: { label: 'webhook endpoint previous signing secret', whenOmitted: { nullWith: ['previousSecretExpiresAt'] } },
  },
  workflow_definitions: { webhookSecretEnc: { label: 'workflow webhook secret', whenOmitted: { fresh: () => `whsec_${randomBytes(24).toString('base64')}` } } },
};

/** Keyed digests (lookup of presented credentials): never exported, recomputed under the target's master key. */
export const DIGEST_COLUMNS: Record<string, string[]> = {
  workspaces: ['authTokenDigest'],
  auth_tokens: ['tokenDigest'],
};

export interface PassphraseKdf {
  name: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  keyLength: 32;
}

export interface ArchiveSecrets {
  mode: SecretsMode;
  /** With `include`: how the archive key is derived from the passphrase, and a value sealed under it to check one. */
  kdf?: PassphraseKdf;
  cipher?: 'aes-256-gcm';
  check?: string;
}

const CHECK_TEXT = 'hearth-export-passphrase-check';
const SCRYPT = { N: 2 ** 15, r: 8, p: 1 };

function deriveArchiveSecrets(passphrase: string, kdf: PassphraseKdf): Secrets {
  const key = scryptSync(passphrase.normalize('NFC'), Buffer.from(kdf.salt, 'base64'), kdf.keyLength, {
    N: kdf.N,
    r: kdf.r,
    p: kdf.p,
    maxmem: 128 * kdf.N * kdf.r * 2,
  });
  return createSecrets(key);
}

/** A new archive key from a passphrase, and the manifest entry that lets an import derive it again and check it. */
export function sealWithPassphrase(passphrase: string): { sealer: Secrets; manifest: ArchiveSecrets } {
  const kdf: PassphraseKdf = { name: 'scrypt', ...SCRYPT, salt: randomBytes(16).toString('base64'), keyLength: 32 };
  const sealer = deriveArchiveSecrets(passphrase, kdf);
  return { sealer, manifest: { mode: 'include', kdf, cipher: 'aes-256-gcm', check: sealer.encrypt(CHECK_TEXT) } };
}

/** The archive key for an import, or an error saying the passphrase is missing or wrong. */
export function openWithPassphrase(secrets: ArchiveSecrets, passphrase: string | undefined): Secrets {
  if (!passphrase) throw new Error('This archive includes secrets sealed with a passphrase: give it (--passphrase or HEARTH_EXPORT_PASSPHRASE)');
  const kdf = secrets.kdf;
  if (
    !kdf ||
    kdf.name !== 'scrypt' ||
    !secrets.check ||
    typeof kdf.salt !== 'string' ||
    ![kdf.N, kdf.r, kdf.p].every((n) => Number.isInteger(n) && n > 0) ||
    kdf.N > 2 ** 20
  ) {
    throw new Error('manifest.json: secrets.kdf is not a key derivation this Hearth knows');
  }
  const opener = deriveArchiveSecrets(passphrase, kdf);
  let check: string;
  try {
    check = opener.decrypt(secrets.check);
  } catch {
    throw new Error('Wrong passphrase: it does not open the secrets of this archive');
  }
  if (check !== CHECK_TEXT) throw new Error('Wrong passphrase: it does not open the secrets of this archive');
  return opener;
}
