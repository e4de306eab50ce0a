import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSecrets } from '../../server/security/secrets.ts';
import { exportArchive } from '../../server/tooling/export.ts';
import { importArchive } from '../../server/tooling/import.ts';
import { createWorkspace } from '../helpers/factories.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { apiKeyHeaders, call, dataOf, workspaceHeaders, type Headers_ } from '../helpers/server.ts';
import { filesContaining, serverOn, tempDirs } from '../helpers/transfer.ts';
import { crdtContent, populateKey, readAll, readCalls, type KeyCredentials } from '../helpers/transfer-fixture.ts';
import { FAST_WEBHOOKS } from '../helpers/webhooks.ts';
import type { ApiKeyAnswer, AuthTokensAnswer } from '../helpers/answers.ts';

const temp = tempDirs();
const PASSPHRASE = 'correct horse battery staple';

interface Source {
  dataDir: string;
  credentials: { workspaceId: string; workspaceAuthToken: string; apiKey: string; authToken: string };
  alpha: KeyCredentials;
  bravo: KeyCredentials;
  calls: { alpha: ReturnType<typeof readCalls>; bravo: ReturnType<typeof readCalls> };
  answers: { alpha: Record<string, unknown>; bravo: Record<string, unknown> };
  crdt: { alpha: Record<string, unknown>; bravo: Record<string, unknown> };
  secrets: string[];
  ciphertexts: string[];
}
/** advancedwebhook/endpoints/secret/get's data. */
interface EndpointSecretAnswer {
  secret: string;
}

let source: Source;
let otherWorkspace: { workspaceId: string; apiKey: string; authToken: string };

const headersOf = (credentials: Source['credentials'], key: KeyCredentials) => ({ K: key.headersK, W: workspaceHeaders(credentials) });

