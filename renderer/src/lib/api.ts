// The one typed client of the admin UI. Every answer's type comes from shared/ (the admin endpoints' zod schemas
// in shared/admin.ts, the operations' input schemas in shared/schemas): `import type` only, so no zod is bundled.
import type {
  AccessAnswer,
  ActivityItem,
  CallDetail,
  CallSummary,
  CrdtItem,
  CrdtKey,
  DeliveryAnswer,
  DeliveryLogAnswer,
  DocumentAnswer,
  DocumentItem,
  FeedQuery,
  HistoryAnswer,
  ImportAnswer,
  KeyItem,
  ListQuery,
  MailQuery,
  SortedQuery,
  MailAnswer,
  MailDetail,
  MembershipItem,
  MetricsAnswer,
  NotificationItem,
  OrganizationAnswer,
  OrganizationItem,
  OverviewAnswer,
  Page,
  ResetAnswer,
  SearchHit,
  SessionAnswer,
  SignInInput,
  StateAnswer,
  UserAccessAnswer,
  UserPresenceAnswer,
  UserAnswer,
  UserItem,
  WorkspaceSettings,
} from '../../../shared/admin.ts';
import type { OperationInputs, OperationPath } from './operations.ts';

/** A permission provider decision this instance made (server/services/permission-provider.ts, RecentDecision). */
export interface ProviderDecisionRow {
  at: number;
  userId: string;
  type: string;
  resourceId: string;
  organizationId: string;
  access: boolean;
  accessRole: string | null;
  reason: string;
}

export const UI_HEADER = 'x-hearth-ui';

/** A refused admin call: the server's error envelope, with its HTTP status. */
export class AdminError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

const withQuery = (path: string, query?: Query) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
};

/** Listeners told when the session ends (a 401 from any call): the app then shows the sign-in page. */
const signedOut = new Set<() => void>();
export const onSignedOut = (listener: () => void) => {
  signedOut.add(listener);
  return () => signedOut.delete(listener);
};

