// The admin UI's own HTTP contract (/admin/api/*, not operations of the interface): the zod schemas of what its
// endpoints take and answer. The server validates input with them and types its answers by them; the renderer
// imports the types only (`import type`, so no zod in the bundle); API tests parse real answers with them.
import { z } from 'zod';

/** One API call as the admin UI's request monitor lists it (server/admin/monitor.ts keeps them). */
export interface CallSummary {
  id: number;
  at: number;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** The API key or workspace id the call presented (never its token). */
  caller: string | null;
  requestId: string;
  /** Whether request and response bodies were kept (only while a UI watched). */
  hasBodies: boolean;
  /**
   * The cluster instance that answered the call, when it was another instance than the one asked (issue 31): its
   * summary came over Redis, and its bodies stay on that instance. The id is the instance's cluster id (its Redis
   * connections are named `hearth-<id>`).
   */
  instance?: string;
  /**
   * What kind of entry (issue 44): absent for a call of the API from outside, `ui` for an operation the admin UI
   * called (its editing, the explorer), `ws` for a websocket event (`method` WS; `status` 101 for a connection
   * opened, the close code for one closed, 401/403 for an upgrade refused).
   */
  kind?: 'ui' | 'ws';
  /** A websocket event's detail: who connected and what access was decided, a close's reason. */
  note?: string;
}

/** A call with its bodies (redacted), as `GET /admin/api/requests/:id` answers. */
export interface CallDetail extends Omit<CallSummary, 'hasBodies'> {
  request?: string;
  response?: string;
  /** The request's headers as received, credentials masked (`[redacted]`); kept with the bodies. */
  requestHeaders?: Array<[string, string]>;
  /** The answer's headers as Hearth wrote them (Node's own `Date` and `Keep-Alive` aside); kept with the bodies. */
  responseHeaders?: Array<[string, string]>;
}

/** The error envelope of every admin endpoint (and of every operation). */
export const errorAnswer = z.object({ error: z.object({ status: z.string(), message: z.string() }) });
export type ErrorAnswer = z.infer<typeof errorAnswer>;

// ---------------------------------------------------------------------------------------------------------
// Paged lists: keyset cursors (opaque, signed, tied to the query), never OFFSET
// ---------------------------------------------------------------------------------------------------------

const text = (max = 256) => z.string().trim().min(1).max(max);
const limit = z.coerce.number<number>().int().min(1).max(200).default(50);

/** What every paged list takes (as query parameters). */
/** Search text: PostgreSQL stores no U+0000, so neither engine is asked for it (issue 43's rule, for the admin API too). */
const searchText = z
  .string()
  .trim()
  .max(200)
  .refine((s) => !s.includes('\u0000'), 'The search text must not contain the NUL character (U+0000).');

export const listQuery = z.object({
  apiKey: text(),
  /** A search: an id prefix, or words of the name. */
  q: searchText.optional(),
  cursor: z.string().max(4096).optional(),
  limit,
  dir: z.enum(['asc', 'desc']).default('asc'),
});
export type ListQuery = z.input<typeof listQuery>;

/**
 * What organizations and documents sort by: their id, their name (ignoring case) or their last update (of the
 * record: name, access, folder; a collaborative document's edits are its editors' `updatedAt`). Users: id or name.
 * Every sort is a keyset range of an index (EXPLAIN QUERY PLAN checks them in test/admin/browse-pages.test.ts).
 */
export const ENTITY_SORT = ['id', 'name', 'updated'] as const;
export const USER_SORT = ['id', 'name'] as const;
export const organizationsQuery = listQuery.extend({ sort: z.enum(ENTITY_SORT).default('id') });
export const usersQuery = listQuery.extend({ sort: z.enum(USER_SORT).default('id') });
export type SortedQuery = z.input<typeof organizationsQuery>;

export const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// ---------------------------------------------------------------------------------------------------------
// Session and overview
// ---------------------------------------------------------------------------------------------------------

export const sessionAnswer = z.object({ signedIn: z.boolean(), workspaceId: z.string().optional() });
export type SessionAnswer = z.infer<typeof sessionAnswer>;
export const signInInput = z.object({ workspaceId: text(), workspaceAuthToken: text(4096) });
export type SignInInput = z.infer<typeof signInInput>;

