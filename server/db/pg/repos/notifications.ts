// Notifications' own statements on PostgreSQL: the hot add and the page (NotificationsOwn of
// ../../repos/notifications.ts, whose repository writes the rest once; test/pg/notifications.test.ts runs both
// engines on the same calls and compares every answer). The page is one named
// statement per filter shape, as on SQLite: the same columns in the same order (JSON columns read as their text,
// which `json` keeps as written), each row's recipients as a JSON array from a correlated subquery, and the same
// code turns the rows into the answer (describePage), so both engines answer the same bytes.
import type { Cursor } from '../../pagination.ts';
import { describePage, N, type NotificationFilters, type PageWords, pageParams, pageShape, pageSql, R, type Shape } from '../../repos/notification-page.ts';
import {
  type ChannelRow,
  knownChannelsOf,
  type Member,
  type NewRecipient,
  type NotificationRow,
  type NotificationsOwn,
  notificationValues,
  type Prelude,
  type PreludeAsk,
} from '../../repos/notifications.ts';
import type { UserRow } from '../../repos/users.ts';
import { advancedTakesEventPg } from '../../repos/webhooks.ts';
import { documentDataKey, inOrder, lockRows, shareKey, type PgDb, type PgEngine } from '../engine.ts';
import { jsonRowSql } from '../schema.ts';

const JSON_COLUMNS = new Set(['source_data', 'action_user', 'headline_data', 'context_access']);

/** The page statement's words on PostgreSQL (PageWords of notification-page.ts). */
const PAGE_WORDS: PageWords = {
  column: (c) => (JSON_COLUMNS.has(c) ? `${N}."${c}"::text` : `${N}."${c}"`),
  // the recipients as `[[userId, readAt], …]` text, by user id (`[]` when it has none)
  recipients:
    `(select coalesce(json_agg(json_build_array(r."user_id", r."read_at") order by r."user_id"), '[]')::text from ${R} r` +
    ` where r."api_key_id" = ${N}."api_key_id" and r."organization_id" = ${N}."organization_id" and r."notification_id" = ${N}."id")`,
  visibleToReader:
    `(${N}."source" <> 'comment' or not exists (select 1 from "comment_annotations" a` +
    ` where a."api_key_id" = ${N}."api_key_id" and a."organization_id" = ${N}."organization_id" and a."id" = (${N}."source_data"->>'annotationId')` +
    ` and a."visibility" = 'restricted' and a."created_by_user_id" <> ? and not exists (select 1 from json_array_elements_text(a."visible_to_user_ids") v where v = ?)))`,
};

/** The page statement for a shape, with PostgreSQL's numbered parameters. */
function pageSqlPg(shape: Shape): string {
  let i = 0;
  return pageSql(shape, PAGE_WORDS).replace(/\?/g, () => `$${++i}`);
}

async function channelRows(db: PgDb, apiKeyId: string, organizationId: string, documentId: string, userIds: readonly string[]): Promise<ChannelRow[]> {
  if (userIds.length === 0) return [];
  const { rows } = await db.$client.query<ChannelRow>({
    name: 'hearth-notification-channels',
    text:
      'SELECT user_id AS "userId", document_id AS "documentId", inbox, email, slack, channels_set AS "channelsSet" FROM notification_configs' +
      " WHERE api_key_id = $1 AND organization_id = $2 AND user_id = ANY($3::text[]) AND document_id IN ('', $4) ORDER BY document_id, user_id",
    values: [apiKeyId, organizationId, [...userIds], documentId],
  });
  return rows;
}

/**
 * The notification and its recipients in one statement (one round trip: on the hot add, each statement's socket
 * write is a large share of the server's CPU on PostgreSQL; docs/storage.md, "Fewer statements, each prepared"). The
 * notification is inserted by a data-modifying CTE, which runs to its end whether or not the recipients' rows read
 * it; the recipients are the arrays unnested side by side, none for empty arrays.
 */
