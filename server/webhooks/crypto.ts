import { constants, createCipheriv, createHmac, createPublicKey, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';

/** A new Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes (what Svix generates). */
export const newSigningSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * The `webhook-signature` value of the Standard Webhooks spec: `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`
 * under each secret (more than one during a rotation overlap), space-separated.
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  const signed = `${id}.${timestamp}.${body}`;
  return secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
          .update(signed)
          .digest('base64')}`,
    )
    .join(' ');
}

const stripArmour = (key: string) => key.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');

/**
 * Reads a receiver's RSA public key given as the base64 body of an SPKI (`PUBLIC KEY`) or PKCS#1
 * (`RSA PUBLIC KEY`) PEM, or as the whole PEM. Returns the stored form (the body) and the key, or null.
 */
export function parsePublicKey(input: string): { body: string; key: KeyObject } | null {
  const body = stripArmour(input);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
  const lines = body.match(/.{1,64}/g)?.join('\n') ?? '';
  for (const type of ['PUBLIC KEY', 'RSA PUBLIC KEY']) {
    try {
      const key = createPublicKey(`-----BEGIN ${type}-----\n${lines}\n-----END ${type}-----\n`);
      if (key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 1024) return { body, key };
    } catch {
      // try the other PEM type
    }
  }
  return null;
}

/**
 * reference.md 4.4: the JSON encrypted with AES-256-CBC under a random key and IV; the key wrapped with RSA-OAEP
 * (SHA-256) under the receiver's public key.
 */
export function encryptPayload(json: string, publicKey: KeyObject): { encryptedData: string; encryptedKey: string; iv: string } {
  const key = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const encryptedData = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
  const encryptedKey = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, key);
  return { encryptedData: encryptedData.toString('base64'), encryptedKey: encryptedKey.toString('base64'), iv: iv.toString('base64') };
}

/**
 * The body a receiver gets. With both flags on, Hearth encrypts first and then encodes the encrypted envelope:
 * the outer `{encodedPayload}` is what an encode-only receiver already unwraps, and what it finds inside is the
 * encrypted envelope it then decrypts (docs/decisions.md).
 */
export function encodeBody(payload: unknown, options: { encodeData: boolean; encryptWith: KeyObject | null }): string {
  let body = JSON.stringify(payload);
  if (options.encryptWith) body = JSON.stringify(encryptPayload(body, options.encryptWith));
  if (options.encodeData) body = JSON.stringify({ encodedPayload: Buffer.from(body, 'utf8').toString('base64') });
  return body;
}
