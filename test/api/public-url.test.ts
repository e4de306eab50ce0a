// PUBLIC_URL: the links Hearth hands out (login links, recording attachments) name the address clients reach it
// at, while it goes on listening where it listens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnvAndArgs, resolveConfig } from '../../server/config.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { b64, WEBM } from '../helpers/media.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpServer } from '../helpers/smtp.ts';

const PUBLIC = 'https://hearth.example.test/team';
let t: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestServer({ smtpUrl: smtp.url, publicUrl: `${PUBLIC}/` });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

describe('publicUrl', () => {
  it('names the attachments of a recording, which are served where the server listens', async () => {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'd1' }] });
    const recording = {
      recordingId: 'r1',
      recordingType: 'audio',
      from: { userId: 'ann' },
      recordedTime: { duration: 1000 },
      attachments: [{ name: 'a.webm', mimeType: 'audio/webm', data: b64(WEBM) }],
    };
    expect((await t.callK('/v2/recordings/add', { organizationId: 'acme', documentId: 'd1', recording })).status).toBe(200);
    const got = await t.callK('/v2/recordings/get', { organizationId: 'acme', documentId: 'd1' });
    const url = dataOf<Array<{ attachments: Array<{ url: string }> }>>(got)[0]!.attachments[0]!.url;
    expect(url).toMatch(/^https:\/\/hearth\.example\.test\/team\/attachments\/[A-Za-z0-9]{32}$/);
    const served = await fetch(t.url + url.slice(PUBLIC.length));
    expect(Buffer.from(await served.arrayBuffer())).toEqual(WEBM);
  });

  it('names the login link, and allows its host as a continueUrl', async () => {
    const ws = await createWorkspace(t);
    const continueUrl = `${PUBLIC}/console`;
    expect((await t.callPublic('/v2/workspace/email/send-login-link', { email: ws.ownerEmail, continueUrl })).status).toBe(200);
    const mail = await eventually(() => {
      const found = smtp.received.find((m) => m.to.includes(ws.ownerEmail));
      if (!found) throw new Error('not delivered yet');
      return found;
    });
    const link = mail.decoded.match(/https:\/\/hearth\.example\.test\/team\/auth\/email-link\?token=[A-Za-z0-9_-]+/)?.[0];
    expect(link).toBeDefined();
    // the page's form posts to a relative action: under PUBLIC_URL's path, as the link itself
    const opened = await fetch(t.url + link!.slice(PUBLIC.length));
    expect(await opened.text()).toContain('action="email-link"');
    expect(new URL('email-link', link!).href).toBe(`${PUBLIC}/auth/email-link`);
    const token = new URL(link!).searchParams.get('token')!;
    const used = await fetch(`${t.url}/auth/email-link`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
    expect(used.status).toBe(303);
    expect(used.headers.get('location')).toBe(continueUrl);
  });

  it('is read from PUBLIC_URL, without its trailing slashes, and must be a plain http(s) URL', () => {
    expect(configFromEnvAndArgs({ PUBLIC_URL: 'http://hearth.lan:8787' }, {}).publicUrl).toBe('http://hearth.lan:8787');
    expect(configFromEnvAndArgs({ PUBLIC_URL: '' }, {}).publicUrl).toBeUndefined();
    expect(resolveConfig({ publicUrl: 'http://hearth.lan:8787//' }).publicUrl).toBe('http://hearth.lan:8787');
    expect(resolveConfig({}).publicUrl).toBeUndefined();
    for (const bad of [
      'hearth.lan:8787',
      'ftp://hearth.lan/',
      'http://user:pw@hearth.lan/',
      'http://hearth.lan/?a=1',
      'http://hearth.lan/#x',
      'http://hearth.lan/?',
    ]) {
      expect(() => resolveConfig({ publicUrl: bad }), bad).toThrow(/^Invalid configuration: publicUrl: must be an http\(s\) URL/);
    }
  });
});