async function insert(db: PgDb, row: NotificationRow, recipients: readonly NewRecipient[]) {
  await db.$client.query({
    name: 'hearth-notification-insert-with-recipients',
    text:
      'WITH n AS (INSERT INTO notifications (api_key_id, organization_id, id, document_id, location_id, source, source_data, action_user, headline_template, headline_data, body, resolver, context_access, timestamp)' +
      ' VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING 1)' +
      ' INSERT INTO notification_recipients (api_key_id, organization_id, notification_id, user_id, document_id, timestamp, explicit, read_at)' +
      ' SELECT $1, $2, $3, u, $4, $14, e, NULL FROM n, unnest($15::text[], $16::boolean[]) AS t(u, e)',
    values: [...notificationValues(row, (b) => b), recipients.map((x) => x.userId), recipients.map((x) => x.explicit)],
  });
}

/**
 * The prelude (Prelude in ../../repos/notifications.ts) as one statement: every row it answers travels as JSON text
 * (jsonRowSql), each list one JSON array. $1 the key, $2 the organization, $3 the document, $4 the caller's id (NULL
 * for a made one), $5 the named users, $6 the event's type.
 */
const PRELUDE = `WITH d AS (SELECT * FROM documents WHERE api_key_id = $1 AND organization_id = $2 AND id = $3),
 f AS (SELECT folders.* FROM folders JOIN d ON folders.api_key_id = d.api_key_id AND folders.organization_id = d.organization_id AND folders.id = d.folder_id)
SELECT (SELECT ${jsonRowSql('organizations', 'o')} FROM organizations o WHERE o.api_key_id = $1 AND o.id = $2)::text AS organization,
 (SELECT ${jsonRowSql('documents', 'd')} FROM d)::text AS document,
 (SELECT ${jsonRowSql('folders', 'f')} FROM f)::text AS folder,
 (SELECT coalesce(json_agg(json_build_array(m.level, m.resource_id, m.user_id) ORDER BY m.level, m.resource_id, m.user_id), '[]')::text FROM memberships m
  WHERE m.api_key_id = $1 AND m.organization_id = $2 AND ((m.level = 'document' AND m.resource_id = $3 AND EXISTS (SELECT 1 FROM d))
   OR (m.level = 'organization' AND m.resource_id = $2)
   OR (m.level = 'folder' AND m.resource_id IN (SELECT f.id FROM f UNION ALL SELECT a FROM f, json_array_elements_text(f.ancestors) AS a WHERE a <> 'root')))) AS members,
 ($4::text IS NOT NULL AND EXISTS (SELECT 1 FROM notifications n WHERE n.api_key_id = $1 AND n.organization_id = $2 AND n.id = $4)) AS taken,
 (SELECT coalesce(json_agg(${jsonRowSql('users', 'u')}), '[]')::text FROM users u WHERE u.api_key_id = $1 AND u.id = ANY($5::text[])) AS profiles,
 (SELECT coalesce(json_agg(json_build_array(g.user_id, g.document_id, g.inbox, g.email, g.slack, g.channels_set) ORDER BY g.document_id, g.user_id), '[]')::text
  FROM notification_configs g WHERE g.api_key_id = $1 AND g.organization_id = $2 AND g.user_id = ANY($5::text[]) AND g.document_id IN ('', $3)) AS channels,
 ${advancedTakesEventPg('$1', '$6', "NULLIF($2::text, '')", "NULLIF($3::text, '')")} AS subscribed`;

type PreludeRow = {
  organization: string | null;
  document: string | null;
  folder: string | null;
  members: string;
  taken: boolean;
  profiles: string;
  channels: string;
  subscribed: boolean;
};

const parsedOrUndefined = <T>(text: string | null): T | undefined => (text === null ? undefined : (JSON.parse(text) as T));

