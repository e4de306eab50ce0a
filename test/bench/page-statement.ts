// The statement of the computed notifications page's floors (page-floor.ts in process, floor-server.ts `page-db`
// behind bare node:http): the page of 50 that /v2/notifications/get answers for one document, newest first, read
// by ONE prepared better-sqlite3 statement. It reads what the server's page statement reads
// (server/db/repos/notification-page.ts: the same columns, the same WHERE and ORDER BY on the same index, each row's
// recipients as a JSON array from a correlated subquery on the recipients' primary key), but 50 rows rather than
// the server's 51 (its extra row tells whether a next page exists).
import Database from 'better-sqlite3';

const N = '"notifications"';
const R = '"notification_recipients"';

/** Opens `file` read-only (WAL lets it read beside a running server) and prepares the page statement. */
export function openPageStatement(file: string) {
  const db = new Database(file, { readonly: true });
  db.pragma('busy_timeout = 5000');
  const page = db.prepare<[string, string, string], Record<string, unknown>>(
    `select ${['id', 'location_id', 'source', 'source_data', 'action_user', 'headline_template', 'headline_data', 'body', 'resolver', 'context_access', 'timestamp'].map((c) => `${N}."${c}"`).join(', ')},` +
      ` (select json_group_array(json_array(r."user_id", r."read_at")) from ${R} r` +
      ` where r."api_key_id" = ${N}."api_key_id" and r."organization_id" = ${N}."organization_id" and r."notification_id" = ${N}."id") as "recipients"` +
      ` from ${N} where (${N}."api_key_id" = ? and ${N}."organization_id" = ? and ${N}."document_id" = ?)` +
      ` order by ${N}."timestamp" desc, ${N}."id" desc limit 50`,
  );
  return { db, page };
}
