import type { TestServer } from './server.ts';

/** The admin UI's session cookie (`name=value`), signed in by itself as on loopback. */
export async function adminCookie(t: TestServer): Promise<string> {
  const res = await fetch(t.url + '/admin/api/session', { headers: { 'x-hearth-ui': '1' } });
  if (res.status !== 200) throw new Error(`admin session: ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
}
