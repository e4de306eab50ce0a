// What the isolation and atomicity sweeps share: one key's data in every area under fixed ids, a copy of every
// row a key owns, and valid requests generated from the registry's schemas that name those ids.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { join } from 'node:path';
import type { AnyOperation } from '../../../server/http/operation.ts';
import { apiKeyHeaders, call, type Failure, type TestServer } from '../../helpers/server.ts';
import { b64, WEBM } from '../../helpers/media.ts';
import { REVIEW_FLOW } from '../../helpers/workflows.ts';
import { arbitraryFor, type JsonSchema, type Pools } from './arbitraries.ts';
import { inputSchemaOf } from './requests.ts';

export type Key = { apiKey: string; authToken: string };

export const ORG = 'iso-org';
export const room = { organizationId: ORG, documentId: 'doc-1', editorId: 'e1' };

/** The `data` of a successful answer (typed by the caller); a set-up call refused throws. */
export const must = async <T = Record<string, unknown>>(answer: Promise<{ status: number; body: unknown }>): Promise<T> => {
  const res = await answer;
  if (res.status !== 200) throw new Error(`set-up call failed: ${JSON.stringify(res.body)}`);
  return (res.body as { result?: { data?: T } }).result?.data as T;
};

/** The seeded notification's id: fixed, so that a notification seeded again is the same one. */
export const NOTIFICATION_ID = 'n-1';

/**
 * The same organization, documents, folder, users (an editor and a viewer, in a group, with notification
 * settings), editor document, notification, comment thread, reaction, activity, recording, agent, workflow,
 * AI provider key and webhook endpoint under `key`, with `text` in every field that stores text (and, made
 * from it, the users' emails and the reaction's icon). Returns the endpoint's id and signing secret.
 */
