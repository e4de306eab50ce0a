// One-time sign-in links for the admin UI, as Jupyter prints a tokened URL at start: whoever can read the
// server's output (or the data dir) can sign in; anything else that merely reaches the port cannot. A link is
// `/admin/signin?token=…`: signed with a key derived from the master key, naming a workspace, this server run
// (its boot id, so a restart voids every earlier link) and an expiry; it sets the session cookie once.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGN_IN_PATH = '/admin/signin';
/** A printed link stays usable this long (a workday): long enough to be clicked later, short enough to leak little. */
export const SIGN_IN_TTL_MS = 12 * 60 * 60 * 1000;

interface Claims {
  /** workspace */
  w: string;
  /** boot id of the server run the link is for */
  b: string;
  /** expiry, epoch ms */
  e: number;
  /** nonce: what makes the link single-use */
  n: string;
}

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

/** A sign-in token for `workspaceId` on the server run `bootId`; `key` is the master key's `admin-sign-in` derivation. */
export function mintSignInToken(key: Buffer, bootId: string, workspaceId: string, ttlMs = SIGN_IN_TTL_MS): string {
  const claims: Claims = { w: workspaceId, b: bootId, e: Date.now() + ttlMs, n: randomBytes(12).toString('base64url') };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(key, payload)}`;
}

/** The link a browser opens: `base` is the server's URL. */
export const signInLinkOf = (base: string, token: string) => `${base}${SIGN_IN_PATH}?token=${token}`;

/** The sign-in links of one server run: mints them, and redeems each at most once. */
export function createSignInLinks(key: Buffer, bootId: string) {
  // nonces redeemed in this run, until their links expire
  const used = new Map<string, number>();
  return {
    bootId,
    mint: (workspaceId: string, ttlMs?: number) => mintSignInToken(key, bootId, workspaceId, ttlMs),
    /** The workspace a valid, unused token signs in to (the token is spent by this), or null. */
    redeem(token: string): string | null {
      const dot = token.indexOf('.');
      if (dot <= 0 || token.length > 1024) return null;
      const payload = token.slice(0, dot);
      const given = Buffer.from(token.slice(dot + 1));
      const expected = Buffer.from(mac(key, payload));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      let claims: Claims;
      try {
        claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims;
      } catch {
        return null;
      }
      const now = Date.now();
      if (claims.b !== bootId || !(claims.e > now) || typeof claims.w !== 'string' || typeof claims.n !== 'string' || used.has(claims.n)) return null;
      for (const [nonce, expires] of used) if (expires <= now) used.delete(nonce);
      used.set(claims.n, claims.e);
      return claims.w;
    },
  };
}

export type SignInLinks = ReturnType<typeof createSignInLinks>;
