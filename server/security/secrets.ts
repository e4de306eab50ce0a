import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export { KEY_FILE } from '../data-files.ts';
import { KEY_FILE } from '../data-files.ts';
const VERSION = 'v1';

/**
 * Encryption and hashing of secrets at rest. Secrets are stored twice: AES-256-GCM ciphertext (so the
 * interface can return them where it must) and an HMAC-SHA256 digest (so a presented credential is found
 * and compared without decrypting). Both keys derive from one master key in DATA_DIR (mode 0600), so the
 * database file alone reveals no usable credential.
 */
export interface Secrets {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
  /** Keyed digest used to look up and compare credentials. */
  digest(value: string): string;
  /** A key for another purpose (page tokens, JWT secrets), derived so that it never equals the others. */
  derive(purpose: string): Buffer;
}

/** Where the master key is read from: MASTER_KEY_FILE when set (shared by a cluster's instances), else DATA_DIR/master.key. */
export const masterKeyPath = (config: { dataDir: string; masterKeyFile?: string | undefined }) => config.masterKeyFile ?? join(config.dataDir, KEY_FILE);

/**
 * The master key: read from `path`, or, when `create` allows it and there is none yet, made and written there
 * (mode 0600). `created` tells the caller that this start made it, so that it can take it back when the database
 * turns out to hold secrets of another key (openApp).
 */
export function loadMasterKey(path: string, options: { create: boolean }): { key: Buffer; created: boolean } {
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${path} is not a 32-byte base64 key; refusing to start with a damaged master key`);
    return { key, created: false };
  }
  if (!options.create) throw new Error(`the master key file ${path} does not exist (MASTER_KEY_FILE names a key it does not create)`);
  const key = randomBytes(32);
  try {
    writeFileSync(path, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // another process (the CLI during a first start) created it first: use that one
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadMasterKey(path, options);
    throw error;
  }
  chmodSync(path, 0o600);
  return { key, created: true };
}

/** DATA_DIR/master.key, made on first use (the CLI's commands and imports that work on one data dir). */
export function loadOrCreateMasterKey(dataDir: string): Buffer {
  return loadMasterKey(join(dataDir, KEY_FILE), { create: true }).key;
}

/**
 * How the database recognizes its master key (db/key-check.ts): a fingerprint derived from the key, which tells
 * whether a key is the same without revealing it or any secret, and a trial decryption for databases that keep no
 * fingerprint yet.
 */
export function masterKeyIdentity(secrets: Secrets, path: string) {
  return {
    path,
    fingerprint: secrets.derive('master-key-check').toString('base64url'),
    decrypts(ciphertext: string): boolean {
      try {
        secrets.decrypt(ciphertext);
        return true;
      } catch {
        return false;
      }
    },
  };
}

export function createSecrets(masterKey: Buffer): Secrets {
  const derive = (purpose: string) => createHmac('sha256', masterKey).update(`hearth:${purpose}`).digest();
  const encKey = derive('encrypt');
  const macKey = derive('digest');
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
    },
    decrypt(ciphertext) {
      const [version, iv, body, tag] = ciphertext.split('.');
      if (version !== VERSION || !iv || body === undefined || !tag) throw new Error('Unreadable ciphertext');
      const ivBytes = Buffer.from(iv, 'base64url');
      if (ivBytes.length !== 12) throw new Error('Unreadable ciphertext');
      // a full 16-byte tag only: GCM would otherwise accept a truncated one
      const decipher = createDecipheriv('aes-256-gcm', encKey, ivBytes, { authTagLength: 16 });
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
    digest: (value) => createHmac('sha256', macKey).update(value).digest('base64url'),
    derive,
  };
}

/** Compares two strings in time that depends only on their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random string over [A-Za-z0-9] without modulo bias. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');
