/**
 * A populated API key for the export/import tests, made through the real API (HTTP and y-websocket), and the
 * read operations whose answers must survive an export and an import unchanged.
 */
import { expect } from 'vitest';
import * as Y from 'yjs';
import { operations } from '../../server/operations/index.ts';
import { b64, PNG, WEBM } from './media.ts';
import { dataOf, eventually, type CallResult, type Headers_, type TestServer } from './server.ts';
import { REVIEW_FLOW } from './workflows.ts';
import { connectYjs } from './yjs.ts';

export interface KeyCredentials {
  apiKey: string;
  authToken: string;
  headersK: Headers_;
}

async function ok(t: TestServer, path: string, data: unknown, headers: Headers_): Promise<CallResult<unknown>> {
  const res = await t.callK<unknown>(path, data, headers);
  if (res.status !== 200) throw new Error(`${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/** Everything an API key can hold, in organization `org`; `marker` is put in names so a scan of files finds it. */
export async function populateKey(t: TestServer, key: KeyCredentials, org: string, marker: string, options: { webhookReceiverUrl?: string } = {}) {
  const h = key.headersK;
  await ok(t, '/v2/organizations/add', { organizations: [{ organizationId: org, organizationName: `${marker} org` }] }, h);
  await ok(
    t,
    '/v2/organizations/folders/add',
    { organizationId: org, folders: [{ folderId: 'plans', folderName: `${marker} plans`, accessType: 'restricted' }] },
    h,
  );
  await ok(t, '/v2/organizations/folders/add', { organizationId: org, folders: [{ folderId: 'q1', folderName: 'Q1', parentFolderId: 'plans' }] }, h);
  await ok(
    t,
    '/v2/organizations/documents/add',
    {
      organizationId: org,
      documents: [
        { documentId: 'spec', documentName: `${marker} spec`, folderId: 'q1' },
        { documentId: 'notes', accessType: 'public' },
      ],
    },
    h,
  );
  await ok(
    t,
    '/v2/users/add',
    {
      organizationId: org,
      users: [
        { userId: 'ann', name: `${marker} Ann`, email: 'ann@example.com' },
        { userId: 'bob', name: 'Bob' },
      ],
    },
    h,
  );
  await ok(
    t,
    '/v2/auth/permissions/add',
    { user: { userId: 'bob' }, permissions: { resources: [{ type: 'document', id: 'spec', organizationId: org, accessRole: 'viewer' }] } },
    h,
  );
  await ok(t, '/v2/organizations/usergroups/add', { organizationId: org, organizationUserGroups: [{ groupId: 'eng', groupName: 'Engineering' }] }, h);
  await ok(t, '/v1/organizations/usergroups/users/add', { organizationId: org, organizationUserGroupId: 'eng', userIds: ['ann'] }, h);
  await ok(
    t,
    '/v2/notifications/add',
    {
      organizationId: org,
      documentId: 'spec',
      actionUser: { userId: 'ann', name: 'Ann' },
      displayHeadlineMessageTemplate: `${marker} pinged`,
      displayBodyMessage: 'please look',
      notifyUsers: [{ userId: 'bob' }],
    },
    h,
  );
  await ok(t, '/v2/notifications/config/set', { organizationId: org, userIds: ['bob'], config: { email: 'NONE' } }, h);
  await ok(
    t,
    '/v2/activities/add',
    {
      organizationId: org,
      documentId: 'spec',
      activities: [{ featureType: 'custom', actionType: 'custom.review', actionUser: { userId: 'ann' }, targetEntityId: 'spec' }],
    },
    h,
  );
  const annotation = await ok(
    t,
    '/v2/commentannotations/add',
    {
      organizationId: org,
      documentId: 'spec',
      commentAnnotations: [{ commentData: [{ commentText: `${marker} looks good`, from: { userId: 'ann', name: 'Ann' } }] }],
    },
    h,
  );
  const [entry] = Object.values(dataOf<Record<string, { annotationId: string; commentIds: number[] }>>(annotation));
  await ok(
    t,
    '/v2/reactions/add',
    { organizationId: org, annotationId: entry!.annotationId, commentId: entry!.commentIds[0], icon: '👍', from: { userId: 'bob', name: 'Bob' } },
    h,
  );
  await ok(
    t,
    '/v2/recordings/add',
    {
      organizationId: org,
      documentId: 'spec',
      recording: {
        recordingType: 'video',
        from: { userId: 'ann' },
        recordedTime: { duration: 1500 },
        attachments: [
          { name: 'take', mimeType: 'video/webm', data: b64(WEBM) },
          { name: 'thumb', mimeType: 'image/png', data: b64(PNG) },
        ],
      },
    },
    h,
  );
  await ok(t, '/v2/crdt/add', { organizationId: org, documentId: 'spec', editorId: 'body', type: 'text', data: `${marker} first draft` }, h);
  await ok(t, '/v2/crdt/update', { organizationId: org, documentId: 'spec', editorId: 'body', type: 'text', data: `${marker} second draft` }, h);
  await ok(t, '/v2/crdt/add', { organizationId: org, documentId: 'notes', editorId: 'table', type: 'map', data: { rows: 2, title: 'notes' } }, h);
  // a live client edits through y-websocket: its updates sit in the update log, not yet compacted into the snapshot
  const client = connectYjs(t.url, { organizationId: org, documentId: 'spec', editorId: 'live' }, { apiKey: key.apiKey, authToken: key.authToken });
  await client.synced;
  for (let i = 0; i < 5; i++) client.doc.getText('content').insert(0, `edit ${i} `);
  client.doc.getText('content').delete(0, 3);
  await eventually(async () => {
    const got = await ok(t, '/v2/crdt/get', { organizationId: org, documentId: 'spec', editorId: 'live' }, h);
    expect(dataOf<{ data?: string }[]>(got)[0]?.data).toBe(client.doc.getText('content').toString());
  });
  client.close();
  await ok(t, '/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'openai', customerApiKey: `sk-${marker}-openai-secret` }] }, h);
  await ok(t, '/v2/agents/create', { agentId: 'tone', name: `${marker} tone`, model: 'gpt-4o', instructions: 'Be kind.' }, h);
  await ok(
    t,
    '/v2/workflow/definitions/create',
    {
      definitionId: 'review',
      ...REVIEW_FLOW,
      name: `${marker} review`,
      webhookConfig: { url: 'http://127.0.0.1:9/hook', secret: `wf-${marker}-signing-secret` },
    },
    h,
  );
  // the key's mail sender (mail stays off)
  await ok(t, '/v2/workspace/emailconfig/update', { emailServiceConfig: { fromEmail: `${marker}@example.com`, fromCompany: marker } }, h);
  await ok(t, '/v2/workspace/domains/add', { domains: [`${marker}.example.com`] }, h);
  let endpointId: string | undefined;
  if (options.webhookReceiverUrl) {
    await ok(t, '/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, h);
    const created = await ok(
      t,
      '/v2/workspace/advancedwebhook/endpoints/create',
      { url: options.webhookReceiverUrl, filterTypes: ['comment_annotation.add'] },
      h,
    );
    endpointId = dataOf<{ id: string }>(created).id;
    await ok(
      t,
      '/v2/commentannotations/add',
      { organizationId: org, documentId: 'notes', commentAnnotations: [{ commentData: [{ commentText: 'delivered', from: { userId: 'bob' } }] }] },
      h,
    );
    await eventually(async () => {
      const attempts = await ok(t, '/v2/workspace/advancedwebhook/attempts/list', { endpointId }, h);
      expect(JSON.stringify(attempts.body)).toContain('succeeded');
    }, 15_000);
  }
  return { annotationId: entry!.annotationId, endpointId };
}

type ReadCall = { path: string; data: Record<string, unknown> };

/** Every read operation of the registry with the inputs that read the fixture (a new one fails the test until listed). */
export function readCalls(org: string, ids: { annotationId: string; endpointId?: string | undefined; apiKey: string }): Record<string, ReadCall[]> {
  const reads: Record<string, Array<Record<string, unknown>>> = {
    '/v2/workspace/get': [{}],
    '/v2/workspace/apikeys/get': [{}],
    '/v2/workspace/authtokens/get': [{ apiKey: ids.apiKey }],
    '/v2/workspace/apikeyconfig/get': [{}],
    '/v2/workspace/emailconfig/get': [{}],
    '/v2/workspace/notificationconfig/get': [{}],
    '/v2/workspace/activityconfig/get': [{}],
    '/v2/workspace/permissionproviderconfig/get': [{}],
    '/v2/workspace/domains/get': [{}],
    '/v2/agents/get': [{ agentId: 'tone' }],
    '/v2/agents/list': [{}],
    '/v2/agents/execution/get': [{ executionId: 'none' }],
    '/v2/agents/execution/list': [{}],
    '/v2/workflow/definitions/get': [{ definitionId: 'review' }],
    '/v2/workflow/definitions/list': [{}],
    '/v2/workspace/advancedwebhookconfig/get': [{}],
    '/v2/workspace/advancedwebhook/endpoints/get': [ids.endpointId ? { endpointId: ids.endpointId } : {}],
    '/v2/workspace/advancedwebhook/endpoints/secret/get': ids.endpointId ? [{ endpointId: ids.endpointId }] : [],
    '/v2/workspace/advancedwebhook/attempts/list': ids.endpointId ? [{ endpointId: ids.endpointId }] : [],
    '/v2/workspace/webhookconfig/get': [{}],
    '/v2/organizations/get': [{}, { organizationIds: [org] }],
    '/v2/organizations/folders/get': [{ organizationId: org }, { organizationId: org, folderId: 'plans' }],
    '/v2/organizations/documents/get': [{ organizationId: org }, { organizationId: org, folderId: 'q1' }],
    '/v2/auth/permissions/get': [{ organizationId: org, userIds: ['ann', 'bob'], documentIds: ['spec', 'notes'], folderIds: ['plans'] }],
    '/v2/notifications/get': [{ organizationId: org }, { organizationId: org, userId: 'bob' }],
    '/v2/notifications/config/get': [{ organizationId: org, userId: 'bob' }],
    '/v2/activities/get': [{ organizationId: org }],
    '/v2/commentannotations/get': [{ organizationId: org, documentIds: ['spec', 'notes'] }],
    '/v2/commentannotations/count/get': [{ organizationId: org, documentIds: ['spec', 'notes'], userId: 'bob' }],
    '/v2/commentannotations/comments/get': [{ organizationId: org, annotationId: ids.annotationId }],
    '/v2/reactions/get': [{ organizationId: org, annotationId: ids.annotationId }],
    '/v2/recordings/get': [{ organizationId: org }],
    '/v2/users/data/get': [{ organizationId: org, userId: 'ann' }],
    '/v2/crdt/get': [
      { organizationId: org, documentId: 'spec', editorId: 'body' },
      { organizationId: org, documentId: 'spec', editorId: 'live' },
      { organizationId: org, documentId: 'notes', editorId: 'table' },
    ],
    '/v2/memory/judgments/query': [{ query: 'good' }],
  };
  // the legacy /v1/auth/token/get issues a user token (a write, like generate_token), whatever its name says
  const registered = operations.filter((o) => /\/(get|list)$/.test(o.path) && o.path !== '/v1/auth/token/get').map((o) => o.path);
  expect(
    registered.filter((path) => !(path in reads)),
    'read operations the export test does not cover',
  ).toEqual([]);
  return Object.fromEntries(Object.entries(reads).map(([path, inputs]) => [path, inputs.map((data) => ({ path, data }))]));
}

const authOf = (path: string) => operations.find((o) => o.path === path)?.auth;

/** The answers of every read call, with what must differ between two servers (their URL, page-token MACs) normalized. */
export async function readAll(
  t: TestServer,
  calls: Record<string, ReadCall[]>,
  headers: { K: Headers_; W: Headers_ },
  normalize: (path: string, body: unknown) => unknown = (_, b) => b,
) {
  const answers: Record<string, unknown> = {};
  for (const [path, list] of Object.entries(calls)) {
    for (const [index, call] of list.entries()) {
      const res = await t.callK(call.path, call.data, authOf(path) === 'workspace' ? headers.W : headers.K);
      const text = JSON.stringify(res.body).split(t.url).join('<base-url>');
      const body = JSON.parse(text, (key, value) => (/pageToken$/i.test(key) && typeof value === 'string' ? '<page-token>' : value));
      answers[`${path}#${index}`] = { status: res.status, body: normalize(path, body) };
    }
  }
  return answers;
}

/** The CRDT documents of the fixture as Yjs content and state vectors, read over y-websocket. */
export async function crdtContent(t: TestServer, key: KeyCredentials, org: string) {
  const out: Record<string, unknown> = {};
  for (const [documentId, editorId] of [
    ['spec', 'body'],
    ['spec', 'live'],
    ['notes', 'table'],
  ] as const) {
    const client = connectYjs(t.url, { organizationId: org, documentId, editorId }, { apiKey: key.apiKey, authToken: key.authToken });
    await client.synced;
    out[`${documentId}/${editorId}`] = { json: client.doc.toJSON(), stateVector: Buffer.from(Y.encodeStateVector(client.doc)).toString('base64') };
    client.close();
  }
  return out;
}