export const overviewAnswer = z.object({
  baseUrl: z.string(),
  version: z.string(),
  workspaceId: z.string(),
  /** The data dir: shown to the default workspace's session (the operator) only. */
  dataDir: z.string().nullable(),
  counts: z.record(z.string(), z.number()),
});
export type OverviewAnswer = z.infer<typeof overviewAnswer>;

export const keyItem = z.object({
  apiKey: z.string(),
  name: z.string().nullable(),
  type: z.string(),
  /** Disabled by the workspace's admin: every operation and websocket upgrade with it is refused. */
  disabled: z.boolean(),
  disabledAt: z.number().nullable(),
});
export type KeyItem = z.infer<typeof keyItem>;
export const keysAnswer = z.object({ items: z.array(keyItem) });
/** Disables or enables one of the workspace's keys (an admin action: no operation of the interface does it). */
export const keyStateInput = z.object({ apiKey: text(), disabled: z.boolean() });
/** One key's usage: rows per table. */
export const keyAnswer = z.object({ counts: z.record(z.string(), z.number()) });

// ---------------------------------------------------------------------------------------------------------
// Search (the command palette)
// ---------------------------------------------------------------------------------------------------------

export const SEARCH_KINDS = ['organization', 'folder', 'document', 'user', 'key', 'webhook', 'group', 'notification', 'comment', 'message'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];
export const searchQuery = z.object({ q: searchText.pipe(z.string().min(1)), limit: z.coerce.number<number>().int().min(1).max(50).default(20) });
export const searchHit = z.object({
  kind: z.enum(SEARCH_KINDS),
  id: z.string(),
  label: z.string(),
  /** Where it lives: the key, and the organization for folders and documents. */
  apiKey: z.string(),
  organizationId: z.string().nullable(),
  /** The UI path of its page. */
  href: z.string(),
});
export type SearchHit = z.infer<typeof searchHit>;
export const searchAnswer = z.object({ items: z.array(searchHit) });

// ---------------------------------------------------------------------------------------------------------
// Data browser: organizations, folders, documents, users, memberships
// ---------------------------------------------------------------------------------------------------------

export const organizationItem = z.object({ id: z.string(), name: z.string().nullable(), disabled: z.boolean(), createdAt: z.number(), updatedAt: z.number() });
export type OrganizationItem = z.infer<typeof organizationItem>;

export const folderItem = z.object({ id: z.string(), name: z.string().nullable(), parentId: z.string().nullable(), accessType: z.string() });
export type FolderItem = z.infer<typeof folderItem>;

export const documentItem = z.object({
  id: z.string(),
  name: z.string().nullable(),
  organizationId: z.string(),
  folderId: z.string().nullable(),
  accessType: z.string(),
  disabled: z.boolean(),
  /** Last update of the document's record; null for a document known only as a Yjs room. */
  updatedAt: z.number().nullable(),
});
export type DocumentItem = z.infer<typeof documentItem>;
export const documentsQuery = organizationsQuery.extend({ organizationId: text(), folderId: z.string().max(256).optional() });

export const organizationAnswer = z.object({
  organization: organizationItem,
  folders: z.array(folderItem),
  /** Folders beyond the first 2,000 are not listed (the tree says so). */
  foldersTruncated: z.boolean(),
  groups: z.array(z.object({ id: z.string(), name: z.string().nullable(), members: z.number() })),
  counts: z.object({ documents: z.number(), members: z.number(), notifications: z.number(), activities: z.number() }),
  activity: z.array(z.object({ day: z.string(), count: z.number() })),
});
export type OrganizationAnswer = z.infer<typeof organizationAnswer>;

export const editorItem = z.object({
  editorId: z.string(),
  type: z.string(),
  contentKey: z.string(),
  updateCount: z.number(),
  snapshotBytes: z.number(),
  updatedAt: z.number(),
  lastUpdatedBy: z.string().nullable(),
  connections: z.number(),
});
export type EditorItem = z.infer<typeof editorItem>;

export const documentAnswer = z.object({
  document: documentItem,
  /** The folders from the organization's root down to the document's folder. */
  path: z.array(z.object({ id: z.string(), name: z.string().nullable() })),
  editors: z.array(editorItem),
  counts: z.object({ notifications: z.number(), activities: z.number(), comments: z.number(), recordings: z.number() }),
  activity: z.array(z.object({ day: z.string(), count: z.number() })),
});
export type DocumentAnswer = z.infer<typeof documentAnswer>;

