import type { TestServer } from './server.ts';

/**
 * The admin UI's session cookie (`name=value`), signed in as a browser would: by opening a one-time sign-in link
 * (the default workspace's unless `workspaceId` is given).
 */
export async function adminCookie(t: TestServer, workspaceId?: string): Promise<string> {
  const res = await fetch(t.server.signInLink(workspaceId), { redirect: 'manual' });
  if (res.status !== 303) throw new Error(`admin sign-in link: ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
}
