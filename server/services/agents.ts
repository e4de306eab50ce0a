import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { agentCreateInput, agentListInput, agentUpdateInput, executionListInput, executionRunInput } from '../../shared/schemas/ai.ts';
import { annotationsAddInput } from '../../shared/schemas/comments.ts';
import { ProviderError } from '../ai/providers.ts';
import { crdtItem } from '../crdt/events.ts';
import type { PageTokens } from '../db/pagination.ts';
import { paginate } from '../db/pagination.ts';
import type { AgentRow, ExecutionRow } from '../db/repos/agents.ts';
import type { Storage } from '../db/repos/index.ts';
import type { TenantScope } from '../db/scope.ts';
import { alreadyExists, invalid, notFound } from '../errors.ts';
import { completeFor, type CompletionDeps } from './ai.ts';
import { addAnnotations } from './comment-annotations.ts';
import { recordJudgment, stripTags } from './memory.ts';
import { readPageToken } from './paging.ts';
import type { ApiKeyRow } from './types.ts';
import type { MailLimitDeps } from '../mail/limits.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Logger } from '../log.ts';
import type { CrdtStore } from '../crdt/store.ts';
import { defaultConfig } from '../config.ts';
import { heldBeforeAtStart, LeaseLostError, type LeaseDeps } from '../db/repos/lease.ts';

type Deps = { storage: Storage };

// ---------------------------------------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------------------------------------