export const userItem = z.object({ id: z.string(), name: z.string().nullable(), email: z.string().nullable() });
export type UserItem = z.infer<typeof userItem>;

export const membershipItem = z.object({
  userId: z.string(),
  organizationId: z.string(),
  level: z.string(),
  resourceId: z.string(),
  accessRole: z.string(),
  expiresAt: z.number().nullable(),
});
export type MembershipItem = z.infer<typeof membershipItem>;
export const membershipsQuery = listQuery.extend({ organizationId: z.string().max(256).optional(), userId: z.string().max(256).optional() });

export const userAnswer = z.object({ user: userItem, organizations: z.array(z.string()), notifications: z.number() });
export type UserAnswer = z.infer<typeof userAnswer>;

/**
 * What a user can open, as the access resolver decides it (the same decision the websocket and the operations take),
 * in each organization they are a member of: documents with the role and the reasons, and their groups. Each
 * organization's first 2,000 documents are checked (`truncated` says when there were more).
 */
export const userAccessAnswer = z.object({
  documents: z.array(
    z.object({
      organizationId: z.string(),
      documentId: z.string(),
      name: z.string().nullable(),
      accessRole: z.string().nullable(),
      accessType: z.string().nullable(),
      reasons: z.array(z.string()),
    }),
  ),
  groups: z.array(z.object({ organizationId: z.string(), id: z.string(), name: z.string().nullable() })),
  checked: z.number(),
  truncated: z.boolean(),
});
export type UserAccessAnswer = z.infer<typeof userAccessAnswer>;

/**
 * Where a user is connected now (on the instance that answers): each document with a websocket opened with the
 * user's token, how many, whether one may write, and the presence states they set (the app client's own JSON).
 */
export const userPresenceAnswer = z.object({
  documents: z.array(
    z.object({
      organizationId: z.string(),
      documentId: z.string(),
      editorId: z.string(),
      connections: z.number(),
      writable: z.boolean(),
      states: z.array(z.unknown()),
    }),
  ),
});
export type UserPresenceAnswer = z.infer<typeof userPresenceAnswer>;

export const accessAnswer = z.object({
  users: z.array(
    z.object({
      userId: z.string(),
      name: z.string().nullable(),
      access: z.boolean(),
      accessRole: z.string().nullable(),
      accessType: z.string().nullable().optional(),
      reasons: z.array(z.string()),
    }),
  ),
});
export type AccessAnswer = z.infer<typeof accessAnswer>;

// ---------------------------------------------------------------------------------------------------------
// Feed: notifications and activity of an organization, a document or a user (admin reads, every row)
// ---------------------------------------------------------------------------------------------------------

export const feedQuery = listQuery.extend({
  organizationId: text(),
  documentId: z.string().max(256).optional(),
  userId: z.string().max(256).optional(),
  featureType: z.string().max(64).optional(),
  actionType: z.string().max(128).optional(),
});
export type FeedQuery = z.input<typeof feedQuery>;

export const notificationItem = z.object({
  id: z.string(),
  organizationId: z.string(),
  documentId: z.string().nullable(),
  timestamp: z.number(),
  headline: z.string(),
  body: z.string().nullable(),
  actionUserId: z.string().nullable(),
  recipients: z.number(),
});
export type NotificationItem = z.infer<typeof notificationItem>;

export const activityItem = z.object({
  id: z.string(),
  organizationId: z.string(),
  documentId: z.string().nullable(),
  timestamp: z.number(),
  featureType: z.string(),
  actionType: z.string(),
  actionUserId: z.string().nullable(),
  message: z.string(),
});
export type ActivityItem = z.infer<typeof activityItem>;

// ---------------------------------------------------------------------------------------------------------
// Collaborative documents: list, history, a past state, restore, export
// ---------------------------------------------------------------------------------------------------------

export const crdtKey = z.object({ apiKey: text(), organizationId: text(), documentId: text(), editorId: text() });
export type CrdtKey = z.infer<typeof crdtKey>;

export const crdtItem = editorItem.extend({ apiKey: z.string(), organizationId: z.string(), documentId: z.string(), compactedAt: z.number().nullable() });
export type CrdtItem = z.infer<typeof crdtItem>;