function preludeOf(row: PreludeRow): Prelude {
  const members = JSON.parse(row.members) as Array<[Member['level'], string, string]>;
  const channels = JSON.parse(row.channels) as Array<[string, string, ChannelRow['inbox'], ChannelRow['email'], ChannelRow['slack'], number]>;
  return {
    organization: parsedOrUndefined(row.organization),
    document: parsedOrUndefined(row.document),
    folder: parsedOrUndefined(row.folder),
    members: members.map(([level, resourceId, userId]) => ({ level, resourceId, userId })),
    taken: row.taken,
    profiles: new Map((JSON.parse(row.profiles) as UserRow[]).map((user) => [user.id, user])),
    channels: channels.map(([userId, documentId, inbox, email, slack, channelsSet]) => ({ userId, documentId, inbox, email, slack, channelsSet })),
    subscribed: row.subscribed,
  };
}

/** Notifications' own statements on PostgreSQL (NotificationsOwn); the rest is written once (../../repos/notifications.ts). */
export function notificationsPg(engine: PgEngine): NotificationsOwn {
  return {
    prelude: (scope, organizationId, documentId, ask: PreludeAsk) =>
      engine.read(async (db) => {
        // a made id (undefined) is not looked up: see the SQLite repository's prelude. A caller's id is a row that may
        // not exist yet, so no row lock can keep two adds of it from both finding it free: they take a lock on the id
        // itself (transaction-scoped, advisory: engine.lockRows, the one an update of that id takes, after the kind's
        // shared lock, which an update of more than ROW_LOCKS_MAX notifications takes exclusively), the second waits
        // for the first's commit and then, in a statement of its own (READ COMMITTED reads as of each statement's
        // start), finds it taken and answers created: false. The locks and the prelude go out together (pipelined):
        // PostgreSQL runs the prelude once the locks are held, and the add costs no round trip more for its id.
        // First, the organization's document data shared: a delete of the document (or of its folder) that fences it
        // waits for this add's commit and then deletes what it added; one that holds it already ends first, and the
        // prelude then finds the document gone (docs/storage.md, "Fences"). Adds share it, side by side.
        const shared = shareKey(db, documentDataKey(scope.apiKeyId, organizationId));
        const held = ask.id === undefined ? undefined : lockRows(db, ['notification', scope.apiKeyId, organizationId], [ask.id]);
        const answer = db.$client.query<PreludeRow>({
          name: 'hearth-notification-prelude',
          text: PRELUDE,
          values: [scope.apiKeyId, organizationId, documentId, ask.id ?? null, [...ask.userIds], ask.eventType],
        });
        // a lock's failure is the error thrown, not the prelude's "transaction aborted" behind it
        const [, , { rows }] = await inOrder([shared, held, answer] as const);
        return preludeOf(rows[0] as PreludeRow);
      }),

    channelRows: (scope, organizationId, documentId, userIds) => engine.read((db) => channelRows(db, scope.apiKeyId, organizationId, documentId, userIds)),

    insert: (scope, row, userIds, decide, known) =>
      engine.write(async (db) => {
        const full = { ...row, apiKeyId: scope.apiKeyId };
        const { rows, missing } = knownChannelsOf(userIds, known);
        const decided = decide([...rows, ...(await channelRows(db, scope.apiKeyId, row.organizationId, row.documentId, missing))]);
        // the unit's last statement: COMMIT goes out behind it (engine.defer)
        await engine.defer(() => insert(db, full, decided.inbox));
        return decided;
      }),

    page: (scope, filters: NotificationFilters, cursor: Cursor | null) =>
      engine.read(async (db) => {
        const shape = pageShape(filters, cursor);
        const key = `${+shape.byUser}${+shape.document}${+shape.location}${+shape.cursor}${+shape.descending}${shape.ids}`;
        const { rows } = await db.$client.query<unknown[]>({
          name: `hearth-notifications-page-${key}`,
          text: pageSqlPg(shape),
          values: pageParams(scope.apiKeyId, filters, cursor, shape),
          rowMode: 'array',
        });
        return describePage(rows, scope.apiKeyId, filters, !shape.byUser);
      }),
  };
}