export function describeAgent(r: AgentRow) {
  return {
    agentId: r.id,
    name: r.name,
    description: r.description,
    version: r.version,
    model: r.model,
    instructions: r.instructions,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export async function requireAgent(deps: Deps, scope: TenantScope, agentId: string) {
  const row = await deps.storage.agents.find(scope, agentId);
  if (!row) throw notFound(`Agent not found: ${agentId}.`);
  return row;
}

export async function createAgent(deps: Deps, scope: TenantScope, input: z.output<typeof agentCreateInput>) {
  const now = Date.now();
  const row: Omit<AgentRow, 'apiKeyId'> = {
    id: input.agentId ?? `agent_${randomBytes(8).toString('hex')}`,
    name: input.name,
    description: input.description ?? null,
    version: 1,
    model: input.model,
    instructions: input.instructions,
    createdAt: now,
    updatedAt: now,
  };
  if (!(await deps.storage.agents.insert(scope, row))) throw alreadyExists(`Agent already exists: ${row.id}.`);
  return describeAgent({ ...row, apiKeyId: scope.apiKeyId });
}

export async function updateAgent(deps: Deps, scope: TenantScope, input: z.output<typeof agentUpdateInput>) {
  const { agentId, ...changes } = input;
  if (Object.values(changes).every((v) => v === undefined)) throw invalid('At least one of name, description, model or instructions must be provided.');
  // Row level on PostgreSQL (docs/storage.md, "Invariants"): the agent's key lock first, then the read, so that of two
  // updates at once the second merges into what the first wrote and its version follows the first's
  return deps.storage.transaction(
    async () => {
      await deps.storage.agents.lock(scope, agentId);
      const row = await requireAgent(deps, scope, agentId);
      const next: AgentRow = {
        ...row,
        name: changes.name ?? row.name,
        description: changes.description === undefined ? row.description : changes.description,
        model: changes.model ?? row.model,
        instructions: changes.instructions ?? row.instructions,
        version: row.version + 1,
        updatedAt: Date.now(),
      };
      await deps.storage.agents.update(scope, agentId, next);
      return describeAgent(next);
    },
    { rowLevel: true },
  );
}

/** Deletes the agent; its executions stay (they carry the agent's name and version). */
export async function deleteAgent(deps: Deps, scope: TenantScope, agentId: string) {
  if (!(await deps.storage.agents.delete(scope, agentId))) throw notFound(`Agent not found: ${agentId}.`);
  return { deleted: true, agentId };
}

export async function listAgents(deps: Deps & { pageTokens: PageTokens }, scope: TenantScope, input: z.output<typeof agentListInput>) {
  const query = { op: 'agents', apiKeyId: scope.apiKeyId };
  const cursor = readPageToken(deps, query, input.cursor, ['number', 'string'], 'cursor');
  const rows = await deps.storage.agents.page(scope, cursor, input.pageSize + 1);
  const page = paginate(rows, input.pageSize, (r) => [r.createdAt, r.id], deps.pageTokens, query);
  return { items: page.items.map(describeAgent), nextCursor: page.pageToken };
}

// ---------------------------------------------------------------------------------------------------------
// Executions
// ---------------------------------------------------------------------------------------------------------

export function describeExecution(r: ExecutionRow) {
  const findings = r.findings ?? [];
  const count = (severity: string) => findings.filter((f) => f.severity === severity).length;
  return {
    id: r.id,
    agentId: r.agentId,
    agentName: r.agentName,
    agentVersion: r.agentVersion,
    status: r.status,
    message: r.message,
    startedAt: r.startedAt,
    completedAt: r.completedAt,
    durationMs: r.durationMs,
    trigger: r.trigger,
    metadata: { organizationId: r.organizationId, documentId: r.documentId, editorId: r.editorId },
    ranBy: r.ranBy,
    llmModel: r.llmModel,
    tokenUsage: r.tokenUsage,
    resultsSummary: {
      totalFindings: findings.length,
      totalAnnotationsCreated: findings.filter((f) => f.annotationId !== null).length,
      severityCounts: { high: count('high'), medium: count('medium'), low: count('low') },
    },
    findings,
  };
}

/** What the model is asked to answer, after the agent's instructions. */
export const OUTPUT_CONTRACT = `Review the text you are given by the instructions above. Answer with one JSON object and nothing else:
{"decision": "pass" | "fail", "summary": "one or two sentences for a human", "findings": [{"quote": "the exact words of the text the finding is about, or null", "comment": "what is wrong and how to fix it", "severity": "high" | "medium" | "low"}]}
"pass" means the text meets the instructions; "fail" means it does not. Findings may be empty.`;

const modelAnswer = z.object({
  decision: z.enum(['pass', 'fail']),
  summary: z.string().max(5000).default(''),
  findings: z
    .array(
      z.object({
        quote: z.string().max(5000).nullable().default(null),
        comment: z.string().min(1).max(5000),
        severity: z.enum(['high', 'medium', 'low']).default('medium'),
      }),
    )
    .max(100)
    .default([]),
});

/** The model's JSON answer (also when wrapped in a Markdown code fence or surrounded by prose), or null. */
export function parseModelAnswer(text: string): z.output<typeof modelAnswer> | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const parsed = modelAnswer.safeParse(JSON.parse(text.slice(start, end + 1)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Plain text of a CRDT item's data (text as is, XML without tags, maps and arrays as JSON). */
function plainText(item: { type: string; data: unknown }): string {
  if (typeof item.data === 'string') return item.type === 'xml' ? stripTags(item.data) : item.data;
  return JSON.stringify(item.data);
}

/** The text an execution reviews: the given text, or the document's editors' content (empty when none). */
async function inputText(deps: Deps & { crdt: CrdtStore }, scope: TenantScope, input: z.output<typeof executionRunInput>): Promise<string> {
  if (input.text !== undefined) return input.text;
  const organizationId = input.organizationId as string;
  const documentId = input.documentId as string;
  const texts: string[] = [];
  for (const editorId of await deps.storage.crdt.editors(scope, organizationId, documentId, input.editorId === undefined ? undefined : [input.editorId])) {
    const item = await crdtItem(deps.crdt, scope, { organizationId, documentId, editorId });
    const text = item ? plainText(item).trim() : '';
    if (text) texts.push(text);
  }
  return texts.join('\n\n');
}

/** What an execution uses: storage, the key's AI provider (settings and secret), the mailer (findings become annotations) and the log. */
export type RunnerDeps = CompletionDeps & { storage: Storage; mail: Mailer; log: Logger; limiter: MailLimitDeps['limiter'] };

export interface AgentRunner {
  /** Starts an execution in the background (after the caller's answer). */
  start(deps: RunnerDeps, scope: TenantScope, apiKey: ApiKeyRow, execution: ExecutionRow, agent: AgentRow, text: string): void;
  /**
   * How long an instance holds an execution it runs (its lease, config.leases.agentMs), renewed every third of it
   * while the model is awaited: past it, the instance is gone (a crash, a kill), and the execution ends as failed
   * rather than running forever.
   */
  readonly leaseMs: number;
  /**
   * At the server's start: takes the lease length of the app's config, and marks executions a crash left `running`
   * as `error`: every one at the start of the database's only instance, in a cluster those whose lease ran out.
   */
  recover(deps: Deps & LeaseDeps): Promise<void>;
  /** In a cluster, every so often (lease-watch.ts): ends as `error` the executions whose lease ran out. */
  takeBackExpired(deps: Deps): Promise<void>;
  /** Aborts running executions, which end as `error`, and waits for them to be recorded. */
  close(): Promise<void>;
}

/** What an execution whose instance is gone ends with. */
const ABANDONED = 'The server stopped while this execution was running.';

export function createAgentRunner(): AgentRunner {
  const inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let leaseMs = defaultConfig().leases.agentMs;
  return {
    get leaseMs() {
      return leaseMs;
    },
    start(deps, scope, apiKey, execution, agent, text) {
      const controller = new AbortController();
      // the lease, renewed while the execution runs (a renewal that fails is retried at the next beat)
      const beat = setInterval(() => {
        deps.storage.agents
          .renewLease(scope, execution.id, Date.now() + leaseMs)
          .catch((error: unknown) => deps.log.warn('agent execution lease not renewed', { executionId: execution.id, error: String(error) }));
      }, leaseMs / 3);
      beat.unref();
      const done = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => execute(deps, scope, apiKey, execution, agent, text, { signal: controller.signal, leaseMs }))
        .catch(async (error) => {
          if (error instanceof LeaseLostError) {
            deps.log.warn('agent execution outcome dropped', { executionId: execution.id, error: error.message });
            return;
          }
          // anything unexpected (writing the findings failed, say) still ends the execution, never leaves it running
          const message = error instanceof Error ? error.message : String(error);
          deps.log.error('agent execution failed', { executionId: execution.id, error: message });
          try {
            await finish(deps, scope, execution, { status: 'error', message: `The execution failed: ${message}` });
          } catch (again) {
            deps.log.error('agent execution could not be recorded', { executionId: execution.id, error: String(again) });
          }
        })
        .finally(() => {
          clearInterval(beat);
          inFlight.delete(execution.id);
        });
      inFlight.set(execution.id, { controller, done });
    },
    async recover(deps) {
      leaseMs = deps.config.leases.agentMs;
      // the database's only instance: every running execution is its previous run's
      await deps.storage.agents.endAbandoned(ABANDONED, Date.now(), heldBeforeAtStart(deps, Date.now()));
    },
    async takeBackExpired(deps) {
      const now = Date.now();
      await deps.storage.agents.endAbandoned(ABANDONED, now, now);
    },
    async close() {
      for (const run of inFlight.values()) run.controller.abort();
      await Promise.all([...inFlight.values()].map((r) => r.done));
    },
  };
}

async function finish(
  deps: Deps & { log: Logger },
  scope: TenantScope,
  execution: ExecutionRow,
  set: Partial<ExecutionRow> & { status: ExecutionRow['status']; message: string },
) {
  const completedAt = Date.now();
  const row: ExecutionRow = { ...execution, ...set, completedAt, durationMs: completedAt - execution.startedAt, leaseUntil: null };
  if (!(await deps.storage.agents.completeExecution(scope, execution.id, row)))
    deps.log.warn('agent execution outcome dropped: it was ended while it ran (its lease ran out)', { executionId: execution.id, status: set.status });
  return row;
}

/**
 * One execution: the model's call first, outside any unit of work (it waits on the network); then its findings
 * become annotations (a unit of work of their own, as /v2/commentannotations/add's), then the result and its
 * judgment are recorded together.
 */
async function execute(
  deps: RunnerDeps,
  scope: TenantScope,
  apiKey: ApiKeyRow,
  execution: ExecutionRow,
  agent: AgentRow,
  text: string,
  run: { signal: AbortSignal; leaseMs: number },
) {
  const { signal, leaseMs } = run;
  let answerText: string;
  let usage: ExecutionRow['tokenUsage'];
  try {
    const completion = await Promise.race([
      completeFor(deps, scope, agent.model, `${agent.instructions}\n\n${OUTPUT_CONTRACT}`, text),
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(new ProviderError('The server stopped while this execution was running.')), { once: true }),
      ),
    ]);
    answerText = completion.text;
    usage = completion.usage;
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    await finish(deps, scope, execution, { status: 'error', message: error.message });
    return;
  }
  const answer = parseModelAnswer(answerText);
  if (!answer) {
    await finish(deps, scope, execution, {
      status: 'error',
      message: `The model did not answer with the expected JSON: ${answerText.slice(0, 200)}`,
      tokenUsage: usage,
    });
    return;
  }
  // Findings become comment annotations on the document, authored by the agent.
  const findings: NonNullable<ExecutionRow['findings']> = answer.findings.map((f) => ({
    quote: f.quote,
    comment: f.comment,
    severity: f.severity,
    annotationId: null,
  }));
  const organizationId = execution.organizationId;
  const documentId = execution.documentId;
  // still this runner's (renewed, not ended as abandoned meanwhile) before it writes anything; the completion below
  // is fenced again, in the unit of work that records it
  if (!(await deps.storage.agents.renewLease(scope, execution.id, Date.now() + leaseMs))) throw new LeaseLostError(`Agent execution ${execution.id}`);
  if (organizationId && documentId && findings.length > 0) {
    const from = { userId: `agent:${agent.id}`, name: agent.name };
    const input = annotationsAddInput.parse({
      organizationId,
      documentId,
      createOrganization: true,
      createDocument: true,
      commentAnnotations: findings.map((f) => ({
        commentData: [
          { from, commentText: f.quote ? `[${f.severity}] ${f.comment}\n\n> ${f.quote}` : `[${f.severity}] ${f.comment}`, triggerNotification: false },
        ],
        context: { agentExecutionId: execution.id, agentId: agent.id, severity: f.severity, quote: f.quote },
      })),
    });
    const created = Object.values(await addAnnotations(deps, scope, apiKey, input));
    created.forEach((outcome, i) => {
      const finding = findings[i];
      if (finding && outcome.success) finding.annotationId = outcome.annotationId;
    });
  }
  const status = answer.decision === 'pass' ? 'passed' : 'failed';
  const summary =
    answer.summary.trim() ||
    (findings.length ? `${findings.length} finding(s).` : status === 'passed' ? 'No findings.' : 'The text does not meet the instructions.');
  await deps.storage.transaction(async () => {
    const completedAt = Date.now();
    const recorded = await deps.storage.agents.completeExecution(scope, execution.id, {
      status,
      message: summary,
      completedAt,
      durationMs: completedAt - execution.startedAt,
      tokenUsage: usage,
      findings,
      leaseUntil: null,
    });
    // ended as abandoned while the model was awaited: neither its outcome nor its judgment is kept
    if (!recorded) throw new LeaseLostError(`Agent execution ${execution.id}`);
    await recordJudgment(deps, scope, {
      organizationId,
      documentId,
      decision: status === 'passed' ? 'approved' : 'rejected',
      reviewer: { userId: `agent:${agent.id}`, name: agent.name },
      subject: text,
      reasoning: [summary, ...findings.map((f) => f.comment)].join('\n'),
      source: 'agent',
      sourceId: execution.id,
    });
  });
}

/** /v2/agents/execution/run: records a `running` execution and starts it; `skipped` when there is nothing to review. */
export async function runExecution(
  deps: RunnerDeps & { crdt: CrdtStore; agents: AgentRunner },
  scope: TenantScope,
  apiKey: ApiKeyRow,
  input: z.output<typeof executionRunInput>,
) {
  const agent = await requireAgent(deps, scope, input.agentId);
  const text = await inputText(deps, scope, input);
  const now = Date.now();
  const execution: ExecutionRow = {
    apiKeyId: scope.apiKeyId,
    id: `exec_${now}_${randomBytes(8).toString('hex')}`,
    agentId: agent.id,
    agentName: agent.name,
    agentVersion: agent.version,
    organizationId: input.organizationId ?? null,
    documentId: input.documentId ?? null,
    editorId: input.editorId ?? null,
    status: text ? 'running' : 'skipped',
    message: text ? 'Running.' : 'The document has no editor content to review.',
    trigger: 'standalone',
    llmModel: agent.model,
    input: input.text ?? null,
    ranBy: input.userId ? { userId: input.userId } : null,
    startedAt: now,
    completedAt: text ? null : now,
    durationMs: text ? null : 0,
    tokenUsage: null,
    findings: null,
    leaseUntil: text ? now + deps.agents.leaseMs : null,
  };
  await deps.storage.agents.insertExecution(scope, execution);
  if (text) deps.agents.start(deps, scope, apiKey, execution, agent, text);
  return describeExecution(execution);
}

export async function getExecution(deps: Deps, scope: TenantScope, executionId: string) {
  const row = await deps.storage.agents.findExecution(scope, executionId);
  if (!row) throw notFound(`Execution not found: ${executionId}.`);
  return describeExecution(row);
}

/** /v2/agents/execution/list: `{ items, nextCursor, hasMore }` by `startedAt` (then id), keyset-paged. */
export async function listExecutions(deps: Deps & { pageTokens: PageTokens }, scope: TenantScope, input: z.output<typeof executionListInput>) {
  const { cursor: token, pageSize, ...filters } = input;
  const query = { op: 'executions', apiKeyId: scope.apiKeyId, ...filters };
  const cursor = readPageToken(deps, query, token, ['number', 'string'], 'cursor');
  const rows = await deps.storage.agents.executions(
    scope,
    {
      order: filters.orderDirection === 'asc' ? 'asc' : 'desc',
      agentId: filters.agentId,
      organizationId: filters.organizationId,
      documentId: filters.documentId,
      status: filters.status,
    },
    cursor,
    pageSize + 1,
  );
  const page = paginate(rows, pageSize, (r) => [r.startedAt, r.id], deps.pageTokens, query);
  return { items: page.items.map(describeExecution), nextCursor: page.pageToken, hasMore: page.pageToken !== null };
}