export const historyEntry = z.object({
  seq: z.number(),
  at: z.number(),
  bytes: z.number(),
  /** Who sent it, when this server run stored it; else the Yjs client ids it carries. */
  by: z.string(),
  /** The first kept entry holds every change before it (merged at compaction). */
  merged: z.boolean(),
});
export type HistoryEntry = z.infer<typeof historyEntry>;
export const historyAnswer = z.object({
  entries: z.array(historyEntry),
  /** Entries kept per document (the `crdtHistoryUpdates` setting). */
  kept: z.number(),
  snapshotBytes: z.number(),
});
export type HistoryAnswer = z.infer<typeof historyAnswer>;

/** A document's content at one point: `seq` null is now. */
export const stateQuery = crdtKey.extend({ seq: z.coerce.number<number>().int().positive().optional() });
export const stateAnswer = z.object({
  seq: z.number().nullable(),
  type: z.string(),
  contentKey: z.string(),
  /** The content as /v2/crdt/get gives it (XML as its string). */
  content: z.unknown(),
  /** Every root type of the document as JSON. */
  roots: z.record(z.string(), z.unknown()),
});
export type StateAnswer = z.infer<typeof stateAnswer>;
export const restoreInput = crdtKey.extend({ seq: z.number().int().positive() });
export const restoreAnswer = z.object({ restored: z.literal(true), seq: z.number(), bytes: z.number() });

// ---------------------------------------------------------------------------------------------------------
// Dashboard
// ---------------------------------------------------------------------------------------------------------

export const metricsAnswer = z.object({
  at: z.number(),
  uptimeSeconds: z.number(),
  series: z.array(
    z.object({ t: z.number(), requests: z.number(), errors4xx: z.number(), errors5xx: z.number(), p50: z.number().nullable(), p99: z.number().nullable() }),
  ),
  lastMinute: z.object({ requests: z.number(), requestsPerSecond: z.number(), p50: z.number().nullable(), p99: z.number().nullable() }),
  byStatus: z.array(z.object({ status: z.number(), count: z.number() })),
  gauges: z.array(z.object({ name: z.string(), help: z.string(), value: z.number(), labels: z.record(z.string(), z.string()).optional() })),
});
export type MetricsAnswer = z.infer<typeof metricsAnswer>;

// ---------------------------------------------------------------------------------------------------------
// Webhooks, mail, data (reset, import, export)
// ---------------------------------------------------------------------------------------------------------

/** One delivery, and one of its attempts when `attemptId` is given (`at`: the attempt's start, for attempts kept without headers). */
export const deliveryQuery = z.object({
  apiKey: text(),
  messageId: text(),
  endpointId: text(),
  attemptId: z.string().trim().max(64).optional(),
  at: z.coerce.number<number>().int().positive().optional(),
});
export const deliveryAnswer = z.object({
  method: z.string(),
  url: z.string(),
  body: z.string(),
  status: z.string(),
  attempts: z.number(),
  /** The request headers, `name: value` (signature values included: they are per attempt, not secrets). */
  headers: z.array(z.string()),
  /**
   * `sent`: the attempt's headers as they went out; `recomputed`: worked out again for an attempt recorded before
   * Hearth kept them (the signature under the endpoint's current secret); `template`: no attempt was named.
   */
  headersFrom: z.enum(['sent', 'recomputed', 'template']),
  /** The receiver's answer's headers as received, `name: value`; null without an attempt, or when none came (or were not kept). */
  responseHeaders: z.array(z.string()).nullable(),
  /** Response headers left out by the bound (50 headers, 4 KiB). */
  responseHeadersOmitted: z.number(),
});
export type DeliveryAnswer = z.infer<typeof deliveryAnswer>;
export const webhookTestInput = z.object({ apiKey: text(), endpointId: text() });
export const webhookTestAnswer = z.object({ messageId: z.string(), eventType: z.string() });

