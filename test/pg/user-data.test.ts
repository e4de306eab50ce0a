// The user-data repository on PostgreSQL answers as on SQLite (test/helpers/pg-parity.ts): export pages (by
// position, per feature, 'done', code point order of comment keys), annotations by ids, the erasure jobs (insert,
// find, the queue: next, started, failed, recovered), and the erasure itself: what goes (profile, memberships,
// groups, settings, inbox rows, the user's comments, reactions, recordings, notifications, activities, mail and
// judgments by or quoting the user, mentions in others' comments) and what stays (other users', the other key's).
// Every affected table is read on both engines after each step and compared. The one repository runs on both
// (`userDataRepo(both.pg)` and SQLite's storage); its `checkpoint` does nothing on PostgreSQL (checked at the end).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErasureJob, type ErasureRules, type UserDataRepo, userDataRepo } from '../../server/db/repos/user-data.ts';
import { type BothEngines, bothEngines } from '../helpers/pg-parity.ts';

let both: BothEngines;

/** Each affected table's rows as text, sorted: the same SQL on both engines (the erasure's clock stamp by presence). */
const DUMPS: Record<string, string> = {
  users: "api_key_id || '|' || id || '|' || coalesce(name, '-') || '|' || coalesce(email, '-')",
  memberships: "api_key_id || '|' || organization_id || '|' || resource_id || '|' || user_id",
  user_group_members: "api_key_id || '|' || organization_id || '|' || group_id || '|' || user_id",
  notification_configs: "api_key_id || '|' || organization_id || '|' || document_id || '|' || user_id",
  notification_recipients: "api_key_id || '|' || organization_id || '|' || notification_id || '|' || user_id",
  notifications: "api_key_id || '|' || organization_id || '|' || id",
  activities: "api_key_id || '|' || organization_id || '|' || id",
  comment_annotations: "api_key_id || '|' || organization_id || '|' || id || '|' || created_by_user_id || '|' || coalesce(CAST(assigned_to AS TEXT), '-')",
  comments:
    "api_key_id || '|' || organization_id || '|' || annotation_id || '|' || CAST(id AS TEXT) || '|' || from_user_id || '|' || coalesce(CAST(tagged_user_contacts AS TEXT), '-') || '|' || CAST(mentioned_user_ids AS TEXT) || '|' || coalesce(CAST(extra AS TEXT), '-')",
  reactions: "api_key_id || '|' || organization_id || '|' || id || '|' || from_user_id",
  recordings: "api_key_id || '|' || organization_id || '|' || id || '|' || from_user_id",
  recording_attachments: "api_key_id || '|' || recording_id || '|' || storage_key",
  judgments: "api_key_id || '|' || id || '|' || reviewer_id",
  mail_outbox: "coalesce(api_key_id, '-') || '|' || id || '|' || to_address",
  user_data_jobs:
    "id || '|' || api_key_id || '|' || user_id || '|' || status || '|' || CAST(attempts AS TEXT) || '|' || coalesce(error, '-') || '|' || CASE WHEN status = 'completed' THEN 'stamped' ELSE coalesce(CAST(completed_at AS TEXT), '-') END",
};

async function dump(engine: 'sqlite' | 'pg') {
  const out: Record<string, string[]> = {};
  for (const [table, row] of Object.entries(DUMPS)) {
    const text = `SELECT ${row} AS r FROM ${table} ORDER BY 1`;
    out[table] =
      engine === 'sqlite'
        ? (both.sqlite.main.sqlite.prepare(text).pluck().all() as string[])
        : await both.engine.read(async (db) => (await db.$client.query<{ r: string }>(text)).rows.map((x) => x.r));
  }
  return out;
}

const ann = (name = 'Ann Lee', email = 'ann@x.test') => JSON.stringify({ userId: 'ann', name, email });
const bob = JSON.stringify({ userId: 'bob', name: 'Bob', email: 'bob@x.test' });

