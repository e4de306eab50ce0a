import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { type RESOURCE_TYPES, signedPermission, type SignedPermission } from '../../shared/schemas/access.ts';
import type { AccessRole } from '../../shared/schemas/common.ts';
import type { Config } from '../config.ts';
import type { Storage } from '../db/repos/index.ts';
import type { ApiKeyRow } from '../db/repos/keys.ts';
import type { TenantScope } from '../db/scope.ts';
import type { Logger } from '../log.ts';
import { currentTime } from '../clock.ts';
import { outboundPost } from '../security/outbound.ts';
import { permissionsSigned } from '../security/permission-signature.ts';
import type { Secrets } from '../security/secrets.ts';
import { documentAccess } from './access.ts';
import { getSecret, PERMISSION_PROVIDER_SECRET, permissionProviderOf } from './apikeys.ts';

/**
 * The permission provider mode (`/v2/workspace/permissionproviderconfig/update` with `usePermissionProvider: true`):
 * the app's own service decides who may open what, and Hearth asks it instead of its memberships.
 *
 * The exchange (Hearth's own format, README "Permission provider"): one POST to `permissionProviderUrl` with
 * `Authorization: Bearer <authToken>` (when a token is configured) and
 * `{"data":{"requests":[{userId, resourceId, type, organizationId}]}}`; the provider answers 2xx with
 * `{"data":{"permissions":[...], "signature":"..."}}` (or the same object without `data`), the permissions in
 * /v2/auth/generate_signature's shape and the signature it gave for exactly them.
 *
 * Fails closed: a provider that is unreachable, slower than `permissionProviderTimeoutMs`, answers non-2xx, no
 * JSON, an unsigned or changed answer, or no decision for a question, denies that access (a warning in the log and
 * an entry in the admin UI's request monitor say why); nothing of such an answer is kept. Decisions are kept per
 * instance until their `expiresAt` (milliseconds), else `permissionProviderCacheMs`; an update of the key's provider
 * settings forgets the key's. The call goes through the outbound policy (OUTBOUND_PRIVATE) and never blocks: it is
 * one asynchronous request, and questions asked while it runs wait for it instead of asking again.
 */

export type ResourceType = (typeof RESOURCE_TYPES)[number];

export interface AccessQuestion {
  userId: string;
  type: ResourceType;
  resourceId: string;
  organizationId: string;
}

export interface ProviderDecision {
  access: boolean;
  accessRole: AccessRole | null;
  reasons: string[];
}

const MAX_KEPT = 10_000;
const ANSWER_LIMIT = 1024 * 1024;

interface Kept {
  decision: ProviderDecision;
  /** Hearth's time when it was kept: a clock set back before it (testing mode) finds it not kept. */
  at: number;
  until: number;
}

/** A decision the provider's answer (or its failure) made, as the admin UI's key page lists it. */
export interface RecentDecision extends AccessQuestion {
  apiKeyId: string;
  at: number;
  access: boolean;
  accessRole: AccessRole | null;
  reason: string;
}

/**
 * The newest decisions this instance made (kept ones reused are not new decisions), per key: one key's traffic never
 * pushes another key's out. The keys with the oldest decisions are forgotten past RECENT_KEYS.
 */
const RECENT_PER_KEY = 100;
const RECENT_KEYS = 1_000;

interface State {
  kept: Map<string, Kept>;
  asking: Map<string, Promise<ProviderDecision>>;
  /** By API key, oldest first; the map in the order of each key's newest decision. */
  recent: Map<string, Array<Omit<RecentDecision, 'apiKeyId'>>>;
}

const states = new WeakMap<object, State>();
const stateOf = (app: object): State => {
  let state = states.get(app);
  if (!state) states.set(app, (state = { kept: new Map(), asking: new Map(), recent: new Map() }));
  return state;
};

/** Adds a decision to the key's recent ones (exported for its unit test). */
export function rememberProviderDecision(app: object, apiKeyId: string, question: AccessQuestion, decision: ProviderDecision) {
  const { recent } = stateOf(app);
  const { userId, type, resourceId, organizationId } = question;
  const { access, accessRole, reasons } = decision;
  const ofKey = recent.get(apiKeyId) ?? [];
  recent.delete(apiKeyId);
  recent.set(apiKeyId, ofKey);
  ofKey.push({ at: currentTime(), userId, type, resourceId, organizationId, access, accessRole, reason: reasons.join('; ') });
  if (ofKey.length > RECENT_PER_KEY) ofKey.splice(0, ofKey.length - RECENT_PER_KEY);
  if (recent.size > RECENT_KEYS) recent.delete(recent.keys().next().value as string);
}

