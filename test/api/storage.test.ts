import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { MAIN_AUTOCHECKPOINT_PAGES } from '../../server/db/checkpointer.ts';
import { createServer } from '../../server/index.ts';
import type { authTokenAnswer, authTokensAnswer } from '../../shared/schemas/answers.ts';
import { dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { sqliteEngineOf } from '../../server/db/repos/index.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const mode = (file: string) => statSync(file).mode & 0o777;

/** Every byte Hearth keeps in the data dir except the two files meant to hold secrets. */
const storedBytes = () =>
  readdirSync(t.dataDir)
    .filter((f) => f !== 'credentials.json' && f !== 'master.key')
    .map((f) => readFileSync(join(t.dataDir, f)));

describe('first start', () => {
  it('writes credentials.json and master.key readable by the owner only', () => {
    expect(mode(join(t.dataDir, 'credentials.json'))).toBe(0o600);
    expect(mode(join(t.dataDir, 'master.key'))).toBe(0o600);
    const written = JSON.parse(readFileSync(join(t.dataDir, 'credentials.json'), 'utf8'));
    expect(written).toEqual(t.credentials);
  });
});

describe('secrets at rest', () => {
  it('the database files contain no usable credential', async () => {
    const created = await t.callW('/v2/workspace/apikey/create', {
      ownerEmail: 'a@example.com',
      type: 'testing',
      emailServiceConfig: { apiKey: 'SG.mail-provider-secret-123' },
      webhookServiceConfig: { authToken: 'basic-webhook-secret-456' },
    });
    const apiKey = dataOf<{ apiKey: string }>(created).apiKey;
    const token = dataOf<z.infer<typeof authTokensAnswer>>(await t.callW('/v2/workspace/authtokens/get', { apiKey })).authTokens[0]!.token;
    await t.callK('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'gemini', customerApiKey: 'gemini-secret-789' }] });
    const secrets = [
      t.credentials.workspaceAuthToken,
      t.credentials.authToken,
      token,
      'SG.mail-provider-secret-123',
      'basic-webhook-secret-456',
      'gemini-secret-789',
    ];

    // while running (the WAL holds recent writes) and after a clean stop (checkpointed into the main file)
    for (const bytes of storedBytes()) for (const secret of secrets) expect(bytes.includes(secret)).toBe(false);
    await t.restart();
    const files = storedBytes();
    expect(files.reduce((n, b) => n + b.length, 0)).toBeGreaterThan(4096);
    for (const bytes of files) for (const secret of secrets) expect(bytes.includes(secret)).toBe(false);
  });
});

/** This test's notifications in hearth.db itself, leaving out its write-ahead log: a copy of the file opened alone. */
function notesInDatabaseFile(): number {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-file-'));
  try {
    copyFileSync(join(t.dataDir, 'hearth.db'), join(dir, 'copy.db'));
    const db = new Database(join(dir, 'copy.db'));
    try {
      return (db.prepare("SELECT count(*) AS n FROM notifications WHERE body LIKE 'checkpointed note %'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('checkpoints', () => {
  it('copies new writes into the database file from the delivery worker, not from the request thread', async () => {
    // The request thread checkpoints only as a backstop while the worker's checkpointer runs.
    expect(sqliteEngineOf(t.server.app.storage).main.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(MAIN_AUTOCHECKPOINT_PAGES);
    for (let i = 0; i < 30; i++) {
      const added = await t.callK('/v2/notifications/add', {
        organizationId: 'org',
        createOrganization: true,
        documentId: 'doc',
        createDocument: true,
        actionUser: { userId: 'actor' },
        displayHeadlineMessageTemplate: '{actionUser} wrote',
        displayBodyMessage: `checkpointed note ${i}`,
        notifyUsers: [{ userId: 'reader' }],
      });
      expect(added.status).toBe(200);
    }
    // A few hundred pages of log, far below the backstop: only the checkpointer can have copied them.
    // (Until the first pass, the copy may not even hold the tables yet: `eventually` retries.)
    await eventually(() => expect(notesInDatabaseFile()).toBe(30));
  });

  it("completes a user's erasure only once the write-ahead log is folded into the file: completed means no trace on disk", async () => {
    const email = 'wendy.wal@example.com';
    await t.callK('/v2/organizations/documents/add', { organizationId: 'wal-org', createOrganization: true, documents: [{ documentId: 'd' }] });
    await t.callK('/v2/users/add', { organizationId: 'wal-org', users: [{ userId: 'wendy', name: 'Wendy Wal', email }] });
    const holds = () => readdirSync(t.dataDir).some((f) => f.startsWith('hearth.db') && readFileSync(join(t.dataDir, f)).includes(email));
    const status = async (jobId: string) => dataOf<{ status: string }>(await t.callK('/v2/users/data/delete/status', { jobId })).status;
    // a reader on a snapshot from before the erasure: no checkpoint can copy the erasure's pages past it
    const reader = new Database(join(t.dataDir, 'hearth.db'), { readonly: true });
    try {
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM users').get();
      const { jobId } = dataOf<{ jobId: string }>(await t.callK('/v2/users/data/delete', { userId: 'wendy' }));
      // erased for every request...
      await eventually(async () =>
        expect(dataOf(await t.callK('/v2/users/data/get', { organizationId: 'wal-org', userId: 'wendy' }))).toMatchObject({ profile: null }),
      );
      // ...but still in the files, so the job is not completed
      expect(holds()).toBe(true);
      expect(await status(jobId)).toBe('in_progress');
      reader.exec('COMMIT');
      await eventually(async () => expect(await status(jobId)).toBe('completed'));
      expect(holds()).toBe(false);
    } finally {
      reader.close();
    }
  });
});

describe('restart', () => {
  it('keeps workspaces, keys, tokens and settings, and reuses the credentials', async () => {
    const before = t.credentials;
    const created = await t.callW('/v2/workspace/apikey/create', { ownerEmail: 'keep@example.com', type: 'testing', apiKeyName: 'Kept' });
    const apiKey = dataOf<{ apiKey: string }>(created).apiKey;
    await t.callK('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true });

    await t.restart();
    expect(t.credentials).toEqual(before);
    const listed = await t.callW('/v2/workspace/apikeys/get', { apiKeys: [apiKey] });
    expect(dataOf<Array<{ apiKeyName: string }>>(listed)[0]!.apiKeyName).toBe('Kept');
    expect(dataOf<{ enablePrivateComments: boolean }>(await t.callK('/v2/workspace/apikeyconfig/get', {})).enablePrivateComments).toBe(true);
  });

  it('rewrites credentials.json with the current token after a reset', async () => {
    const reset = await t.callW('/v2/workspace/authtoken/reset', { apiKey: t.credentials.apiKey });
    const fresh = dataOf<z.infer<typeof authTokenAnswer>>(reset).authToken.token;
    await t.restart();
    expect(t.credentials.authToken).toBe(fresh);
    expect(JSON.parse(readFileSync(join(t.dataDir, 'credentials.json'), 'utf8')).authToken).toBe(fresh);
    expect((await t.callK('/v2/workspace/apikeyconfig/get', {})).status).toBe(200);
  });

  it('refuses to start with a damaged master key rather than lose access to the secrets', async () => {
    await t.server.close();
    const keyFile = join(t.dataDir, 'master.key');
    const original = readFileSync(keyFile);
    writeFileSync(keyFile, 'short');
    await expect(createServer({ port: 0, dataDir: t.dataDir, logLevel: 'silent' })).rejects.toThrow(/master key/);
    writeFileSync(keyFile, original);
    await t.restart();
    expect((await t.callK('/v2/workspace/apikeyconfig/get', {})).status).toBe(200);
  });
});