beforeAll(async () => {
  both = await bothEngines();
  const ins = both.insertBoth;
  await both.insertOrganizations([
    ['k1', 'acme'],
    ['k1', 'beta'],
    ['k2', 'acme'],
  ]);
  for (const key of ['k1', 'k2']) {
    const users = key === 'k1' ? ['ann', 'bob'] : ['ann'];
    for (const id of users) {
      await ins('INSERT INTO users (api_key_id, id, internal_id, name, email, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        key,
        id,
        `${key}-${id}`,
        id === 'ann' ? 'Ann Lee' : 'Bob',
        `${id}@x.test`,
        '{}',
        1,
        1,
      ]);
      await ins(
        'INSERT INTO memberships (api_key_id, organization_id, level, resource_id, user_id, access_role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [key, 'acme', 'organization', 'acme', id, 'editor', 1, 1],
      );
      await ins(
        'INSERT INTO notification_configs (api_key_id, organization_id, document_id, user_id, inbox, email, slack, channels_set, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, 'acme', 'd1', id, 'ALL', 'MINE', 'NONE', 7, 1],
      );
    }
    await ins('INSERT INTO user_groups (api_key_id, organization_id, id, name, created_at) VALUES (?, ?, ?, ?, ?)', [key, 'acme', 'g1', 'G', 1]);
    for (const id of users)
      await ins('INSERT INTO user_group_members (api_key_id, organization_id, group_id, user_id, created_at) VALUES (?, ?, ?, ?, ?)', [
        key,
        'acme',
        'g1',
        id,
        1,
      ]);
    const notification = (id: string, actionUser: string, body: string, headlineData: string | null) =>
      ins(
        'INSERT INTO notifications (api_key_id, organization_id, id, document_id, location_id, source, source_data, action_user, headline_template, headline_data, body, resolver, context_access, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, 'acme', id, 'd1', null, 'custom', null, actionUser, 'h', headlineData, body, false, null, 1],
      );
    await notification('n1', ann(), 'by ann', null);
    await notification('n2', bob, 'for ann@x.test', null);
    await notification('n3', bob, 'hello', '{"who":"Bob"}');
    // the name ann's comments carry (older than the profile's): a trace too
    await notification('n4', bob, 'x', '{"who":"Ann Old"}');
    await ins(
      'INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [key, 'acme', 'n3', 'ann', 'd1', 1, true, null],
    );
    await ins(
      'INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [key, 'acme', 'n3', 'bob', 'd1', 1, true, null],
    );
    const activity = (id: string, actionUser: string, actionUserId: string, entityData: string | null) =>
      ins(
        'INSERT INTO activities (api_key_id, organization_id, id, document_id, feature_type, action_type, action_user, action_user_id, entity_data, resolver, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, 'acme', id, 'd1', 'comment', 'added', actionUser, actionUserId, entityData, false, 1],
      );
    await activity('a1', ann(), 'ann', null);
    await activity('a2', bob, 'bob', '{"about":"Ann Lee"}');
    await activity('a3', bob, 'bob', '{"about":"nobody"}');
    const annotation = (org: string, id: string, createdBy: string, assignedTo: string | null) =>
      ins(
        'INSERT INTO comment_annotations (api_key_id, organization_id, id, document_id, status_id, assigned_to, visibility, created_by_user_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, id, 'd1', 'open', assignedTo, 'public', createdBy, 1, 1],
      );
    await annotation('acme', 't1', 'ann', '{"userId":"ann","name":"Ann Lee"}');
    await annotation('acme', 't2', 'bob', '{"userId":"bob"}');
    if (key === 'k1') await annotation('beta', 't9', 'ann', null);
    const comment = (
      org: string,
      thread: string,
      id: number,
      fromUser: string,
      fromUserId: string,
      text: string,
      at: number,
      tagged: string | null,
      mentioned: string,
      extra: string | null,
    ) =>
      ins(
        'INSERT INTO comments (api_key_id, organization_id, annotation_id, id, from_user, from_user_id, text, html, tagged_user_contacts, mentioned_user_ids, context, extra, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, org, thread, id, fromUser, fromUserId, text, null, tagged, mentioned, null, extra, at, at],
      );
    await comment('acme', 't1', 1, ann('Ann Old', 'ann-old@x.test'), 'ann', 'Ann says hi', 100, null, '[]', null);
    await comment(
      'acme',
      't1',
      2,
      bob,
      'bob',
      'hi @ann',
      100,
      '[{"userId":"ann","name":"Ann Lee"},{"userId":"cy"}]',
      '["ann","cy"]',
      '{"to":[{"email":"ann@x.test"},{"email":"cy@x.test"}],"isDraft":false}',
    );
    // 't1:10' sorts before 't1:2' (text, code point order) on both
    await comment('acme', 't1', 10, ann(), 'ann', 'tenth', 100, null, '[]', null);
    await comment('acme', 't2', 1, ann(), 'ann', 'early', 50, null, '[]', null);
    await comment('acme', 't2', 2, bob, 'bob', 'plain', 300, null, '[]', null);
    if (key === 'k1') await comment('beta', 't9', 1, ann(), 'ann', 'in beta', 10, null, '[]', null);
    const reaction = (id: string, commentId: number, fromUser: string, fromUserId: string, at: number) =>
      ins(
        'INSERT INTO reactions (api_key_id, organization_id, id, annotation_id, comment_id, icon, from_user, from_user_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, 'acme', id, 't2', commentId, `i-${id}`, fromUser, fromUserId, at],
      );
    await reaction('x2', 2, ann(), 'ann', 100);
    await reaction('x1', 2, ann(), 'ann', 100);
    await reaction('x3', 2, bob, 'bob', 100);
    // bob's reaction to ann's comment goes with the comment (cascade)
    await reaction('x4', 1, bob, 'bob', 100);
    const recording = (id: string, fromUser: string, fromUserId: string, at: number, keys: string[]) =>
      ins(
        'INSERT INTO recordings (api_key_id, organization_id, id, document_id, recording_type, mode, display_name, duration_ms, from_user, from_user_id, latest_version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [key, 'acme', id, 'd1', 'audio', 'standard', id, 1, fromUser, fromUserId, 1, at, at],
      ).then(async () => {
        let n = 0;
        for (const storageKey of keys)
          await ins(
            'INSERT INTO recording_attachments (api_key_id, organization_id, recording_id, attachment_id, version, name, type, mime_type, size, sha256, storage_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
            [key, 'acme', id, ++n, 1, 'f', 'audio', 'audio/webm', 1, 'sha', storageKey, at],
          );
      });
    await recording('rec1', ann(), 'ann', 100, [`${key}-file-b`, `${key}-file-a`]);
    await recording('rec2', bob, 'bob', 100, [`${key}-file-c`]);
    await recording('rec3', ann(), 'ann', 200, []);
    const judgment = (id: string, reviewerId: string, reviewerName: string, subject: string, reasoning: string | null) =>
      ins(
        'INSERT INTO judgments (id, api_key_id, organization_id, document_id, decision, reviewer_id, reviewer_name, subject, reasoning, scope_terms, source, source_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [`${key}-${id}`, key, 'acme', 'd1', 'approved', reviewerId, reviewerName, subject, reasoning, 'scope', 'comment', id, 1],
      );
    await judgment('j1', 'ann', 'Ann Lee', 'own', null);
    await judgment('j2', 'bob', 'Bob', 'Ann says hi', null);
    await judgment('j3', 'bob', 'Bob', 'other', 'asked ann@x.test');
    await judgment('j4', 'bob', 'Bob', 'unrelated', 'fine');
    for (const [id, to] of [
      ['m1', 'ann@x.test'],
      ['m2', 'bob@x.test'],
    ])
      await ins('INSERT INTO mail_outbox (id, api_key_id, kind, to_address, subject, body_enc, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        `${key}-${id}`,
        key,
        'notification',
        to,
        's',
        'enc',
        'kept',
        1,
      ]);
  }
});
afterAll(() => both?.close());