/** The key's newest provider decisions on this instance, newest first (the admin UI's key page). */
export function recentProviderDecisions(app: object, apiKeyId: string, limit = 50): Omit<RecentDecision, 'apiKeyId'>[] {
  return (stateOf(app).recent.get(apiKeyId) ?? []).slice(-limit).reverse();
}

const keyOf = (apiKeyId: string, q: AccessQuestion) => [apiKeyId, q.organizationId, q.type, q.resourceId, q.userId].join('\u0000');

/** Forgets the key's kept decisions (its provider settings changed). */
export function forgetProviderDecisions(app: object, apiKeyId: string) {
  const { kept } = stateOf(app);
  for (const key of kept.keys()) if (key.startsWith(`${apiKeyId}\u0000`)) kept.delete(key);
}

const answerSchema = z.object({ permissions: z.array(signedPermission).max(10_000), signature: z.string() });

/** A provider call as the admin UI's request monitor keeps it (the app's `monitor`, admin/monitor.ts). */
interface ProviderCall {
  workspaceId: string;
  at: number;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  caller: string;
  requestId: string;
}
/** What asking a provider needs of the app (the context's own fields: no import of the context, which imports services). */
type Deps = { config: Config; storage: Storage; secrets: Secrets; log: Logger; monitor: { record(call: ProviderCall): void } };

const denied = (reason: string): ProviderDecision => ({ access: false, accessRole: null, reasons: [`permission provider: ${reason}`] });

/**
 * The provider's decisions on `questions`, in their order, or null when the key is not in the provider mode (Hearth's
 * own rules then decide).
 */
export async function askPermissionProvider(
  app: Deps,
  scope: TenantScope,
  key: Pick<ApiKeyRow, 'settings'>,
  questions: readonly AccessQuestion[],
): Promise<ProviderDecision[] | null> {
  const { usePermissionProvider, permissionProviderUrl } = permissionProviderOf(key.settings);
  if (!usePermissionProvider) return null;
  if (!permissionProviderUrl) return questions.map(() => denied('the mode is on but no permissionProviderUrl is configured'));
  const state = stateOf(app);
  const now = currentTime(); // Hearth's clock (testing mode can move it): decisions expire as permissions do
  // a kept decision, a question being asked already, or (a string) the id of one this call asks
  const answers: Array<Promise<ProviderDecision> | ProviderDecision | string> = [];
  const toAsk = new Map<string, AccessQuestion>();
  for (const question of questions) {
    const id = keyOf(scope.apiKeyId, question);
    const kept = state.kept.get(id);
    if (kept && kept.until > now && kept.at <= now) answers.push(kept.decision);
    else {
      if (kept) state.kept.delete(id);
      const pending = state.asking.get(id);
      if (pending) answers.push(pending);
      else {
        toAsk.set(id, question);
        answers.push(id);
      }
    }
  }
  if (toAsk.size > 0) {
    const asked = ask(app, scope, permissionProviderUrl, [...toAsk.values()]);
    [...toAsk.keys()].forEach((id, i) => {
      const one = asked.then((decisions) => decisions[i] as ProviderDecision);
      state.asking.set(id, one);
      void one.finally(() => state.asking.delete(id));
    });
  }
  return Promise.all(answers.map((answer) => (typeof answer === 'string' ? (state.asking.get(answer) as Promise<ProviderDecision>) : answer)));
}

