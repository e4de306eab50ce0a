import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../helpers/factories.ts';
import { dataOf, errorOf, resultOf, startTestServer, type TestServer } from '../../../helpers/server.ts';

/** A user's channel settings for a document (metadata.documentId) or the organization (null), as config/get answers them. */
interface ChannelConfig {
  metadata: { documentId: string | null };
  config: Record<string, string>;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', {
    organizationId: 'acme',
    createOrganization: true,
    documents: [{ documentId: 'd1' }, { documentId: 'd2' }],
  });
});
afterAll(() => t.close());

describe('/v2/notifications/config/get', () => {
  it('defaults to ALL everywhere, then reflects organization and document settings', async () => {
    const fresh = await t.callK('/v2/notifications/config/get', { organizationId: 'acme', userId: 'ann' });
    expect(fresh.status).toBe(200);
    expect(resultOf(fresh)).toEqual({
      status: 'success',
      message: 'User config fetched successfully.',
      data: [
        {
          config: { inbox: 'ALL', email: 'ALL', slack: 'ALL' },
          metadata: { organizationId: 'acme', apiKey: t.credentials.apiKey, documentId: null, userId: 'ann' },
        },
      ],
    });

    await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['ann'], config: { email: 'MINE' } });
    await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['ann'], documentIds: ['d2'], config: { inbox: 'NONE' } });
    const res = await t.callK('/v2/notifications/config/get', {
      organizationId: 'acme',
      userId: 'ann',
      documentIds: ['d1', 'd2'],
      getOrganizationConfig: true,
    });
    expect(dataOf<ChannelConfig[]>(res).map((x) => [x.metadata.documentId, x.config])).toEqual([
      ['d1', { inbox: 'ALL', email: 'MINE', slack: 'ALL' }],
      // the document sets its inbox only: its e-mail is the organization's
      ['d2', { inbox: 'NONE', email: 'MINE', slack: 'ALL' }],
      [null, { inbox: 'ALL', email: 'MINE', slack: 'ALL' }],
    ]);
    // and follows the organization's later changes of the channels it does not set
    await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['ann'], config: { email: 'NONE', inbox: 'MINE' } });
    const later = await t.callK('/v2/notifications/config/get', { organizationId: 'acme', userId: 'ann', documentIds: ['d2'] });
    expect(dataOf<ChannelConfig[]>(later)[0]!.config).toEqual({ inbox: 'NONE', email: 'NONE', slack: 'ALL' });
    // a channel the document sets keeps the document's value
    await t.callK('/v2/notifications/config/set', { organizationId: 'acme', userIds: ['ann'], documentIds: ['d2'], config: { email: 'ALL' } });
    const own = await t.callK('/v2/notifications/config/get', { organizationId: 'acme', userId: 'ann', documentIds: ['d2'] });
    expect(dataOf<ChannelConfig[]>(own)[0]!.config).toEqual({ inbox: 'NONE', email: 'ALL', slack: 'ALL' });
  });

  it('validates the input and keeps API keys apart', async () => {
    expect(errorOf(await t.callK('/v2/notifications/config/get', { organizationId: 'acme' })).message).toBe('userId is required.');
    const other = await createWorkspace(t);
    const theirs = await t.callPublic('/v2/notifications/config/get', { organizationId: 'acme', userId: 'ann' }, other.headersK);
    expect(dataOf<ChannelConfig[]>(theirs)[0]!.config).toEqual({ inbox: 'ALL', email: 'ALL', slack: 'ALL' });
  });
});
