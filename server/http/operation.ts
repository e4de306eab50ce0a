import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { TenantScope, WorkspaceScope } from '../db/scope.ts';
import type { ApiKeyRow, WorkspaceRow } from '../services/types.ts';

export type AuthKind = 'workspace' | 'apiKey' | 'public';

/** What every handler gets: the app's services, the request id and who is calling. */
export interface RequestContext {
  app: AppContext;
  requestId: string;
  clientIp: string;
}
export interface WorkspaceRequestContext extends RequestContext {
  workspace: WorkspaceRow;
  /** What the workspace's credentials reach: the workspace and its keys. */
  workspaceScope: WorkspaceScope;
}
export interface ApiKeyRequestContext extends RequestContext {
  apiKey: ApiKeyRow;
  /** What the key's credentials reach: that key's data, and nothing else. */
  scope: TenantScope;
}

export type ContextFor<A extends AuthKind> = A extends 'workspace' ? WorkspaceRequestContext : A extends 'apiKey' ? ApiKeyRequestContext : RequestContext;

/** The classic result: `{ status: 'success', message, data?, pageToken? | nextPageToken? }`. */
export interface ClassicResult {
  message: string;
  data?: unknown;
  pageToken?: string | null;
  nextPageToken?: string | null;
}

export type Envelope = 'classic' | 'direct';

export interface Operation<A extends AuthKind = AuthKind, S extends z.ZodType = z.ZodType, E extends Envelope = Envelope> {
  path: string;
  /** Other paths that serve the same operation (the hosted service's v1/v2 twins). */
  aliases?: string[];
  auth: A;
  summary: string;
  input: S;
  /**
   * The hosted service's own words for a missing top-level field where reference.md gives them (`editorId` →
   * `Editor ID is required.`); any other problem is told the usual way, naming the field.
   */
  missingMessages?: Readonly<Record<string, string>>;
  /**
   * The answer's `data` (classic envelope) or `result` (direct) where it carries secrets: a schema whose secret
   * fields are marked (shared/schemas/answers.ts), what the request monitor redacts the answer by. Not checked
   * against the answer; operations whose answers hold no secret leave it out.
   */
  output?: z.ZodType;
  /** `classic` wraps the handler's result as `{status:'success', ...}`; `direct` returns it as `result` itself. */
  envelope: E;
  /**
   * `read`: the answer depends only on the stored data, the caller's credentials and the body (no clock, no
   * side effects), so it may be served again from the response cache while the database is unchanged.
   * `constant`: the answer to valid input never changes while the server runs (ping's): the handler's first
   * answer is serialized once and sent again to every valid call, after the body has been read and validated.
   */
  cache?: 'read' | 'constant';
  // Method syntax on purpose: it lets the registry hold operations of every schema as `AnyOperation`.
  // A handler with nothing to wait for may answer synchronously: the call then skips a promise turn.
  handler(input: z.output<S>, ctx: ContextFor<A>): MaybePromise<E extends 'classic' ? ClassicResult : unknown>;
}

type MaybePromise<T> = T | Promise<T>;

/** An operation is a value (DESIGN §3.1): the registry routes it, documents it and checks it has tests. */
export function defineOperation<A extends AuthKind, S extends z.ZodType, E extends Envelope = 'classic'>(
  op: Omit<Operation<A, S, E>, 'envelope'> & { envelope?: E },
): Operation<A, S, E> {
  return { ...op, envelope: (op.envelope ?? 'classic') as E };
}

/** The registry type: operations of every auth kind and schema. */
export type AnyOperation = Operation<AuthKind, z.ZodType, Envelope>;
