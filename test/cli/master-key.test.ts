// The master key a server starts with must be the one its database's secrets are encrypted under
// (server/db/key-check.ts): a lost master.key made again, or an instance given another key file, stops the start
// with a message instead of failing on every token check afterwards. MASTER_KEY_FILE names a key kept outside the
// data dir (the one a cluster's instances share), which Hearth reads and never creates.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runHearth, startCliServer, tempDirs, type CliServer } from '../helpers/cli.ts';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

async function stop(server: CliServer) {
  server.child.kill('SIGTERM');
  await server.exited;
}

/** An authenticated call with the data dir's default credentials: it reads the key's digests, so it needs the right key. */
async function authenticatedStatus(url: string, dataDir: string): Promise<number> {
  const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { apiKey: string; authToken: string };
  const res = await fetch(`${url}/v2/workspace/apikeyconfig/get`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-api-key': creds.apiKey, 'x-svc-auth-token': creds.authToken },
    body: '{"data":{}}',
  });
  return res.status;
}

/** A data dir after one start and stop: database, master.key, credentials. */
async function startedOnce(): Promise<string> {
  const dataDir = dirs.make();
  await stop(await startCliServer(dataDir));
  return dataDir;
}

const fingerprintRows = (dataDir: string) => {
  const db = new Database(join(dataDir, 'hearth.db'), { readonly: true });
  try {
    return db.prepare('SELECT fingerprint FROM master_key_check').all() as Array<{ fingerprint: string }>;
  } finally {
    db.close();
  }
};

// Each test starts the CLI server up to three times (a few seconds each on a busy machine): 60 s apiece.
describe('the master key check', { timeout: 60_000 }, () => {
  it('keeps a fingerprint of the key, not the key', async () => {
    const dataDir = await startedOnce();
    const rows = fingerprintRows(dataDir);
    expect(rows).toHaveLength(1);
    const key = readFileSync(join(dataDir, 'master.key'), 'utf8').trim();
    expect(rows[0]!.fingerprint).not.toContain(key);
    expect(rows[0]!.fingerprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses another key, changing nothing', async () => {
    const dataDir = await startedOnce();
    const keyFile = join(dataDir, 'master.key');
    const original = readFileSync(keyFile, 'utf8');
    const other = randomBytes(32).toString('base64') + '\n';
    writeFileSync(keyFile, other, { mode: 0o600 });
    const before = statSync(join(dataDir, 'hearth.db')).mtimeMs;
    const run = await runHearth(['--port', '0', '--data-dir', dataDir]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`the master key ${keyFile} is not the key this database's secrets are encrypted under`);
    expect(readFileSync(keyFile, 'utf8')).toBe(other);
    expect(statSync(join(dataDir, 'hearth.db')).mtimeMs).toBe(before);
    // the right key back: the server starts and the old credentials work
    writeFileSync(keyFile, original, { mode: 0o600 });
    const server = await startCliServer(dataDir);
    try {
      expect(await authenticatedStatus(server.url, dataDir)).toBe(200);
    } finally {
      await stop(server);
    }
  });

  it('does not make a new key for a database that has secrets, and leaves no key file behind', async () => {
    const dataDir = await startedOnce();
    const keyFile = join(dataDir, 'master.key');
    renameSync(keyFile, join(dataDir, 'saved.key'));
    const run = await runHearth(['--port', '0', '--data-dir', dataDir]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('is not the key this database');
    expect(existsSync(keyFile)).toBe(false);
  });

  it('checks a database made before the fingerprint by decrypting one of its secrets', async () => {
    const dataDir = await startedOnce();
    const db = new Database(join(dataDir, 'hearth.db'));
    db.prepare('DELETE FROM master_key_check').run();
    db.close();
    const keyFile = join(dataDir, 'master.key');
    const original = readFileSync(keyFile, 'utf8');
    writeFileSync(keyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    const run = await runHearth(['--port', '0', '--data-dir', dataDir]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('a workspace token does not decrypt with it');
    expect(fingerprintRows(dataDir)).toHaveLength(0);
    // with its own key it starts, and keeps that key's fingerprint from then on
    writeFileSync(keyFile, original, { mode: 0o600 });
    await stop(await startCliServer(dataDir));
    expect(fingerprintRows(dataDir)).toHaveLength(1);
  });

  it('MASTER_KEY_FILE: a key outside the data dir, read and never created', async () => {
    const dataDir = await startedOnce();
    const shared = join(dirs.make('hearth-key-'), 'cluster.key');
    renameSync(join(dataDir, 'master.key'), shared);
    const server = await startCliServer(dataDir, { MASTER_KEY_FILE: shared });
    try {
      expect(await authenticatedStatus(server.url, dataDir)).toBe(200);
      expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
    } finally {
      await stop(server);
    }
    const missing = join(dirs.make('hearth-key-'), 'none.key');
    const run = await runHearth(['--port', '0', '--data-dir', dirs.make()], { env: { MASTER_KEY_FILE: missing } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`the master key file ${missing} does not exist`);
    expect(existsSync(missing)).toBe(false);
  });
});