export const mailItem = z.object({
  id: z.string(),
  kind: z.string(),
  to: z.string(),
  subject: z.string(),
  status: z.string(),
  lastError: z.string().nullable(),
  createdAt: z.number(),
  sentAt: z.number().nullable(),
});
export type MailItem = z.infer<typeof mailItem>;
/** The mailbox by time (newest first unless `dir` says otherwise), keyset-paged. */
export const mailQuery = z.object({ cursor: z.string().max(4096).optional(), limit, dir: z.enum(['asc', 'desc']).default('desc') });
export type MailQuery = z.input<typeof mailQuery>;
export const mailAnswer = z.object({ items: z.array(mailItem), nextCursor: z.string().nullable(), relay: z.object({ smtp: z.boolean(), from: z.string() }) });
export type MailAnswer = z.infer<typeof mailAnswer>;
export const mailDetail = z.object({
  id: z.string(),
  kind: z.string(),
  to: z.string(),
  subject: z.string(),
  status: z.string(),
  createdAt: z.number(),
  text: z.string(),
  html: z.string(),
});
export type MailDetail = z.infer<typeof mailDetail>;

export const resetInput = z.object({ apiKey: text(), confirm: z.literal('reset') });
export const resetAnswer = z.object({ removed: z.record(z.string(), z.number()), seeded: z.record(z.string(), z.number()) });
export type ResetAnswer = z.infer<typeof resetAnswer>;
export const importAnswer = z.object({ imported: z.record(z.string(), z.number()) });
export type ImportAnswer = z.infer<typeof importAnswer>;

export const workspaceSettings = z.object({
  workspaceId: z.string(),
  name: z.string().nullable(),
  ownerEmail: z.string(),
  plan: z.string(),
  selfServeProduction: z.boolean(),
  maxProductionKeys: z.number(),
  isDefault: z.boolean(),
});
export type WorkspaceSettings = z.infer<typeof workspaceSettings>;

// ---------------------------------------------------------------------------------------------------------
// Views of operation answers the UI reads (looseObject: the fields it shows; the operations give more). API tests
// parse the operations' real answers with these, so a change on either side fails a test.
// ---------------------------------------------------------------------------------------------------------

export const annotationView = z.looseObject({
  annotationId: z.string(),
  documentId: z.string().optional(),
  status: z.looseObject({ id: z.string().optional(), name: z.string().optional() }).nullish(),
  comments: z.array(
    z.looseObject({
      commentId: z.union([z.number(), z.string()]).optional(),
      commentText: z.string().nullish(),
      from: z.looseObject({ userId: z.string(), name: z.string().nullish() }).nullish(),
    }),
  ),
});
export type AnnotationView = z.infer<typeof annotationView>;

export const recordingView = z.looseObject({
  annotationId: z.string(),
  displayName: z.string().nullish(),
  recordedTime: z.looseObject({ display: z.string() }).nullish(),
  attachments: z.array(z.looseObject({ url: z.string(), mimeType: z.string(), name: z.string() })),
});
export type RecordingView = z.infer<typeof recordingView>;

export const endpointView = z.looseObject({
  id: z.string(),
  url: z.string(),
  description: z.string().nullish(),
  disabled: z.boolean(),
  disabledReason: z.string().nullish(),
  filterTypes: z.array(z.string()).nullish(),
  channels: z.array(z.string()).nullish(),
  rateLimit: z.number().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export type EndpointView = z.infer<typeof endpointView>;

export const attemptView = z.looseObject({
  id: z.string(),
  messageId: z.string(),
  endpointId: z.string().optional(),
  trigger: z.string(),
  status: z.string(),
  responseStatusCode: z.number().nullable(),
  response: z.string().nullish(),
  responseHeaders: z.record(z.string(), z.string()).nullish(),
  responseDurationMs: z.number(),
  timestamp: z.string(),
});
export type AttemptView = z.infer<typeof attemptView>;

/** One delivery of the delivery log (`GET /admin/api/webhooks/deliveries`, issue 44). */
export interface DeliveryLogItem {
  apiKeyId: string;
  eventId: string;
  /** The endpoint id, or the basic webhook URL a basic delivery goes to. */
  target: string;
  url: string;
  eventType: string | null;
  /** pending: not tried yet; retrying: the last attempt failed and another is due at nextAttemptAt; succeeded; failed: given up. */
  state: 'pending' | 'retrying' | 'succeeded' | 'failed' | string;
  attempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  createdAt: number;
}
export interface DeliveryLogAnswer {
  items: DeliveryLogItem[];
  /** The same keys' deliveries by state (the dashboard's tiles). */
  counts: { failed: number; retrying: number; pending: number };
}

export const apiKeyView = z.looseObject({ apiKey: z.string(), apiKeyName: z.string().nullish(), type: z.string() });
export type ApiKeyView = z.infer<typeof apiKeyView>;
