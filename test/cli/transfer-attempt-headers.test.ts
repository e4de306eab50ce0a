// The export/import archive carries what each webhook attempt sent and received besides the bodies (webhooks.db's
// request_headers, response_headers and response_headers_omitted), and still imports archives written before it
// did: their attempts come in without headers, as attempts recorded before headers were kept.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashFile } from '../../server/tooling/archive-files.ts';
import { exportArchive } from '../../server/tooling/export.ts';
import { importArchive } from '../../server/tooling/import.ts';
import { addAnnotation } from '../helpers/comments.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { dataOf, eventually } from '../helpers/server.ts';
import { serverOn, tempDirs } from '../helpers/transfer.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';

const temp = tempDirs();
const HEADER_COLUMNS = ['requestHeaders', 'responseHeaders', 'responseHeadersOmitted'];

interface AttemptHeaders {
  id: string;
  request_headers: string | null;
  response_headers: string | null;
  response_headers_omitted: number;
}

const attemptsOf = (dataDir: string): AttemptHeaders[] => {
  const db = new Database(join(dataDir, 'webhooks.db'), { readonly: true });
  try {
    return db.prepare('SELECT id, request_headers, response_headers, response_headers_omitted FROM webhook_attempts ORDER BY id').all() as AttemptHeaders[];
  } finally {
    db.close();
  }
};

let source: string;
let attempts: AttemptHeaders[];

beforeAll(async () => {
  const receiver = await startReceiver({ fallback: { status: 200, headers: { 'x-receiver-trace': 'trace-42' }, body: 'ok' } });
  source = temp('hearth-attempt-headers-src-');
  const t = await serverOn(source, { webhooks: FAST_WEBHOOKS });
  try {
    await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
    const { id: endpointId } = await enableWithEndpoint(t, receiver.url);
    await addAnnotation(t, { commentData: [{ commentText: 'headers travel', from: { userId: 'ann' } }] });
    await eventually(async () => {
      const listed = dataOf<{ attempts: Array<{ status: string }> }>(await t.callK('/v2/workspace/advancedwebhook/attempts/list', { endpointId })).attempts;
      expect(listed.map((a) => a.status)).toContain('succeeded');
    });
  } finally {
    await t.server.close();
    await receiver.close();
  }
  attempts = attemptsOf(source);
  expect(attempts.length).toBeGreaterThan(0);
  for (const a of attempts) {
    expect(a.request_headers).toContain('webhook-signature');
    expect(a.response_headers).toContain('trace-42');
  }
}, 120_000);

describe('webhook attempts in the export/import archive', () => {
  it('keep their request and response headers through a round trip', async () => {
    const archive = join(temp('hearth-attempt-headers-arc-'), 'archive');
    await exportArchive({ dataDir: source, out: archive, secrets: 'omit' });
    const lines = readFileSync(join(archive, 'tables', 'webhook_attempts.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(attempts.length);
    for (const line of lines) expect(Object.keys(JSON.parse(line))).toEqual(expect.arrayContaining(HEADER_COLUMNS));

    const target = temp('hearth-attempt-headers-dst-');
    await importArchive({ dataDir: target, from: archive, conflict: 'fail' });
    expect(attemptsOf(target)).toEqual(attempts);
  }, 60_000);

  it('imports an archive written before attempts carried headers: its attempts come without them', async () => {
    const archive = join(temp('hearth-attempt-headers-old-'), 'archive');
    await exportArchive({ dataDir: source, out: archive, secrets: 'omit' });
    // the archive as an older Hearth wrote it: no header fields in the lines, none in the manifest's columns
    const relative = 'tables/webhook_attempts.jsonl';
    const file = join(archive, relative);
    const older = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) =>
        JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(line) as Record<string, unknown>).filter(([key]) => !HEADER_COLUMNS.includes(key)))),
      );
    writeFileSync(file, `${older.join('\n')}\n`);
    const manifestFile = join(archive, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { files: Record<string, unknown>; tables: Array<{ name: string; columns: string[] }> };
    const table = manifest.tables.find((t) => t.name === 'webhook_attempts')!;
    table.columns = table.columns.filter((c) => !HEADER_COLUMNS.includes(c));
    manifest.files[relative] = await hashFile(file);
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));

    const target = temp('hearth-attempt-headers-old-dst-');
    await importArchive({ dataDir: target, from: archive, conflict: 'fail' });
    expect(attemptsOf(target)).toEqual(attempts.map((a) => ({ id: a.id, request_headers: null, response_headers: null, response_headers_omitted: 0 })));
  }, 60_000);

  it('exports a webhooks.db an older Hearth left without the header columns, as an upgrade would read it', async () => {
    const old = temp('hearth-attempt-headers-oldfile-');
    for (const name of ['hearth.db', 'master.key', 'webhooks.db']) writeFileSync(join(old, name), readFileSync(join(source, name)));
    const db = new Database(join(old, 'webhooks.db'));
    db.exec(
      'ALTER TABLE webhook_attempts DROP COLUMN request_headers; ALTER TABLE webhook_attempts DROP COLUMN response_headers; ALTER TABLE webhook_attempts DROP COLUMN response_headers_omitted;',
    );
    db.pragma('user_version = 1');
    db.close();
    const archive = join(temp('hearth-attempt-headers-oldfile-arc-'), 'archive');
    await exportArchive({ dataDir: old, out: archive, secrets: 'omit' });
    const rows = readFileSync(join(archive, 'tables', 'webhook_attempts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((r) => [r.requestHeaders, r.responseHeaders, r.responseHeadersOmitted])).toEqual(attempts.map(() => [null, null, 0]));
    const target = temp('hearth-attempt-headers-oldfile-dst-');
    await importArchive({ dataDir: target, from: archive, conflict: 'fail' });
    expect(attemptsOf(target).map((a) => a.id)).toEqual(attempts.map((a) => a.id));
  }, 60_000);
});
