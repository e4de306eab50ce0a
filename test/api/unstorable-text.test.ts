// Text the two engines cannot store alike (issue 43, docs/decisions.md "Text both engines store alike"): U+0000,
// which PostgreSQL refuses in text and jsonb (a 500 before) and SQLite stores, and a lone UTF-16 surrogate, which
// PostgreSQL's driver turns into one U+FFFD and SQLite's into three. Both engines refuse a request holding either,
// in any string or field name, as INVALID_ARGUMENT naming the field, before its handler writes anything; well-formed
// text sent as escapes (a surrogate pair) is stored exactly. This file runs under `npm test` and `npm run test:pg`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyHeaders, dataOf, errorOf, raw, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
});
afterAll(() => t.close());

const NUL = '\u0000';
const LONE = '\ud800';

const refusal = async (path: string, data: unknown) => {
  const res = await t.callK(path, data);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  return errorOf(res);
};

describe('U+0000 and lone surrogates', () => {
  it('are refused in each field the issue found answering 500 on PostgreSQL, naming the field, and nothing is stored', async () => {
    expect(
      await refusal('/v2/organizations/documents/add', { organizationId: 'acme', documents: [{ documentId: 'named', documentName: `a${NUL}b` }] }),
    ).toEqual({
      status: 'INVALID_ARGUMENT',
      message: 'documents[0].documentName must not contain the NUL character (U+0000).',
    });
    const notification = {
      organizationId: 'acme',
      documentId: 'doc',
      actionUser: { userId: 'ann' },
      displayHeadlineMessageTemplate: 'h',
      notifyUsers: [{ userId: 'bob' }],
    };
    expect((await refusal('/v2/notifications/add', { ...notification, displayBodyMessage: `body${NUL}` })).message).toBe(
      'displayBodyMessage must not contain the NUL character (U+0000).',
    );
    expect((await refusal('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'zed', name: `Z${NUL}` }] })).message).toBe(
      'users[0].name must not contain the NUL character (U+0000).',
    );
    expect((await refusal('/v2/users/add', { organizationId: 'acme', users: [{ userId: 'fine' }, { userId: `nul${NUL}id` }] })).message).toBe(
      'users[1].userId must not contain the NUL character (U+0000).',
    );
    expect(
      (
        await refusal('/v2/activities/add', {
          organizationId: 'acme',
          documentId: 'doc',
          activities: [{ featureType: 'custom', actionType: 'custom.x', actionUser: { userId: 'ann' }, targetEntityId: 't', displayMessageTemplate: `${NUL}` }],
        })
      ).message,
    ).toBe('activities[0].displayMessageTemplate must not contain the NUL character (U+0000).');
    const thread = (commentText: string) => ({
      organizationId: 'acme',
      documentId: 'doc',
      commentAnnotations: [{ annotationId: 'thread', commentData: [{ commentText, from: { userId: 'ann' } }] }],
    });
    expect((await refusal('/v2/commentannotations/add', thread(`hi${NUL}`))).message).toBe(
      'commentAnnotations[0].commentData[0].commentText must not contain the NUL character (U+0000).',
    );
    // a lone surrogate the same way, where no schema refused it before (free text)
    expect((await refusal('/v2/commentannotations/add', thread(`hi${LONE}`))).message).toBe(
      'commentAnnotations[0].commentData[0].commentText must be well-formed Unicode text.',
    );
    expect((await refusal('/v2/notifications/add', { ...notification, displayBodyMessage: `\udc00 low` })).message).toBe(
      'displayBodyMessage must be well-formed Unicode text.',
    );

    // none of them wrote anything
    expect(await t.query("SELECT id FROM documents WHERE id = 'named'")).toEqual([]);
    expect(await t.query("SELECT id FROM users WHERE id IN ('zed', 'fine')")).toEqual([]);
    expect(await t.query("SELECT id FROM comment_annotations WHERE id = 'thread'")).toEqual([]);
    expect(await t.query('SELECT id FROM notifications')).toEqual([]);
  });

  it('are refused in field names and in free-form values (metadata, template data), naming where', async () => {
    const document = (metadata: unknown) => ({ organizationId: 'acme', documents: [{ documentId: 'meta', metadata }] });
    expect((await refusal('/v2/organizations/documents/add', document({ [`k${NUL}`]: 1 }))).message).toBe(
      'documents[0].metadata has a field name that contains the NUL character (U+0000).',
    );
    expect((await refusal('/v2/organizations/documents/add', document({ [`k${LONE}`]: 1 }))).message).toBe(
      'documents[0].metadata has a field name that is not well-formed Unicode text.',
    );
    expect((await refusal('/v2/organizations/documents/add', document({ deep: [{ list: ['ok', `x${NUL}`] }] }))).message).toBe(
      'documents[0].metadata.deep[0].list[1] must not contain the NUL character (U+0000).',
    );
    // an unknown field is no exception: nothing holding such text reaches a handler
    expect((await refusal('/v2/ping', { extra: NUL })).message).toBe('extra must not contain the NUL character (U+0000).');
  });

  it('stores well-formed text sent as escapes exactly, on either engine, and a body that only spells the escape out', async () => {
    // "\\u0000" in JSON is a backslash followed by "u0000": plain text, stored as it is
    const name = '😀 \\u0000 \\ud800 é';
    const body = JSON.stringify({ data: { organizationId: 'acme', documents: [{ documentId: 'escaped', documentName: name }] } }).replace(
      '😀',
      '\\ud83d\\ude00',
    );
    expect(body).toContain('\\ud83d\\ude00');
    const res = await raw(t.url, '/v2/organizations/documents/add', body, apiKeyHeaders(t.credentials));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [stored] = dataOf<Array<{ documentName: string }>>(
      await t.callK('/v2/organizations/documents/get', { organizationId: 'acme', documentIds: ['escaped'] }),
    );
    expect(stored?.documentName).toBe(name);
  });
});