export async function seedTenant(url: string, key: Key, text: string, options: { again?: boolean } = {}) {
  // `again`: over what a key seeded before still has; a step refused (already there, or by the settings the
  // key has by now) is left as it is
  const callAs = async (path: string, data: unknown) => {
    const res = await call<unknown>(url, path, data, apiKeyHeaders(key));
    return options.again && res.status !== 200 ? { status: 200, body: { result: { data: (res.body as Partial<Failure>).error?.details ?? {} } } } : res;
  };
  const slug = text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  // one document a call: adding documents is all or none, and seeding again finds one or the other still there
  await must(
    callAs('/v2/organizations/documents/add', {
      organizationId: ORG,
      createOrganization: true,
      organizationName: text,
      documents: [{ documentId: 'doc-1', documentName: text }],
    }),
  );
  await must(
    callAs('/v2/organizations/documents/add', { organizationId: ORG, documents: [{ documentId: 'doc-2', documentName: text, accessType: 'restricted' }] }),
  );
  await must(callAs('/v2/organizations/folders/add', { organizationId: ORG, folders: [{ folderId: 'fold-1', folderName: text, accessType: 'restricted' }] }));
  await must(
    callAs('/v2/users/add', {
      organizationId: ORG,
      users: [
        { userId: 'ann', name: text, email: `ann.${slug}@example.com`, accessRole: 'editor' },
        { userId: 'bob', name: text, email: `bob.${slug}@example.com`, accessRole: 'viewer' },
      ],
    }),
  );
  await must(callAs('/v2/organizations/usergroups/add', { organizationId: ORG, organizationUserGroups: [{ groupId: 'grp-1', groupName: text }] }));
  await must(callAs('/v1/organizations/usergroups/users/add', { organizationId: ORG, organizationUserGroupId: 'grp-1', userIds: ['ann'] }));
  await must(callAs('/v2/notifications/config/set', { organizationId: ORG, userIds: ['ann'], config: { email: 'NONE' } }));
  await must(callAs('/v2/crdt/add', { ...room, type: 'text', data: text }));
  await must(
    callAs('/v2/notifications/add', {
      organizationId: ORG,
      documentId: 'doc-1',
      notificationId: NOTIFICATION_ID,
      actionUser: { userId: 'ann' },
      notifyUsers: [{ userId: 'ann' }, { userId: 'bob' }],
      displayHeadlineMessageTemplate: text,
      displayBodyMessage: text,
    }),
  );
  await must(
    callAs('/v2/commentannotations/add', {
      organizationId: ORG,
      documentId: 'doc-1',
      commentAnnotations: [{ annotationId: 'ann-1', commentData: [{ commentText: text, from: { userId: 'ann' } }] }],
    }),
  );
  const thread = await must<{ comments: { commentId: number }[] }[]>(callAs('/v2/commentannotations/get', { organizationId: ORG, documentId: 'doc-1' }));
  const commentId = thread[0]?.comments[0]?.commentId ?? 1;
  await must(callAs('/v2/reactions/add', { organizationId: ORG, annotationId: 'ann-1', commentId, icon: text.slice(0, 64), from: { userId: 'ann' } }));
  await must(
    callAs('/v2/activities/add', {
      organizationId: ORG,
      documentId: 'doc-1',
      activities: [
        { id: 'act-1', featureType: 'custom', actionType: 'custom.x', actionUser: { userId: 'ann' }, targetEntityId: 'ann-1', displayMessageTemplate: text },
      ],
    }),
  );
  await must(
    callAs('/v2/recordings/add', {
      organizationId: ORG,
      documentId: 'doc-1',
      recording: {
        recordingId: 'rec-1',
        recordingType: 'audio',
        from: { userId: 'ann' },
        displayName: text,
        recordedTime: { duration: 1 },
        attachments: [{ name: text, mimeType: 'audio/webm', data: b64(Buffer.concat([WEBM, Buffer.from(text)])) }],
      },
    }),
  );
  await must(callAs('/v2/agents/create', { agentId: 'agent-1', name: text, model: 'gpt-4o', instructions: text }));
  await must(callAs('/v2/workflow/definitions/create', { definitionId: 'flow-1', ...REVIEW_FLOW, name: text }));
  // a stored secret: an AI provider's key (no provider is reachable here, and none is called by the seeding)
  await must(callAs('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'openai', customerApiKey: `${text} provider key` }] }));
  await must(callAs('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
  const endpoint = await must<{ id: string | number }>(
    callAs('/v2/workspace/advancedwebhook/endpoints/create', { url: `https://hooks.example.com/${encodeURIComponent(text)}`, description: text }),
  );
  const secret = await must<{ secret: string }>(callAs('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: endpoint.id }));
  return { endpointId: String(endpoint.id), endpointSecret: secret.secret };
}

/**
 * Which of the seeded rows a key no longer has (a generated delete took them): the organization, a document,
 * the agent, the thread, the notification.
 */
export function missingSeeded(sqlite: Database.Database, apiKey: string): string[] {
  const has = (sql: string, ...params: string[]) => sqlite.prepare(sql).get(apiKey, ...params) !== undefined;
  const missing: string[] = [];
  if (!has('select 1 from organizations where api_key_id = ? and id = ?', ORG)) missing.push('organization');
  if (!has('select 1 from documents where api_key_id = ? and organization_id = ? and id = ?', ORG, 'doc-1')) missing.push('document');
  if (!has('select 1 from agents where api_key_id = ? and id = ?', 'agent-1')) missing.push('agent');
  if (!has('select 1 from comment_annotations where api_key_id = ? and organization_id = ? and id = ?', ORG, 'ann-1')) missing.push('thread');
  if (!has('select 1 from notifications where api_key_id = ? and organization_id = ? and id = ?', ORG, NOTIFICATION_ID)) missing.push('notification');
  return missing;
}

/**
 * What a sweep's requests name, by field: the seeded tenant's ids (in `organizationId`'s organization) and ids no one
 * seeded, of both kinds, with the endpoints, API keys and owner emails given.
 */
export const sweepPools = (organizationId: string, more: { endpointId: string[]; apiKey: string[]; ownerEmail: string[] }): Pools => ({
  organizationId: [organizationId, 'gen-org'],
  documentId: ['doc-1', 'doc-2', 'gen-doc-1'],
  folderId: ['fold-1', 'gen-fold'],
  parentFolderId: ['fold-1', 'gen-fold'],
  userId: ['ann', 'bob', 'gen-ann'],
  groupId: ['grp-1', 'gen-grp'],
  editorId: ['e1', 'gen-e1'],
  notificationId: [NOTIFICATION_ID],
  organizationUserGroupId: ['grp-1', 'gen-grp'],
  annotationId: ['ann-1'],
  activityId: ['act-1'],
  // (an activity's own id, in activities/update)
  id: ['act-1'],
  recordingId: ['rec-1'],
  agentId: ['agent-1', 'gen-agent'],
  definitionId: ['flow-1', 'gen-flow'],
  ...more,
});

/** The seeded ids by field name, one each: what `aimed` narrows a schema to. */
export const seededIds = (seeded: Awaited<ReturnType<typeof seedTenant>>, apiKey: string): Pools => ({
  organizationId: [ORG],
  documentId: ['doc-1'],
  folderId: ['fold-1'],
  userId: ['ann'],
  groupId: ['grp-1'],
  organizationUserGroupId: ['grp-1'],
  editorId: ['e1'],
  notificationId: [NOTIFICATION_ID],
  annotationId: ['ann-1'],
  activityId: ['act-1'],
  recordingId: ['rec-1'],
  agentId: ['agent-1'],
  definitionId: ['flow-1'],
  endpointId: [seeded.endpointId],
  apiKey: [apiKey],
});

/** Which rows of a table a copy takes: its columns (all by default) and a condition; undefined leaves it out. */
export type TablePick = { columns?: string; where?: string; params?: unknown[] } | undefined;

/**
 * A copy of the database file's tables (not the virtual ones), as JSON text by table name, of the rows `pick`
 * takes, in rowid order (a table without rowid: by all its columns).
 */
export function copyTables(path: string, pick: (table: string, columns: string[]) => TablePick): Record<string, string> {
  const out: Record<string, string> = {};
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare<[], { name: string; sql: string }>(
        "select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%'",
      )
      .all();
    for (const { name, sql } of tables) {
      if (/create virtual table/i.test(sql)) continue;
      const columns = db
        .prepare<[], { name: string }>(`select name from pragma_table_info('${name}')`)
        .all()
        .map((col) => col.name);
      const picked = pick(name, columns);
      if (picked === undefined) continue;
      const order = /without rowid/i.test(sql) ? columns.map((col) => `"${col}"`).join(', ') : 'rowid';
      const where = picked.where ? ` where ${picked.where}` : '';
      out[name] = JSON.stringify(
        db
          .prepare(`select ${picked.columns ?? '*'} from "${name}"${where} order by ${order}`)
          .raw()
          .all(...(picked.params ?? [])),
      );
    }
  } finally {
    db.close();
  }
  return out;
}

/**
 * Every row of a key: in each table with an `api_key_id` column, the key's rows; its own key row, and its
 * workspace's row when given. On SQLite, the tables of hearth.db and webhooks.db (not the virtual ones), in rowid
 * order, by `file:table`; on PostgreSQL, the base tables of the server's schema (the delivery tables among them),
 * by table, the rows in the order of their JSON text (PostgreSQL has no rowid, and its json columns no ordering).
 */
export async function rowsOfKey(t: TestServer, apiKey: string, workspaceId?: string): Promise<Record<string, string>> {
  if (t.server.app.storage.engine.kind === 'postgres') return pgRowsOfKey(t, apiKey, workspaceId);
  const pick = keyRows(apiKey, workspaceId);
  const out: Record<string, string> = {};
  for (const file of ['hearth.db', 'webhooks.db']) {
    for (const [table, rows] of Object.entries(copyTables(join(t.dataDir, file), pick))) out[`${file}:${table}`] = rows;
  }
  return out;
}

/** A connection to a server's database that runs one statement (`?` placeholders): a TestServer, a process cluster. */
export interface Queryable {
  query<R = Record<string, unknown>>(statement: string, params?: unknown[]): Promise<R[]>;
}

/** The rows of a key (see rowsOfKey) in each table, by its columns. */
const keyRows =
  (apiKey: string, workspaceId?: string) =>
  (name: string, columns: string[]): TablePick =>
    columns.includes('api_key_id')
      ? { where: 'api_key_id = ?', params: [apiKey] }
      : name === 'api_keys'
        ? { where: 'id = ?', params: [apiKey] }
        : name === 'workspaces' && workspaceId
          ? { where: 'id = ?', params: [workspaceId] }
          : undefined;

/** rowsOfKey on a PostgreSQL database, read through any connection to it (a cluster's instances share one). */
export async function pgRowsOfKey(t: Queryable, apiKey: string, workspaceId?: string): Promise<Record<string, string>> {
  const pick = keyRows(apiKey, workspaceId);
  const out: Record<string, string> = {};
  const columns = await t.query<{ table: string; column: string }>(
    `select c.table_name as "table", c.column_name as "column" from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' order by c.table_name, c.ordinal_position`,
  );
  const byTable = new Map<string, string[]>();
  for (const { table, column } of columns) byTable.set(table, [...(byTable.get(table) ?? []), column]);
  for (const [table, names] of byTable) {
    const picked = pick(table, names);
    if (picked === undefined) continue;
    const rows = await t.query(`select ${picked.columns ?? '*'} from "${table}"${picked.where ? ` where ${picked.where}` : ''}`, picked.params ?? []);
    out[table] = JSON.stringify(rows.map((row) => JSON.stringify(Object.values(row))).sort());
  }
  return out;
}

/** The tables whose copies differ. */
export const changedTables = (before: Record<string, string>, after: Record<string, string>) =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((table) => before[table] !== after[table]);

/**
 * A key's agent executions still running and its jobs not yet done, read from the server's database (a connection
 * of the test's own: the server's are behind its storage layer).
 */
export async function busyOf(t: Queryable, apiKey: string): Promise<number> {
  const count = async (sql: string) => Number((await t.query<{ n: number | string }>(sql, [apiKey]))[0]?.n);
  return (
    (await count("select count(*) as n from agent_executions where api_key_id = ? and status = 'running'")) +
    (await count("select count(*) as n from user_data_jobs where api_key_id = ? and status in ('pending', 'in_progress')")) +
    (await count("select count(*) as n from document_migrations where api_key_id = ? and status in ('pending', 'in_progress')"))
  );
}

/** Operations that only read, by their names (…/get, …/list, …/status, memory's query and suggest). */
export const isRead = (op: AnyOperation) => /\/(get|list|status|query|suggest)$/.test(op.path);

const singular = (name: string) => (name.endsWith('s') ? name.slice(0, -1) : name);

/**
 * The schema narrowed to what names seeded rows: a pooled string only from `ids`, an array of them no longer
 * than its pool (no repeated ids). A read keeps its optional properties only where they name an id, or hold one
 * below them, and its flags: a generated filter of random text matches nothing, so a read with every optional
 * filter filled in would rarely reach a row. A write keeps them all (an update needs something to change).
 */
export function aimed(schema: JsonSchema, ids: Pools, write: boolean, name = ''): JsonSchema {
  if (schema.anyOf) return { ...schema, anyOf: schema.anyOf.map((s) => aimed(s, ids, write, name)) };
  if (schema.oneOf) return { ...schema, oneOf: schema.oneOf.map((s) => aimed(s, ids, write, name)) };
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string' && ids[name] && !schema.enum && schema.const === undefined) return { enum: [...(ids[name] as string[])] };
  if (type === 'array' && schema.items) {
    const items = aimed(schema.items, ids, write, singular(name));
    return items.enum ? { ...schema, items, maxItems: Math.min(schema.maxItems ?? Infinity, items.enum.length) } : { ...schema, items };
  }
  if (type === 'object' && schema.properties) {
    const required = new Set(schema.required ?? []);
    const kept = (key: string, s: JsonSchema) => write || required.has(key) || namesAnId(s, ids, key) || s.type === 'boolean';
    const properties = Object.fromEntries(
      Object.entries(schema.properties)
        .filter(([key, s]) => kept(key, s))
        .map(([key, s]) => [key, aimed(s, ids, write, key)]),
    );
    return { ...schema, properties };
  }
  return schema;
}

/** Whether a property (or anything below it) is named as one of the pooled ids. */
function namesAnId(schema: JsonSchema, ids: Pools, name: string): boolean {
  if (ids[name] !== undefined || ids[singular(name)] !== undefined) return true;
  if (schema.items) return namesAnId(schema.items, ids, singular(name));
  if (schema.properties) return Object.entries(schema.properties).some(([key, s]) => namesAnId(s, ids, key));
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some((s) => namesAnId(s, ids, name));
}

/**
 * Valid generated request bodies for operations: from the schema itself (every optional field, any value; ids
 * from `pools`), or, three times as often when `aim` is given, from its narrowing to `aim`'s ids. The
 * arbitraries are built once per operation, from the pools as they are then.
 */
export function requestData(pools: Pools, aim?: Pools) {
  const arbitraries = new Map<AnyOperation, fc.Arbitrary<unknown>>();
  return (op: AnyOperation, seed: number) => {
    let arbitrary = arbitraries.get(op);
    if (arbitrary === undefined) {
      const schema = inputSchemaOf(op);
      const plain = arbitraryFor(schema, pools);
      arbitrary = aim ? fc.oneof({ arbitrary: plain, weight: 1 }, { arbitrary: arbitraryFor(aimed(schema, aim, !isRead(op)), aim), weight: 3 }) : plain;
      arbitraries.set(op, arbitrary);
    }
    return fc.sample(arbitrary, { numRuns: 1, seed })[0];
  };
}
