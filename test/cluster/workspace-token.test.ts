// Issue 42, point 10a across a cluster: a workspace auth token rotated through one instance is refused by another
// that had verified (and cached) it, once PostgreSQL's change notification reaches it (milliseconds: the same path
// as an API key's token reset, http/credentials.ts); the new token works there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { call, dataOf, eventually, workspaceHeaders } from '../helpers/server.ts';

let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster(2);
});
afterAll(() => cluster?.close());

describe('workspace auth token rotation in a cluster', () => {
  it('the old token stops working on the other instance, the new one works there', async () => {
    const [a, b] = cluster.instances as [NonNullable<Cluster['instances'][0]>, NonNullable<Cluster['instances'][0]>];
    const ws = await createWorkspace(a);
    const getOn = (url: string, token: string) =>
      call(url, '/v2/workspace/get', {}, workspaceHeaders({ workspaceId: ws.workspaceId, workspaceAuthToken: token }));
    // b verifies the old token and keeps it in its credentials cache
    expect((await getOn(b.url, ws.workspaceAuthToken)).status).toBe(200);
    expect((await getOn(b.url, ws.workspaceAuthToken)).status).toBe(200);

    const rotated = await call(a.url, '/v2/workspace/workspaceauthtoken/rotate', {}, ws.headersW);
    expect(rotated.status).toBe(200);
    const { authToken } = dataOf<{ authToken: string }>(rotated);

    expect((await getOn(a.url, ws.workspaceAuthToken)).status).toBe(403);
    await eventually(async () => expect((await getOn(b.url, ws.workspaceAuthToken)).status).toBe(403));
    expect((await getOn(b.url, authToken)).status).toBe(200);
  });
});
