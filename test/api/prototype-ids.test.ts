// Issue 28, point 7: ids named like Object.prototype's members are ids like any other. Every bulk operation whose
// answer is keyed by the caller's ids is called with `__proto__`, `constructor` and `toString`: each id has its own
// per-item outcome (a plain `{}` swallowed `__proto__`, and already "had" `constructor`), and the rows are stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Y from 'yjs';
import { dataOf, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

const IDS = ['__proto__', 'constructor', 'toString'] as const;
const ORG = 'proto-org';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

/** Calls `path`; expects 200 and returns `result.data`. */
async function ok(path: string, data: unknown): Promise<Record<string, unknown>> {
  const res = await t.callK(path, data);
  expect({ path, status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ path, status: 200, body: 'ok' });
  return dataOf<Record<string, unknown>>(res);
}

/** Each of IDS has its own outcome in `data`, with `success` (and `message` when given). */
function outcomes(data: Record<string, unknown>, success: boolean, message?: string) {
  for (const id of IDS) {
    expect({ id, own: Object.hasOwn(data, id) }).toEqual({ id, own: true });
    const outcome = data[id] as { success: boolean; message: string };
    expect({ id, success: outcome.success }).toEqual({ id, success });
    if (message !== undefined) expect({ id, message: outcome.message }).toEqual({ id, message });
  }
}

describe('ids named like Object.prototype members', () => {
  it('organizations add, update, disable state, get and delete', async () => {
    outcomes(
      await ok('/v2/organizations/add', { organizations: IDS.map((organizationId) => ({ organizationId, organizationName: `name of ${organizationId}` })) }),
      true,
      'Added Successfully',
    );
    outcomes(await ok('/v2/organizations/add', { organizations: IDS.map((organizationId) => ({ organizationId })) }), false, 'Organization already exists');
    outcomes(
      await ok('/v2/organizations/update', { organizations: IDS.map((organizationId) => ({ organizationId, metadata: { k: organizationId } })) }),
      true,
      'Updated Successfully',
    );
    outcomes(await ok('/v2/organizations/access/disablestate/update', { organizationIds: [...IDS], disabled: false }), true);
    const stored = (await ok('/v2/organizations/get', { organizationIds: [...IDS] })) as unknown as Array<{
      id: string;
      organizationName: string;
      metadata: { k: string };
    }>;
    expect(stored.map((o) => [o.id, o.organizationName, o.metadata.k]).sort()).toEqual(IDS.map((id) => [id, `name of ${id}`, id]).sort());
    outcomes(await ok('/v2/organizations/delete', { organizationIds: [...IDS] }), true);
    expect(await ok('/v2/organizations/get', { organizationIds: [...IDS] })).toEqual([]);
  });

  it('users add, update and delete; permissions get', async () => {
    outcomes(
      await ok('/v2/users/add', { organizationId: ORG, users: IDS.map((userId) => ({ userId, name: `N ${userId}`, accessRole: 'viewer' })) }),
      true,
      'User added.',
    );
    outcomes(await ok('/v2/users/update', { organizationId: ORG, users: IDS.map((userId) => ({ userId, accessRole: 'editor' })) }), true, 'User updated.');
    const access = await ok('/v2/auth/permissions/get', { organizationId: ORG, userIds: [...IDS] });
    for (const id of IDS) {
      expect(Object.hasOwn(access, id)).toBe(true);
      expect((access[id] as { organization: Record<string, { accessRole: string }> }).organization[ORG]?.accessRole).toBe('editor');
    }
    outcomes(await ok('/v2/users/delete', { organizationId: ORG, userIds: [...IDS] }), true, 'User removed.');
    outcomes(await ok('/v2/users/delete', { organizationId: ORG, userIds: [...IDS] }), false, 'User does not exist.');
    outcomes(await ok('/v2/users/update', { organizationId: ORG, users: IDS.map((userId) => ({ userId })) }), false, 'User does not exist.');
  });

  it('permissions add, with documents of these ids', async () => {
    await ok('/v2/organizations/documents/add', {
      organizationId: 'perm-org',
      createOrganization: true,
      documents: IDS.map((documentId) => ({ documentId, accessType: 'restricted' })),
    });
    const res = await t.callK('/v2/auth/permissions/add', {
      user: { userId: 'toString' },
      permissions: { resources: IDS.map((id) => ({ type: 'document', id, organizationId: 'perm-org', accessRole: 'viewer' })) },
    });
    expect(res.status).toBe(200);
    const access = await ok('/v2/auth/permissions/get', { organizationId: 'perm-org', userIds: ['toString'], documentIds: [...IDS] });
    const documents = (access.toString as unknown as { documents: Record<string, { accessRole: string }> }).documents;
    for (const id of IDS) expect({ id, role: Object.hasOwn(documents, id) ? documents[id]?.accessRole : 'missing' }).toEqual({ id, role: 'viewer' });
  });

  it('documents add, update, access type, disable state, get and delete', async () => {
    outcomes(
      await ok('/v2/organizations/documents/add', { organizationId: ORG, createOrganization: true, documents: IDS.map((documentId) => ({ documentId })) }),
      true,
      'Added Successfully',
    );
    outcomes(
      await ok('/v2/organizations/documents/update', { organizationId: ORG, documents: IDS.map((documentId) => ({ documentId, documentName: documentId })) }),
      true,
      'Updated Successfully',
    );
    outcomes(await ok('/v2/organizations/documents/access/update', { organizationId: ORG, documentIds: [...IDS], accessType: 'restricted' }), true);
    outcomes(await ok('/v2/organizations/documents/access/disablestate/update', { organizationId: ORG, documentIds: [...IDS], disabled: true }), true);
    const stored = (await ok('/v2/organizations/documents/get', { organizationId: ORG, documentIds: [...IDS] })) as unknown as Array<{
      id: string;
      documentName: string;
      accessType: string;
      disabled: boolean;
    }>;
    expect(stored.map((d) => [d.id, d.documentName, d.accessType, d.disabled])).toEqual(IDS.map((id) => [id, id, 'restricted', true]));
    outcomes(await ok('/v2/organizations/documents/delete', { organizationId: ORG, documentIds: [...IDS] }), true);
  });

  it('folders add, update and access', async () => {
    outcomes(
      await ok('/v2/organizations/folders/add', { organizationId: ORG, createOrganization: true, folders: IDS.map((folderId) => ({ folderId })) }),
      true,
      'Folder added.',
    );
    outcomes(
      await ok('/v2/organizations/folders/add', { organizationId: ORG, folders: IDS.map((folderId) => ({ folderId })) }),
      false,
      'Folder already exists.',
    );
    outcomes(
      await ok('/v2/organizations/folders/update', { organizationId: ORG, folders: IDS.map((folderId) => ({ folderId, folderName: `F ${folderId}` })) }),
      true,
    );
    outcomes(await ok('/v2/organizations/folders/access/update', { organizationId: ORG, folderIds: [...IDS], accessType: 'organizationPrivate' }), true);
    const tree = (await ok('/v2/organizations/folders/get', { organizationId: ORG })) as unknown as Array<{
      folderId: string;
      folderName: string;
      accessType: string;
    }>;
    const mine = tree.filter((f) => (IDS as readonly string[]).includes(f.folderId));
    expect(mine.map((f) => [f.folderId, f.folderName, f.accessType]).sort()).toEqual(IDS.map((id) => [id, `F ${id}`, 'organizationPrivate']).sort());
  });

  it('user groups add; group users add and delete', async () => {
    outcomes(
      await ok('/v2/organizations/usergroups/add', {
        organizationId: ORG,
        createOrganization: true,
        organizationUserGroups: IDS.map((groupId) => ({ groupId })),
      }),
      true,
    );
    await ok('/v2/users/add', { organizationId: ORG, users: IDS.map((userId) => ({ userId })) });
    outcomes(await ok('/v1/organizations/usergroups/users/add', { organizationId: ORG, organizationUserGroupId: '__proto__', userIds: [...IDS] }), true);
    outcomes(await ok('/v2/organizations/usergroups/users/delete', { organizationId: ORG, organizationUserGroupId: '__proto__', userIds: [...IDS] }), true);
  });

  it('notifications update and delete', async () => {
    await ok('/v2/organizations/documents/add', { organizationId: 'feed-org', createOrganization: true, documents: [{ documentId: 'd' }] });
    for (const notificationId of IDS) {
      await ok('/v2/notifications/add', {
        organizationId: 'feed-org',
        documentId: 'd',
        notificationId,
        actionUser: { userId: 'a' },
        displayHeadlineMessageTemplate: 'h',
        displayBodyMessage: 'b',
        notifyAll: false,
        notifyUsers: [{ userId: 'b' }],
      });
    }
    outcomes(
      await ok('/v2/notifications/update', { organizationId: 'feed-org', notifications: IDS.map((id) => ({ id, displayBodyMessage: `body ${id}` })) }),
      true,
      'Notification updated.',
    );
    outcomes(await ok('/v2/notifications/delete', { organizationId: 'feed-org', notificationIds: [...IDS] }), true, 'Notification deleted.');
    outcomes(await ok('/v2/notifications/delete', { organizationId: 'feed-org', notificationIds: [...IDS] }), false);
  });

  it('activities update and delete', async () => {
    await ok('/v2/activities/add', {
      organizationId: 'feed-org',
      createOrganization: true,
      documentId: 'd',
      activities: IDS.map((id) => ({ id, featureType: 'custom', actionType: 'custom.x', actionUser: { userId: 'a' }, targetEntityId: 't' })),
    });
    outcomes(
      await ok('/v2/activities/update', { organizationId: 'feed-org', activities: IDS.map((id) => ({ id, displayMessageTemplate: `m ${id}` })) }),
      true,
      'Activity updated.',
    );
    outcomes(await ok('/v2/activities/delete', { organizationId: 'feed-org', activityIds: [...IDS] }), true, 'Activity deleted.');
    outcomes(await ok('/v2/activities/delete', { organizationId: 'feed-org', activityIds: [...IDS] }), false);
  });

  it('comment annotations add, update, read and delete; reactions and recordings delete', async () => {
    const added = await ok('/v2/commentannotations/add', {
      organizationId: 'feed-org',
      documentId: 'd',
      commentAnnotations: IDS.map((annotationId) => ({ annotationId, commentData: [{ commentText: `on ${annotationId}`, from: { userId: 'a' } }] })),
    });
    outcomes(added, true);
    outcomes(await ok('/v2/commentannotations/update', { organizationId: 'feed-org', annotationIds: [...IDS], updatedData: { priority: 'high' } }), true);
    outcomes(await ok('/v2/commentannotations/read/update', { organizationId: 'feed-org', annotationIds: [...IDS], userId: 'b' }), true);
    outcomes(await ok('/v2/commentannotations/delete', { organizationId: 'feed-org', annotationIds: [...IDS] }), true);
    outcomes(await ok('/v2/commentannotations/delete', { organizationId: 'feed-org', annotationIds: [...IDS] }), false);
    outcomes(await ok('/v2/reactions/delete', { organizationId: 'feed-org', reactionIds: [...IDS] }), false);
    outcomes(await ok('/v2/recordings/delete', { organizationId: 'feed-org', recordingIds: [...IDS] }), false);
  });

  it('crdt delete, of editors of these ids and of none', async () => {
    for (const editorId of IDS) await ok('/v2/crdt/add', { organizationId: ORG, documentId: 'doc', editorId, type: 'text', data: editorId });
    outcomes(await ok('/v2/crdt/delete', { organizationId: ORG, documentId: 'doc', editorIds: [...IDS] }), true, 'CRDT data deleted.');
    outcomes(await ok('/v2/crdt/delete', { organizationId: ORG, documentId: 'doc', editorIds: [...IDS] }), false);
  });

  it('XML content keeps attributes and entities named like them', async () => {
    const data = '<p __proto__="a" constructor="b" toString="c">&constructor; &toString; &amp;</p>';
    await ok('/v2/crdt/add', { organizationId: ORG, documentId: 'xml', editorId: 'e', type: 'xml', data });
    // an unknown entity stays as written (a plain object's lookup found Object's constructor function)
    const stored = (await ok('/v2/crdt/get', { organizationId: ORG, documentId: 'xml', editorId: 'e' })) as unknown as Array<{ data: string }>;
    expect(stored[0]?.data).toContain('>&constructor; &toString; &</p>');
    // every attribute is in the document a client syncs (Yjs's own toString leaves out __proto__)
    const client = connectYjs(
      t.url,
      { organizationId: ORG, documentId: 'xml', editorId: 'e' },
      { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken },
    );
    try {
      await client.synced;
      const p = client.doc.getXmlFragment('content').get(0) as Y.XmlElement;
      expect(IDS.map((name) => p.getAttribute(name))).toEqual(['a', 'b', 'c']);
    } finally {
      client.close();
    }
  });
});