beforeAll(async () => {
  const receiver = await startReceiver({ fallback: { status: 200 } });
  const dataDir = temp('hearth-transfer-src-');
  const t = await serverOn(dataDir, { webhooks: FAST_WEBHOOKS });
  try {
    const alpha: KeyCredentials = { apiKey: t.credentials.apiKey, authToken: t.credentials.authToken, headersK: apiKeyHeaders(t.credentials) };
    const created = await t.callW('/v2/workspace/apikey/create', { ownerEmail: 'b@example.com', type: 'testing', apiKeyName: 'Bravo key' });
    const bravoKey = dataOf<ApiKeyAnswer>(created).apiKey;
    const bravoToken = dataOf<AuthTokensAnswer>(await t.callW('/v2/workspace/authtokens/get', { apiKey: bravoKey })).authTokens[0]!.token;
    const bravo: KeyCredentials = { apiKey: bravoKey, authToken: bravoToken, headersK: apiKeyHeaders({ apiKey: bravoKey, authToken: bravoToken }) };
    const alphaIds = await populateKey(t, alpha, 'acme', 'ALPHA', { webhookReceiverUrl: receiver.url });
    const bravoIds = await populateKey(t, bravo, 'globex', 'BRAVO');
    // another workspace, for the workspace-scoped export
    const other = await createWorkspace(t);
    await t.callK('/v2/organizations/add', { organizations: [{ organizationId: 'initech', organizationName: 'CHARLIE org' }] }, other.headersK);
    otherWorkspace = { workspaceId: other.workspaceId, apiKey: other.apiKey, authToken: other.authToken };
    const calls = { alpha: readCalls('acme', { ...alphaIds, apiKey: alpha.apiKey }), bravo: readCalls('globex', { ...bravoIds, apiKey: bravo.apiKey }) };
    const answers = {
      alpha: await readAll(t, calls.alpha, headersOf(t.credentials, alpha)),
      bravo: await readAll(t, calls.bravo, headersOf(t.credentials, bravo)),
    };
    for (const [name, answer] of Object.entries({ ...answers.alpha })) expect((answer as { status: number }).status, name).toBeLessThan(500);
    const crdt = { alpha: await crdtContent(t, alpha, 'acme'), bravo: await crdtContent(t, bravo, 'globex') };
    const endpointSecret = dataOf<EndpointSecretAnswer>(
      await t.callK('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: alphaIds.endpointId }),
    ).secret;
    const credentials = t.credentials;
    await t.server.close();
    const db = new Database(join(dataDir, 'hearth.db'), { readonly: true });
    const ciphertexts = [
      ...(
        db
          .prepare(
            'SELECT token_enc AS v FROM auth_tokens UNION ALL SELECT auth_token_enc FROM workspaces UNION ALL SELECT value_enc FROM api_key_secrets UNION ALL SELECT secret_enc FROM webhook_endpoints',
          )
          .all() as Array<{ v: string }>
      ).map((r) => r.v),
    ];
    db.close();
    source = {
      dataDir,
      credentials,
      alpha,
      bravo,
      calls,
      answers,
      crdt,
      secrets: [
        credentials.workspaceAuthToken,
        alpha.authToken,
        bravo.authToken,
        'sk-ALPHA-openai-secret',
        'sk-BRAVO-openai-secret',
        'wf-ALPHA-signing-secret',
        endpointSecret,
      ],
      ciphertexts,
    };
  } finally {
    await receiver.close();
  }
}, 120_000);

describe('export then import into a fresh data dir', () => {
  it('with secrets sealed by a passphrase: every read operation answers the same, CRDT content is identical, the old credentials work', async () => {
    const archive = join(temp('hearth-transfer-arc-'), 'archive');
    const exported = await exportArchive({ dataDir: source.dataDir, out: archive, secrets: 'include', passphrase: PASSPHRASE });
    expect(exported.tables).toMatchObject({
      workspaces: 2,
      api_keys: 3,
      organizations: 3,
      recording_attachments: 4,
      crdt_documents: 6,
      webhook_endpoints: 1,
      api_key_secrets: 2,
    });
    expect(exported.files).toBe(4);

    // sealed, not plain: neither the secrets nor the source's ciphertexts appear in any file
    for (const secret of [...source.secrets, ...source.ciphertexts]) expect(filesContaining(archive, secret), secret.slice(0, 12)).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(archive, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      format: 'hearth-export',
      formatVersion: 1,
      scope: { kind: 'all' },
      secrets: { mode: 'include', kdf: { name: 'scrypt' }, cipher: 'aes-256-gcm' },
    });
    expect(Object.keys(manifest.files)).toContain('tables/crdt_documents.jsonl');

    const target = temp('hearth-transfer-dst-');
    const progress: number[] = [];
    const imported = await importArchive({
      dataDir: target,
      from: archive,
      conflict: 'fail',
      passphrase: PASSPHRASE,
      onProgress: (done) => progress.push(done),
    });
    expect(imported.rows.inserted).toBe(exported.rows);
    expect(imported.generatedSecrets).toEqual([]);
    expect(progress.length).toBeGreaterThan(0);

    const t = await serverOn(target);
    try {
      // the default workspace and its credentials came along: the old tokens authenticate on the target
      expect(t.credentials).toEqual(source.credentials);
      expect(await readAll(t, source.calls.alpha, headersOf(source.credentials, source.alpha))).toEqual(source.answers.alpha);
      expect(await readAll(t, source.calls.bravo, headersOf(source.credentials, source.bravo))).toEqual(source.answers.bravo);
      expect(await crdtContent(t, source.alpha, 'acme')).toEqual(source.crdt.alpha);
      expect(await crdtContent(t, source.bravo, 'globex')).toEqual(source.crdt.bravo);
      // attachments are served from the target's data dir
      const recordings = dataOf<unknown[]>(await t.callK('/v2/recordings/get', { organizationId: 'acme' }));
      const url = JSON.stringify(recordings).match(/http:\/\/127\.0\.0\.1:\d+\/attachments\/[A-Za-z0-9]{32}/)![0];
      expect((await fetch(url)).status).toBe(200);
      // AI provider keys are sealed under the target's master key
      const db = new Database(join(target, 'hearth.db'), { readonly: true });
      const targetSecrets = createSecrets(Buffer.from(readFileSync(join(target, 'master.key'), 'utf8').trim(), 'base64'));
      const values = (db.prepare('SELECT value_enc AS v FROM api_key_secrets ORDER BY api_key_id').all() as Array<{ v: string }>).map((r) =>
        targetSecrets.decrypt(r.v),
      );
      db.close();
      expect(values.sort()).toEqual(['sk-ALPHA-openai-secret', 'sk-BRAVO-openai-secret']);
    } finally {
      await t.server.close();
    }
  }, 120_000);

  it('with secrets omitted: no secret is in the archive; the import makes fresh tokens and says which', async () => {
    const archive = join(temp('hearth-transfer-arc-'), 'archive');
    const exported = await exportArchive({ dataDir: source.dataDir, out: archive, secrets: 'omit' });
    for (const secret of [...source.secrets, ...source.ciphertexts]) expect(filesContaining(archive, secret), secret.slice(0, 12)).toEqual([]);
    expect(exported.omittedSecrets.map((o) => o.table).sort()).toEqual([
      'api_key_secrets',
      'auth_tokens',
      'webhook_endpoints',
      'workflow_definitions',
      'workspaces',
    ]);

    const target = temp('hearth-transfer-dst-');
    const imported = await importArchive({ dataDir: target, from: archive, conflict: 'fail' });
    expect(Object.fromEntries(imported.generatedSecrets.map((g) => [g.table, g.rows]))).toEqual({
      workspaces: 2,
      auth_tokens: 3,
      webhook_endpoints: 1,
      workflow_definitions: 2,
    });
    expect(imported.droppedSecretRows).toEqual([{ table: 'api_key_secrets', label: expect.any(String), rows: 2 }]);

    const t = await serverOn(target);
    try {
      const fresh = t.credentials;
      expect(fresh.workspaceId).toBe(source.credentials.workspaceId);
      expect(fresh.apiKey).toBe(source.credentials.apiKey);
      expect(fresh.authToken).not.toBe(source.credentials.authToken);
      expect((await call(t.url, '/v2/workspace/apikeyconfig/get', {}, source.alpha.headersK)).status).toBe(403);
      const alpha: KeyCredentials = { apiKey: fresh.apiKey, authToken: fresh.authToken, headersK: apiKeyHeaders(fresh) };
      // the same answers, but for the secrets themselves: tokens, signing secrets, and the AI key now unset
      const normalize = (path: string, body: unknown) =>
        JSON.parse(JSON.stringify(body), (key, value) => {
          if (path === '/v2/workspace/authtokens/get' && key === 'token') return expect.stringMatching(/^yauth_/);
          if (path === '/v2/workspace/get' && key === 'authToken') return expect.stringMatching(/^[0-9a-f]{32}$/);
          if (path.endsWith('/secret/get') && key === 'secret') return expect.stringMatching(/^whsec_/);
          if (path === '/v2/workspace/apikeyconfig/get' && key === 'aiModelApiKey') return '<ai keys>';
          return value;
        });
      const before = await readAll(t, source.calls.alpha, { K: alpha.headersK, W: workspaceHeaders(fresh) }, normalize);
      expect(before).toEqual(
        Object.fromEntries(
          Object.entries(source.answers.alpha).map(([k, v]) => [k, { ...(v as object), body: normalize(k.split('#')[0]!, (v as { body: unknown }).body) }]),
        ),
      );
      expect(await crdtContent(t, alpha, 'acme')).toEqual(source.crdt.alpha);
    } finally {
      await t.server.close();
    }
  }, 120_000);

  it('of one API key holds nothing of another key, and its import makes a working key beside a fresh default workspace', async () => {
    const archive = join(temp('hearth-transfer-arc-'), 'archive');
    const exported = await exportArchive({ dataDir: source.dataDir, out: archive, apiKeyId: source.bravo.apiKey, secrets: 'include', passphrase: PASSPHRASE });
    expect(exported.scope).toEqual({ kind: 'apiKey', apiKeyId: source.bravo.apiKey, workspaceId: source.credentials.workspaceId });
    for (const foreign of ['ALPHA', 'acme', source.alpha.apiKey, source.alpha.authToken, source.credentials.workspaceAuthToken])
      expect(filesContaining(archive, foreign), foreign).toEqual([]);
    expect(filesContaining(archive, 'BRAVO').length).toBeGreaterThan(0);
    expect(exported.tables.api_keys).toBe(1);

    const target = temp('hearth-transfer-dst-');
    const imported = await importArchive({ dataDir: target, from: archive, conflict: 'fail', passphrase: PASSPHRASE });
    expect(imported.generatedSecrets).toEqual([{ table: 'workspaces', column: 'authTokenEnc', label: 'workspace auth token', rows: 1 }]);
    const t = await serverOn(target);
    try {
      expect(t.credentials.workspaceId).not.toBe(source.credentials.workspaceId);
      const headers: Headers_ = source.bravo.headersK;
      expect(
        await readAll(
          t,
          { '/v2/crdt/get': source.calls.bravo['/v2/crdt/get']!, '/v2/recordings/get': source.calls.bravo['/v2/recordings/get']! },
          { K: headers, W: {} },
        ),
      ).toEqual(Object.fromEntries(Object.entries(source.answers.bravo).filter(([k]) => k.startsWith('/v2/crdt/get') || k.startsWith('/v2/recordings/get'))));
      expect((await call(t.url, '/v2/organizations/get', {}, source.alpha.headersK)).status).toBe(403);
    } finally {
      await t.server.close();
    }
  }, 120_000);

  it('of one workspace holds its keys and nothing of another workspace', async () => {
    const archive = join(temp('hearth-transfer-arc-'), 'archive');
    const exported = await exportArchive({
      dataDir: source.dataDir,
      out: archive,
      workspaceId: otherWorkspace.workspaceId,
      secrets: 'include',
      passphrase: PASSPHRASE,
    });
    expect(exported.tables).toMatchObject({ workspaces: 1, api_keys: 1, organizations: 1, documents: 0 });
    for (const foreign of ['ALPHA', 'BRAVO', source.alpha.apiKey, source.bravo.apiKey, source.credentials.workspaceId])
      expect(filesContaining(archive, foreign), foreign).toEqual([]);

    // imported beside the source's own data: the workspace's token works there too
    const target = temp('hearth-transfer-dst-');
    await importArchive({ dataDir: target, from: archive, conflict: 'fail', passphrase: PASSPHRASE });
    const t = await serverOn(target);
    try {
      const orgs = await call(t.url, '/v2/organizations/get', {}, apiKeyHeaders(otherWorkspace));
      expect(orgs.status).toBe(200);
      expect(JSON.stringify(orgs.body)).toContain('CHARLIE org');
      expect(t.credentials.workspaceId).not.toBe(otherWorkspace.workspaceId);
    } finally {
      await t.server.close();
    }
  }, 120_000);
});
