// Who may join a cluster (issue 31): instances with REDIS_URL share one PostgreSQL database; a server without it is
// refused while they run (it would hold the database alone, and hear nothing of what they tell each other); an
// instance given another master key is refused before it changes anything, since it could read none of the secrets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../server/index.ts';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { tempDirs } from '../helpers/transfer.ts';

const temp = tempDirs();
let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster(2);
});
afterAll(() => cluster?.close());

const options = (more: Record<string, unknown>) => ({ port: 0, host: '127.0.0.1', logLevel: 'silent' as const, dataDir: temp('hearth-join-'), ...more });

describe('joining a cluster', () => {
  it('two instances run on one database, and answer for the same workspace', async () => {
    const [a, b] = cluster.instances;
    expect((await a!.callK('/v2/organizations/add', { organizations: [{ organizationId: 'shared', organizationName: 'Shared' }] })).status).toBe(200);
    const seen = await b!.callK('/v2/organizations/get', { organizationIds: ['shared'] });
    expect(seen.status).toBe(200);
    expect(JSON.stringify(seen.body)).toContain('Shared');
  });

  it('refuses a server without REDIS_URL while instances of a cluster run', async () => {
    await expect(createServer(options({ databaseUrl: cluster.databaseUrl, masterKeyFile: cluster.masterKeyFile }))).rejects.toThrow(
      /another Hearth server runs on this PostgreSQL database: instances that share one database need Redis between them/,
    );
  });

  it('refuses an instance with another master key, naming MASTER_KEY_FILE', async () => {
    await expect(createServer(options({ databaseUrl: cluster.databaseUrl, redisUrl: cluster.redisUrl }))).rejects.toThrow(
      /is not the key this database's secrets are encrypted under .*give every instance the same MASTER_KEY_FILE/,
    );
  });

  it('lets a third instance join', async () => {
    const third = await cluster.add();
    expect((await third.callK('/v2/organizations/get', { organizationIds: ['shared'] })).status).toBe(200);
  });
});