/** One request to the provider for `questions`; never rejects (a failure denies every question). */
async function ask(app: Deps, scope: TenantScope, url: string, questions: AccessQuestion[]): Promise<ProviderDecision[]> {
  const started = Date.now();
  const requestId = randomUUID();
  let status = 0;
  const fail = (reason: string) => {
    app.log.warn('permission provider: access denied', { apiKeyId: scope.apiKeyId, url, requestId, reason, questions: questions.length });
    return questions.map((q) => {
      const decision = denied(reason);
      rememberProviderDecision(app, scope.apiKeyId, q, decision);
      return decision;
    });
  };
  try {
    const token = await getSecret(app, scope, PERMISSION_PROVIDER_SECRET);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'Hearth permission provider client',
    };
    if (token) headers.authorization = `Bearer ${token}`;
    const body = JSON.stringify({ data: { requests: questions } });
    let answer: Awaited<ReturnType<typeof outboundPost>>;
    try {
      answer = await outboundPost(url, {
        headers,
        body,
        signal: AbortSignal.timeout(app.config.permissionProviderTimeoutMs),
        limit: ANSWER_LIMIT,
        policy: app.config.outboundPrivate,
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      return fail(
        timedOut ? `no answer within ${app.config.permissionProviderTimeoutMs} ms` : `unreachable (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    status = answer.status;
    if (status < 200 || status > 299) return fail(`answered HTTP ${status}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      return fail('the answer is not JSON');
    }
    const inner = parsed && typeof parsed === 'object' && 'data' in parsed ? (parsed as { data: unknown }).data : parsed;
    const read = answerSchema.safeParse(inner);
    if (!read.success) {
      const issue = read.error.issues[0];
      return fail(`the answer is not {permissions, signature}: ${issue?.path.join('.') || 'answer'}: ${issue?.message}`);
    }
    if (!permissionsSigned(app.secrets, scope.apiKeyId, read.data.permissions, read.data.signature)) {
      return fail('the answer is unsigned or its signature does not match its permissions (/v2/auth/generate_signature)');
    }
    return decide(app, scope, questions, read.data.permissions);
  } catch (error) {
    // anything else (the token unreadable under this master key): still a denial, never an error of the caller
    return fail(`could not be asked (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    app.monitor.record({
      workspaceId: scope.workspaceId,
      at: started,
      method: 'POST',
      path: url,
      status,
      durationMs: Date.now() - started,
      caller: 'Hearth (permission provider)',
      requestId,
    });
  }
}

function decide(app: Deps, scope: TenantScope, questions: AccessQuestion[], permissions: SignedPermission[]): ProviderDecision[] {
  const now = currentTime();
  const { kept } = stateOf(app);
  return questions.map((q) => {
    const decision = decideOne(app, scope, q, permissions, now, kept);
    rememberProviderDecision(app, scope.apiKeyId, q, decision);
    return decision;
  });
}

function decideOne(app: Deps, scope: TenantScope, q: AccessQuestion, permissions: SignedPermission[], now: number, kept: Map<string, Kept>): ProviderDecision {
  const found = permissions.find((p) => p.userId === q.userId && p.resourceId === q.resourceId && p.type === q.type);
  if (!found) {
    app.log.warn('permission provider: access denied', { apiKeyId: scope.apiKeyId, reason: 'no decision in the answer', ...q });
    return denied(`the answer has no decision for ${q.type} "${q.resourceId}" and user "${q.userId}"`);
  }
  if (found.expiresAt !== undefined && found.expiresAt <= now) return denied(`its decision expired at ${new Date(found.expiresAt).toISOString()}`);
  const decision: ProviderDecision = found.hasAccess
    ? { access: true, accessRole: q.type === 'document' ? (found.accessRole ?? 'editor') : 'editor', reasons: ['granted by the permission provider'] }
    : { access: false, accessRole: null, reasons: ['denied by the permission provider'] };
  const until = found.expiresAt ?? now + app.config.permissionProviderCacheMs;
  const id = keyOf(scope.apiKeyId, q);
  kept.delete(id);
  kept.set(id, { decision, at: now, until });
  if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
  return decision;
}

/**
 * Whether the user may open the document, and as what: the provider's decision in the provider mode, else Hearth's
 * own rules (services/access.ts).
 */
export async function userDocumentAccess(
  app: Deps,
  scope: TenantScope,
  key: Pick<ApiKeyRow, 'settings'>,
  organizationId: string,
  documentId: string,
  userId: string,
): Promise<ProviderDecision> {
  const asked = await askPermissionProvider(app, scope, key, [{ userId, type: 'document', resourceId: documentId, organizationId }]);
  if (asked) return asked[0] as ProviderDecision;
  return documentAccess(app, scope, organizationId, documentId, userId);
}

/**
 * In the permission provider mode, the provider's answer on whether each user may open the document (one request,
 * asked before any unit of work, so that no transaction waits on the network); null when the key is not in that mode.
 */
export async function providerDocumentAccess(
  app: Deps,
  scope: TenantScope,
  key: Pick<ApiKeyRow, 'settings'>,
  organizationId: string,
  documentId: string,
  userIds: readonly string[],
): Promise<Map<string, boolean> | null> {
  const unique = [...new Set(userIds)];
  const decisions = await askPermissionProvider(
    app,
    scope,
    key,
    unique.map((userId) => ({ userId, type: 'document', resourceId: documentId, organizationId })),
  );
  return decisions && new Map(unique.map((userId, i) => [userId, decisions[i]?.access === true]));
}
