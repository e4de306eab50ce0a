import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../helpers/factories.ts';
import { adminCookie } from '../helpers/admin.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import type { WorkspaceAnswer } from '../helpers/answers.ts';

let t: TestServer;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  cookie = await adminCookie(t);
});
afterAll(() => t.close());

describe('admin mailbox', () => {
  it("lists the workspace's mail and opens one with its text and HTML", async () => {
    const owner = dataOf<WorkspaceAnswer>(await t.callW('/v2/workspace/get', {})).owner.email;
    expect((await t.callPublic('/v2/workspace/email/send-login-link', { email: owner, continueUrl: `${t.url}/` })).status).toBe(200);
    const other = await createWorkspace(t);
    await t.callPublic('/v2/workspace/email/send-login-link', { email: other.ownerEmail, continueUrl: `${t.url}/` });
    const items = await eventually(async () => {
      const list = (await (await fetch(t.url + '/admin/api/mail', { headers: { cookie } })).json()).items;
      expect(list).toHaveLength(1);
      return list;
    });
    expect(items[0]).toMatchObject({ kind: 'login-link', to: owner, subject: 'Your Hearth sign-in link' });
    const mail = await (await fetch(t.url + `/admin/api/mail/${items[0].id}`, { headers: { cookie } })).json();
    expect(mail.text).toMatch(/\/auth\/email-link\?token=/);
    expect(mail.html).toContain('<');
    const theirs = (await t.server.app.mail.list()).find((m: any) => m.to === other.ownerEmail);
    expect((await fetch(t.url + `/admin/api/mail/${theirs!.id}`, { headers: { cookie } })).status).toBe(404);
    expect((await fetch(t.url + '/admin/api/mail')).status).toBe(401);
  });
});