async function send<T>(method: 'GET' | 'POST' | 'DELETE', path: string, options: { query?: Query; body?: unknown; quietAuth?: boolean } = {}): Promise<T> {
  const res = await fetch(`/admin/api${withQuery(path, options.query)}`, {
    method,
    headers: { [UI_HEADER]: '1', ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'same-origin',
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!res.ok) {
    const error = (parsed as { error?: { status?: string; message?: string } } | null)?.error;
    if (res.status === 401 && !options.quietAuth) for (const listener of signedOut) listener();
    throw new AdminError(res.status, error?.status ?? 'UNKNOWN', error?.message ?? `HTTP ${res.status}`);
  }
  return parsed as T;
}

/** The answer of an operation called through the admin API: its HTTP status and its envelope, as sent. */
export interface OperationAnswer<D = unknown> {
  status: number;
  requestId: string;
  body: {
    result?: { status?: string; message?: string; data?: D; nextPageToken?: string | null; pageToken?: string | null } & Record<string, unknown>;
    error?: { status: string; message: string };
  };
}

export const api = {
  session: () => send<SessionAnswer>('GET', '/session', { quietAuth: true }),
  signIn: (input: SignInInput) => send<SessionAnswer>('POST', '/session', { body: input, quietAuth: true }),
  signOut: () => send<SessionAnswer>('DELETE', '/session', { quietAuth: true }),
  overview: () => send<OverviewAnswer>('GET', '/overview'),
  keys: () => send<{ items: KeyItem[] }>('GET', '/keys'),
  key: (apiKey: string) => send<{ counts: Record<string, number>; providerDecisions: ProviderDecisionRow[] }>('GET', '/key', { query: { apiKey } }),
  /** Disables or enables one of the workspace's keys (every operation and websocket refuses a disabled key). */
  setKeyDisabled: (apiKey: string, disabled: boolean) => send<KeyItem>('POST', '/keys/state', { body: { apiKey, disabled } }),
  metrics: (seconds = 120) => send<MetricsAnswer>('GET', '/metrics', { query: { seconds } }),
  search: (q: string) => send<{ items: SearchHit[] }>('GET', '/search', { query: { q } }),

  organizations: (query: SortedQuery) => send<Page<OrganizationItem>>('GET', '/organizations', { query }),
  organization: (apiKey: string, organizationId: string) => send<OrganizationAnswer>('GET', '/organization', { query: { apiKey, organizationId } }),
  documents: (query: SortedQuery & { organizationId: string; folderId?: string }) => send<Page<DocumentItem>>('GET', '/documents', { query }),
  document: (apiKey: string, organizationId: string, documentId: string) =>
    send<DocumentAnswer>('GET', '/document', { query: { apiKey, organizationId, documentId } }),
  users: (query: ListQuery & { sort?: 'id' | 'name' }) => send<Page<UserItem>>('GET', '/users', { query }),
  user: (apiKey: string, userId: string) => send<UserAnswer>('GET', '/user', { query: { apiKey, userId } }),
  /** What the user can open (the access resolver's decision, with the reasons) and their groups, in each of their organizations. */
  userAccess: (apiKey: string, userId: string) => send<UserAccessAnswer>('GET', '/user/access', { query: { apiKey, userId } }),
  /** Where the user is connected now (websockets opened with their token, on this instance) and their presence. */
  userPresence: (apiKey: string, userId: string) => send<UserPresenceAnswer>('GET', '/user/presence', { query: { apiKey, userId } }),
  memberships: (query: ListQuery & { organizationId?: string; userId?: string }) => send<Page<MembershipItem>>('GET', '/memberships', { query }),
  /** An organization's groups with their members' ids (up to 1,000 of each), for editing the groups. */
  organizationTree: (apiKey: string, organizationId: string) =>
    send<{ groups: Array<{ id: string; name: string | null; userIds: string[] }> }>('GET', '/browse/organization', { query: { apiKey, organizationId } }),
  access: (query: { apiKey: string; organizationId: string; documentId: string; userId?: string }) => send<AccessAnswer>('GET', '/browse/access', { query }),
  notifications: (query: FeedQuery) => send<Page<NotificationItem>>('GET', '/notifications', { query: query as Query }),
  activity: (query: FeedQuery) => send<Page<ActivityItem>>('GET', '/activity', { query: query as Query }),

  crdtList: (query: ListQuery & { organizationId?: string }): Promise<Page<CrdtItem>> => send<Page<CrdtItem>>('GET', '/crdt/page', { query }),
  crdtTicket: (key: CrdtKey) => send<{ ticket: string }>('POST', '/crdt/ticket', { body: key }),
  crdtHistory: (key: CrdtKey) => send<HistoryAnswer>('GET', '/crdt/history', { query: key }),
  crdtState: (key: CrdtKey, seq?: number) => send<StateAnswer>('GET', '/crdt/state', { query: { ...key, seq } }),
  crdtRestore: (key: CrdtKey, seq: number) => send<{ restored: true; seq: number; bytes: number }>('POST', '/crdt/restore', { body: { ...key, seq } }),
  /** A URL the browser downloads the state from (JSON or the Yjs binary update). */
  crdtExportUrl: (key: CrdtKey, format: 'json' | 'yjs') => `/admin/api${withQuery('/crdt/export', { ...key, format })}`,

  requests: () => send<{ items: CallSummary[] }>('GET', '/requests'),
  /** Per operation, its fields required only in some cases, with the rule. */
  operationConditions: () => send<Record<string, Array<{ field: string; when: string }>>>('GET', '/operations/conditions'),
  request: (id: number) => send<CallDetail>('GET', `/requests/${id}`),

  /** A delivery's body, and one attempt's request and response headers (`at`: its start, for attempts kept without them). */
  delivery: (apiKey: string, messageId: string, endpointId: string, attempt?: { id: string; at: number }) =>
    send<DeliveryAnswer>('GET', '/webhooks/delivery', { query: { apiKey, messageId, endpointId, attemptId: attempt?.id, at: attempt?.at } }),
  /** The delivery log: one key's (and endpoint's) newest deliveries, or the whole workspace's; with the counts by state. */
  deliveries: (query: { apiKey?: string; endpointId?: string; messageId?: string; status?: string; limit?: number } = {}) =>
    send<DeliveryLogAnswer>('GET', '/webhooks/deliveries', { query }),
  webhookTest: (apiKey: string, endpointId: string) =>
    send<{ messageId: string; eventType: string }>('POST', '/webhooks/test', { body: { apiKey, endpointId } }),

  mail: (query: MailQuery = {}) => send<MailAnswer>('GET', '/mail', { query }),
  mailOne: (id: string) => send<MailDetail>('GET', `/mail/${encodeURIComponent(id)}`),

  workspaces: () => send<{ items: WorkspaceSettings[] }>('GET', '/workspaces'),
  saveWorkspaceSettings: (input: { workspaceId: string; plan?: string; selfServeProduction?: boolean; maxProductionKeys?: number }) =>
    send<WorkspaceSettings>('POST', '/workspaces/settings', { body: input }),

  reset: (apiKey: string) => send<ResetAnswer>('POST', '/data/reset', { body: { apiKey, confirm: 'reset' } }),
  exportUrl: (apiKey: string) => `/admin/api${withQuery('/data/export', { apiKey })}`,
  importData: (apiKey: string, archive: unknown) => send<ImportAnswer>('POST', '/data/import', { body: { apiKey, archive } }),

  /**
   * Calls an operation as the signed-in workspace (the server adds the credentials). The input is typed by the
   * operation's schema in shared/schemas; the answer is the operation's envelope, its status included.
   */
  call: <P extends OperationPath>(path: P, apiKey: string, data: OperationInputs[P]) =>
    send<OperationAnswer>('POST', '/call', { body: { path, apiKey, data } }),
  /** Any operation by path (the API explorer): the data is whatever the form built. */
  callAny: (path: string, apiKey: string, data: unknown) => send<OperationAnswer>('POST', '/call', { body: { path, apiKey, data } }),
};

/** The organizations' and documents' sort for a table's sort key (anything else: by id). */
export const entitySort = (sort: string): 'id' | 'name' | 'updated' => (sort === 'name' || sort === 'updated' ? sort : 'id');

/** The data of an operation's answer, or an error with its message. */
export function dataOf<D>(answer: OperationAnswer): D {
  if (answer.status >= 400 || answer.body.error)
    throw new AdminError(answer.status, answer.body.error?.status ?? 'UNKNOWN', answer.body.error?.message ?? `HTTP ${answer.status}`);
  return answer.body.result?.data as D;
}