/** The comment services' plain text, enough for the test: the text. */
const rules: ErasureRules = { plainText: (text) => text };
const newJob = (id: string, userId: string, createdAt: number): Omit<ErasureJob, 'apiKeyId'> => ({
  id,
  userId,
  status: 'pending',
  error: null,
  attempts: 0,
  createdAt,
  completedAt: null,
  leaseUntil: null,
});
/** A job with its clock stamp by type (`completed_at` of a completed erasure is Date.now()). */
const stamped = (row: unknown) => {
  if (!row || typeof row !== 'object') return row;
  const r = row as ErasureJob;
  return r.status === 'completed' ? { ...r, completedAt: typeof r.completedAt } : r;
};
/** Comments by their position key (thread:number). */
const keys = (rows: Array<{ annotationId: string; id: number }>) => rows.map((x) => `${x.annotationId}:${x.id}`);

describe('user data', () => {
  it('answers every call as on SQLite and leaves every table as SQLite does: exports, jobs, the queue, erasure, tenant isolation', async () => {
    const { k1, k2 } = both;
    const run = async (repo: UserDataRepo, engine: 'sqlite' | 'pg') => {
      const out: unknown[] = [];
      const tables: unknown[] = [];
      const all = { comments: null, reactions: null, recordings: null } as const;
      // 0-3: jobs: none yet; inserted; found only in their key
      out.push(await repo.findJob(k1, 'job1'), await repo.claimJob(1, 1_000, 3));
      await repo.insertJob(k1, newJob('job1', 'ann', 10));
      await repo.insertJob(k2, newJob('job2', 'ann', 20));
      await repo.insertJob(k1, { ...newJob('job3', 'bob', 30), attempts: 4 });
      await repo.insertJob(k2, newJob('job4', 'ghost', 40));
      tables.push(await dump(engine));
      out.push(await repo.findJob(k1, 'job1'), await repo.findJob(k2, 'job1'));
      // 4-10: export pages: two per feature, the next from the last positions, 'done', another organization, key, user
      const first = await repo.exportRows(k1, 'acme', 'ann', all, 2);
      out.push(first);
      out.push(await repo.exportRows(k1, 'acme', 'ann', { comments: [100, 't1:10'], reactions: [100, 'x2'], recordings: [100, 'rec1'] }, 2));
      out.push(await repo.exportRows(k1, 'acme', 'ann', { comments: [100, 't1:1'], reactions: 'done', recordings: null }, 10));
      out.push(await repo.exportRows(k1, 'acme', 'ann', { comments: 'done', reactions: 'done', recordings: 'done' }, 10));
      out.push(await repo.exportRows(k1, 'beta', 'ann', all, 10), await repo.exportRows(k2, 'acme', 'ann', all, 1));
      out.push(await repo.exportRows(k1, 'acme', 'nobody', all, 10));
      // 11-13: annotations by ids (no order promised: by id), none, the other key's
      const byId = (rows: Array<{ id: string }>) => [...rows].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      out.push(byId(await repo.annotations(k1, 'acme', ['t2', 'nope', 't1', 't9'])), await repo.annotations(k1, 'acme', []));
      out.push(byId(await repo.annotations(k2, 'beta', ['t9'])));
      // 14-19: the queue: oldest pending first, each taken once under a lease; the only instance's start recovers
      // every job in progress (back to pending, or failed after max: job3 had been interrupted 4 times before)
      out.push(await repo.claimJob(50, 1_050, 3));
      out.push(await repo.claimJob(60, 1_060, 3));
      await repo.claimJob(70, 1_070, 3);
      tables.push(await dump(engine));
      await repo.recover(3, Number.MAX_SAFE_INTEGER);
      tables.push(await dump(engine));
      out.push(await repo.findJob(k1, 'job1'), await repo.findJob(k1, 'job3'), await repo.claimJob(80, 1_080, 3));
      await repo.markFailed('job2', 'boom', 1234, null);
      out.push(await repo.findJob(k2, 'job2'));
      tables.push(await dump(engine));
      // 20-22: the erasure of k1's ann (files sorted: the list's order is the join's, not a contract), then what is left
      const job1 = (await repo.findJob(k1, 'job1')) as ErasureJob;
      out.push([...(await repo.erase(k1, job1, rules))].sort());
      // the erasure's holder completes the job once the files and SQLite's WAL are gone too (services/user-data.ts)
      expect(await repo.complete('job1', Date.now(), job1.leaseUntil)).toBe(true);
      tables.push(await dump(engine));
      out.push(stamped(await repo.findJob(k1, 'job1')), await repo.exportRows(k1, 'acme', 'ann', all, 10));
      // 23-25: an erasure of a user without data in k2 (nothing but the job changes); k2's ann untouched; the queue
      const job4 = (await repo.findJob(k2, 'job4')) as ErasureJob;
      out.push(await repo.erase(k2, job4, rules));
      expect(await repo.complete('job4', Date.now(), job4.leaseUntil)).toBe(true);
      tables.push(await dump(engine));
      out.push(await repo.exportRows(k2, 'acme', 'ann', all, 10), await repo.claimJob(90, 1_090, 3));
      return { out, tables };
    };
    const sqlite = await run(both.storage.userData, 'sqlite');
    const pg = await run(userDataRepo(both.pg), 'pg');
    const answers = { sqlite: sqlite.out, pg: pg.out };
    expect(answers.pg).toEqual(answers.sqlite);
    expect(pg.tables).toEqual(sqlite.tables);

    // and the answers are what they must be
    const a = answers.sqlite;
    expect(a[0]).toBeUndefined();
    expect(a[1]).toBeUndefined();
    expect(a[2]).toMatchObject({ id: 'job1', apiKeyId: 'k1', userId: 'ann', status: 'pending', attempts: 0, completedAt: null });
    expect(a[3]).toBeUndefined();
    type Page = { comments: Array<{ annotationId: string; id: number }>; reactions: Array<{ id: string }>; recordings: Array<{ id: string }> };
    const page = (x: unknown) => {
      const p = x as Page;
      return { comments: keys(p.comments), reactions: p.reactions.map((x) => x.id), recordings: p.recordings.map((x) => x.id) };
    };
    expect(page(a[4])).toEqual({ comments: ['t2:1', 't1:1'], reactions: ['x1', 'x2'], recordings: ['rec1', 'rec3'] });
    expect(page(a[5])).toEqual({ comments: [], reactions: [], recordings: ['rec3'] });
    expect(page(a[6])).toEqual({ comments: ['t1:10'], reactions: [], recordings: ['rec1', 'rec3'] });
    expect(page(a[7])).toEqual({ comments: [], reactions: [], recordings: [] });
    expect(page(a[8])).toEqual({ comments: ['t9:1'], reactions: [], recordings: [] });
    expect(page(a[9])).toEqual({ comments: ['t2:1'], reactions: ['x1'], recordings: ['rec1'] });
    expect((a[9] as Page & { comments: Array<{ apiKeyId: string }> }).comments[0]?.apiKeyId).toBe('k2');
    expect(page(a[10])).toEqual({ comments: [], reactions: [], recordings: [] });
    expect((a[11] as Array<{ id: string }>).map((x) => x.id)).toEqual(['t1', 't2']);
    expect(a[12]).toEqual([]);
    expect(a[13]).toEqual([]);
    expect(a[14]).toMatchObject({ id: 'job1' });
    expect(a[15]).toMatchObject({ id: 'job2' });
    expect(a[16]).toMatchObject({ status: 'pending', attempts: 1, error: null });
    expect(a[17]).toMatchObject({ status: 'failed', attempts: 5, error: 'interrupted 3 times; not retried' });
    expect(a[18]).toMatchObject({ id: 'job1' });
    expect(a[19]).toMatchObject({ status: 'failed', error: 'boom', completedAt: 1234 });
    expect(a[20]).toEqual(['k1-file-a', 'k1-file-b']);
    expect(a[21]).toMatchObject({ status: 'completed', completedAt: 'number', error: null });
    expect(a[22]).toEqual({ comments: [], reactions: [], recordings: [] });
    expect(a[23]).toEqual([]);
    expect(page(a[24])).toEqual({ comments: ['t2:1', 't1:1', 't1:10'], reactions: ['x1', 'x2'], recordings: ['rec1', 'rec3'] });
    expect(a[25]).toBeUndefined();

    // the tables after k1's ann's erasure: what went, what stayed (k2's ann and k1's bob keep theirs)
    const after = sqlite.tables[4] as Record<string, string[]>;
    expect(after.users).toEqual(['k1|bob|Bob|bob@x.test', 'k2|ann|Ann Lee|ann@x.test']);
    expect(after.memberships).toEqual(['k1|acme|acme|bob', 'k2|acme|acme|ann']);
    expect(after.user_group_members).toEqual(['k1|acme|g1|bob', 'k2|acme|g1|ann']);
    expect(after.notification_configs).toEqual(['k1|acme|d1|bob', 'k2|acme|d1|ann']);
    expect(after.notification_recipients).toEqual(['k1|acme|n3|bob', 'k2|acme|n3|ann', 'k2|acme|n3|bob']);
    expect(after.notifications).toEqual(['k1|acme|n3', 'k2|acme|n1', 'k2|acme|n2', 'k2|acme|n3', 'k2|acme|n4']);
    expect(after.activities).toEqual(['k1|acme|a3', 'k2|acme|a1', 'k2|acme|a2', 'k2|acme|a3']);
    expect((after.comment_annotations ?? []).filter((x) => x.startsWith('k1'))).toEqual(['k1|acme|t1||-', 'k1|acme|t2|bob|{"userId":"bob"}', 'k1|beta|t9||-']);
    expect((after.comments ?? []).filter((x) => x.startsWith('k1'))).toEqual([
      'k1|acme|t1|2|bob|[{"userId":"cy"}]|["cy"]|{"to":[{"email":"cy@x.test"}],"isDraft":false}',
      'k1|acme|t2|2|bob|-|[]|-',
    ]);
    expect((after.comments ?? []).filter((x) => x.startsWith('k2'))).toHaveLength(5);
    expect(after.reactions).toEqual(['k1|acme|x3|bob', 'k2|acme|x1|ann', 'k2|acme|x2|ann', 'k2|acme|x3|bob', 'k2|acme|x4|bob']);
    expect(after.recordings).toEqual(['k1|acme|rec2|bob', 'k2|acme|rec1|ann', 'k2|acme|rec2|bob', 'k2|acme|rec3|ann']);
    expect((after.recording_attachments ?? []).filter((x) => x.startsWith('k1'))).toEqual(['k1|rec2|k1-file-c']);
    expect(after.judgments).toEqual(['k1|k1-j4|bob', 'k2|k2-j1|ann', 'k2|k2-j2|bob', 'k2|k2-j3|bob', 'k2|k2-j4|bob']);
    expect(after.mail_outbox).toEqual(['k1|k1-m2|bob@x.test', 'k2|k2-m1|ann@x.test', 'k2|k2-m2|bob@x.test']);
    expect(after.user_data_jobs).toEqual([
      'job1|k1|ann|completed|2|-|stamped',
      'job2|k2|ann|failed|1|boom|1234',
      'job3|k1|bob|failed|5|interrupted 3 times; not retried|-',
      'job4|k2|ghost|pending|0|-|-',
    ]);
    // the ghost's erasure changed its job and nothing else
    const ghost = sqlite.tables[5] as Record<string, string[]>;
    expect({ ...ghost, user_data_jobs: [] }).toEqual({ ...after, user_data_jobs: [] });
    expect(ghost.user_data_jobs?.[3]).toBe('job4|k2|ghost|completed|0|-|stamped');
  });

  it("undoes an erasure whose lease ran out and was taken over, and refuses its holder's failure", async () => {
    const { k2 } = both;
    const all = { comments: null, reactions: null, recordings: null } as const;
    const run = async (repo: UserDataRepo, engine: 'sqlite' | 'pg') => {
      const out: unknown[] = [];
      // k2's ann still has data (the test above erased k1's): an erasure taken at 2000 under a lease until 3000
      await repo.insertJob(k2, newJob('stale', 'ann', 2000));
      const first = (await repo.claimJob(2000, 3000, 3)) as ErasureJob;
      // its holder stalls; at 3500 another instance takes it over (the claim puts back what ran out first)
      const second = (await repo.claimJob(3500, 4500, 3)) as ErasureJob;
      out.push(first, second);
      const before = await dump(engine);
      try {
        await repo.erase(k2, first, rules);
        out.push('erased under the stale lease');
      } catch (error) {
        out.push((error as Error).name);
      }
      // nothing of it is kept: every table as before, the job the new holder's
      out.push(JSON.stringify(await dump(engine)) === JSON.stringify(before), await repo.findJob(k2, 'stale'));
      out.push([await repo.markFailed('stale', 'late', 3600, first.leaseUntil), await repo.complete('stale', 3600, first.leaseUntil)]);
      // the new holder's erasure applies, and it completes the job
      out.push((await repo.erase(k2, second, rules)).length, await repo.exportRows(k2, 'acme', 'ann', all, 10));
      out.push(await repo.complete('stale', 4000, second.leaseUntil), await repo.findJob(k2, 'stale'));
      return out;
    };
    const sqlite = await run(both.storage.userData, 'sqlite');
    const pg = await run(userDataRepo(both.pg), 'pg');
    expect(pg).toEqual(sqlite);
    expect(sqlite[0]).toMatchObject({ id: 'stale', attempts: 1, leaseUntil: 3000 });
    expect(sqlite[1]).toMatchObject({ id: 'stale', attempts: 2, leaseUntil: 4500 });
    expect(sqlite[2]).toBe('LeaseLostError');
    expect(sqlite[3]).toBe(true);
    expect(sqlite[4]).toMatchObject({ status: 'in_progress', leaseUntil: 4500 });
    expect(sqlite[5]).toEqual([false, false]);
    expect(sqlite[6]).toBeGreaterThan(0);
    expect(sqlite[7]).toEqual({ comments: [], reactions: [], recordings: [] });
    expect(sqlite[8]).toBe(true);
    expect(sqlite[9]).toMatchObject({ status: 'completed', completedAt: 4000, leaseUntil: null });
  });

  it("checkpoints SQLite's write-ahead log, and does nothing on PostgreSQL", async () => {
    await expect(both.storage.userData.checkpoint()).resolves.toBeUndefined();
    await expect(userDataRepo(both.pg).checkpoint()).resolves.toBeUndefined();
  });
});
