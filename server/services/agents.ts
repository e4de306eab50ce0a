import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { agentCreateInput, agentListInput, agentUpdateInput, executionListInput, executionRunInput } from '../../shared/schemas/ai.ts';
import { annotationsAddInput } from '../../shared/schemas/comments.ts';
import { ProviderError } from '../ai/providers.ts';
import type { AppContext } from '../context.ts';
import { crdtItem } from '../crdt/events.ts';
import { transaction } from '../db/client.ts';
import { keysetAfter, paginate } from '../db/pagination.ts';
import { compiledRows } from '../db/prepared.ts';
import { agentExecutions, agents, crdtDocuments } from '../db/schema.ts';
import { alreadyExists, invalid, notFound } from '../errors.ts';
import { completeFor } from './ai.ts';
import { addAnnotations } from './comments.ts';
import { recordJudgment, stripTags } from './memory.ts';
import { readPageToken } from './paging.ts';
import type { ApiKeyRow } from './types.ts';

type AgentRow = typeof agents.$inferSelect;
type ExecutionRow = typeof agentExecutions.$inferSelect;

// ---------------------------------------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------------------------------------

export function describeAgent(r: AgentRow) {
  return { agentId: r.id, name: r.name, description: r.description, version: r.version, model: r.model, instructions: r.instructions, createdAt: r.createdAt, updatedAt: r.updatedAt };
}

function findAgent(app: AppContext, apiKeyId: string, agentId: string) {
  return app.db.select().from(agents).where(and(eq(agents.apiKeyId, apiKeyId), eq(agents.id, agentId))).get();
}

export function requireAgent(app: AppContext, apiKeyId: string, agentId: string) {
  const row = findAgent(app, apiKeyId, agentId);
  if (!row) throw notFound(`Agent not found: ${agentId}.`);
  return row;
}

export function createAgent(app: AppContext, apiKeyId: string, input: z.output<typeof agentCreateInput>) {
  const now = Date.now();
  const row: AgentRow = {
    apiKeyId,
    id: input.agentId ?? `agent_${randomBytes(8).toString('hex')}`,
    name: input.name,
    description: input.description ?? null,
    version: 1,
    model: input.model,
    instructions: input.instructions,
    createdAt: now,
    updatedAt: now,
  };
  const inserted = app.db.insert(agents).values(row).onConflictDoNothing().run();
  if (inserted.changes === 0) throw alreadyExists(`Agent already exists: ${row.id}.`);
  return describeAgent(row);
}

export function updateAgent(app: AppContext, apiKeyId: string, input: z.output<typeof agentUpdateInput>) {
  const { agentId, ...changes } = input;
  if (Object.values(changes).every((v) => v === undefined)) throw invalid('At least one of name, description, model or instructions must be provided.');
  return transaction(app.db, (tx) => {
    const row = tx.select().from(agents).where(and(eq(agents.apiKeyId, apiKeyId), eq(agents.id, agentId))).get();
    if (!row) throw notFound(`Agent not found: ${agentId}.`);
    const next: AgentRow = {
      ...row,
      name: changes.name ?? row.name,
      description: changes.description === undefined ? row.description : changes.description,
      model: changes.model ?? row.model,
      instructions: changes.instructions ?? row.instructions,
      version: row.version + 1,
      updatedAt: Date.now(),
    };
    tx.update(agents).set(next).where(and(eq(agents.apiKeyId, apiKeyId), eq(agents.id, agentId))).run();
    return describeAgent(next);
  });
}

/** Deletes the agent; its executions stay (they carry the agent's name and version). */
export function deleteAgent(app: AppContext, apiKeyId: string, agentId: string) {
  const deleted = app.db.delete(agents).where(and(eq(agents.apiKeyId, apiKeyId), eq(agents.id, agentId))).run().changes > 0;
  if (!deleted) throw notFound(`Agent not found: ${agentId}.`);
  return { deleted: true, agentId };
}

/** An API key's agents, oldest first, from the start or after a cursor: compiled once per shape. */
const agentPage = compiledRows(agents, (db, shape: 'first' | 'after', columns) =>
  db
    .select(columns)
    .from(agents)
    .where(and(eq(agents.apiKeyId, sql.placeholder('apiKeyId')), shape === 'after' ? keysetAfter(agents.createdAt, agents.id, [sql.placeholder('afterCreatedAt'), sql.placeholder('afterId')], false) : undefined))
    .orderBy(asc(agents.createdAt), asc(agents.id))
    .limit(sql.placeholder('limit')),
);

export function listAgents(app: AppContext, apiKeyId: string, input: z.output<typeof agentListInput>) {
  const scope = { op: 'agents', apiKeyId };
  const cursor = readPageToken(app, scope, input.cursor, ['number', 'string'], 'cursor');
  const rows = agentPage(app.db, cursor ? 'after' : 'first', { apiKeyId, afterCreatedAt: cursor?.[0], afterId: cursor?.[1], limit: input.pageSize + 1 });
  const page = paginate(rows, input.pageSize, (r) => [r.createdAt, r.id], app.pageTokens, scope);
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
    .array(z.object({ quote: z.string().max(5000).nullable().default(null), comment: z.string().min(1).max(5000), severity: z.enum(['high', 'medium', 'low']).default('medium') }))
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
function inputText(app: AppContext, apiKeyId: string, input: z.output<typeof executionRunInput>): string {
  if (input.text !== undefined) return input.text;
  const where = [eq(crdtDocuments.apiKeyId, apiKeyId), eq(crdtDocuments.organizationId, input.organizationId as string), eq(crdtDocuments.documentId, input.documentId as string)];
  if (input.editorId !== undefined) where.push(eq(crdtDocuments.editorId, input.editorId));
  const editors = app.db.select({ editorId: crdtDocuments.editorId }).from(crdtDocuments).where(and(...where)).orderBy(asc(crdtDocuments.editorId)).all();
  return editors
    .map(({ editorId }) => crdtItem(app.crdt, { apiKeyId, organizationId: input.organizationId as string, documentId: input.documentId as string, editorId }))
    .map((item) => (item ? plainText(item).trim() : ''))
    .filter(Boolean)
    .join('\n\n');
}

export interface AgentRunner {
  /** Starts an execution in the background (after the caller's answer). */
  start(app: AppContext, apiKey: ApiKeyRow, execution: ExecutionRow, agent: AgentRow, text: string): void;
  /** Marks executions a crash left `running` as `error` (at start). */
  recover(app: AppContext): void;
  /** Aborts running executions, which end as `error`, and waits for them to be recorded. */
  close(): Promise<void>;
}

export function createAgentRunner(): AgentRunner {
  const inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  return {
    start(app, apiKey, execution, agent, text) {
      const controller = new AbortController();
      const done = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => execute(app, apiKey, execution, agent, text, controller.signal))
        .catch((error) => {
          // anything unexpected (writing the findings failed, say) still ends the execution, never leaves it running
          const message = error instanceof Error ? error.message : String(error);
          app.log.error('agent execution failed', { executionId: execution.id, error: message });
          try {
            finish(app, execution, { status: 'error', message: `The execution failed: ${message}` });
          } catch (again) {
            app.log.error('agent execution could not be recorded', { executionId: execution.id, error: String(again) });
          }
        })
        .finally(() => inFlight.delete(execution.id));
      inFlight.set(execution.id, { controller, done });
    },
    recover(app) {
      const now = Date.now();
      app.db
        .update(agentExecutions)
        .set({ status: 'error', message: 'The server stopped while this execution was running.', completedAt: now, durationMs: sql`${now} - ${agentExecutions.startedAt}` })
        .where(eq(agentExecutions.status, 'running'))
        .run();
    },
    async close() {
      for (const run of inFlight.values()) run.controller.abort();
      await Promise.all([...inFlight.values()].map((r) => r.done));
    },
  };
}

function finish(app: AppContext, execution: ExecutionRow, set: Partial<ExecutionRow> & { status: ExecutionRow['status']; message: string }) {
  const completedAt = Date.now();
  const row: ExecutionRow = { ...execution, ...set, completedAt, durationMs: completedAt - execution.startedAt };
  app.db.update(agentExecutions).set(row).where(and(eq(agentExecutions.apiKeyId, execution.apiKeyId), eq(agentExecutions.id, execution.id))).run();
  return row;
}

async function execute(app: AppContext, apiKey: ApiKeyRow, execution: ExecutionRow, agent: AgentRow, text: string, signal: AbortSignal) {
  let answerText: string;
  let usage: ExecutionRow['tokenUsage'];
  try {
    const completion = await Promise.race([
      completeFor(app, apiKey.id, agent.model, `${agent.instructions}\n\n${OUTPUT_CONTRACT}`, text),
      new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new ProviderError('The server stopped while this execution was running.')), { once: true })),
    ]);
    answerText = completion.text;
    usage = completion.usage;
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    finish(app, execution, { status: 'error', message: error.message });
    return;
  }
  const answer = parseModelAnswer(answerText);
  if (!answer) {
    finish(app, execution, { status: 'error', message: `The model did not answer with the expected JSON: ${answerText.slice(0, 200)}`, tokenUsage: usage });
    return;
  }
  // Findings become comment annotations on the document, authored by the agent.
  const findings: NonNullable<ExecutionRow['findings']> = answer.findings.map((f) => ({ quote: f.quote, comment: f.comment, severity: f.severity, annotationId: null }));
  const organizationId = execution.organizationId;
  const documentId = execution.documentId;
  if (organizationId && documentId && findings.length > 0) {
    const from = { userId: `agent:${agent.id}`, name: agent.name };
    const input = annotationsAddInput.parse({
      organizationId,
      documentId,
      createOrganization: true,
      createDocument: true,
      commentAnnotations: findings.map((f) => ({
        commentData: [{ from, commentText: f.quote ? `[${f.severity}] ${f.comment}\n\n> ${f.quote}` : `[${f.severity}] ${f.comment}`, triggerNotification: false }],
        context: { agentExecutionId: execution.id, agentId: agent.id, severity: f.severity, quote: f.quote },
      })),
    });
    const created = Object.values(addAnnotations(app, apiKey, input));
    created.forEach((outcome, i) => {
      const finding = findings[i];
      if (finding && outcome.success) finding.annotationId = outcome.annotationId;
    });
  }
  const status = answer.decision === 'pass' ? 'passed' : 'failed';
  const summary = answer.summary.trim() || (findings.length ? `${findings.length} finding(s).` : status === 'passed' ? 'No findings.' : 'The text does not meet the instructions.');
  transaction(app.db, (tx) => {
    const completedAt = Date.now();
    tx.update(agentExecutions)
      .set({ status, message: summary, completedAt, durationMs: completedAt - execution.startedAt, tokenUsage: usage, findings })
      .where(and(eq(agentExecutions.apiKeyId, execution.apiKeyId), eq(agentExecutions.id, execution.id)))
      .run();
    recordJudgment(tx, {
      apiKeyId: execution.apiKeyId,
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
export function runExecution(app: AppContext, apiKey: ApiKeyRow, input: z.output<typeof executionRunInput>) {
  const agent = requireAgent(app, apiKey.id, input.agentId);
  const text = inputText(app, apiKey.id, input);
  const now = Date.now();
  const execution: ExecutionRow = {
    apiKeyId: apiKey.id,
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
  };
  app.db.insert(agentExecutions).values(execution).run();
  if (text) app.agents.start(app, apiKey, execution, agent, text);
  return describeExecution(execution);
}

export function getExecution(app: AppContext, apiKeyId: string, executionId: string) {
  const row = app.db.select().from(agentExecutions).where(and(eq(agentExecutions.apiKeyId, apiKeyId), eq(agentExecutions.id, executionId))).get();
  if (!row) throw notFound(`Execution not found: ${executionId}.`);
  return describeExecution(row);
}

/** An executions page of one filter shape, compiled once. */
const executionPage = compiledRows(agentExecutions, (db, shape: `${'<' | '>'}${'' | '+after'}${'' | '+agent'}${'' | '+organization'}${'' | '+document'}${'' | '+status'}`, columns) => {
  const e = agentExecutions;
  const p = sql.placeholder;
  const descending = shape.startsWith('<');
  const where: (SQL | undefined)[] = [eq(e.apiKeyId, p('apiKeyId'))];
  if (shape.includes('+agent')) where.push(eq(e.agentId, p('agentId')));
  if (shape.includes('+organization')) where.push(eq(e.organizationId, p('organizationId')));
  if (shape.includes('+document')) where.push(eq(e.documentId, p('documentId')));
  if (shape.includes('+status')) where.push(eq(e.status, p('status')));
  if (shape.includes('+after')) where.push(keysetAfter(e.startedAt, e.id, [p('afterStartedAt'), p('afterId')], descending));
  const direction = descending ? desc : asc;
  return db
    .select(columns)
    .from(e)
    .where(and(...where))
    .orderBy(direction(e.startedAt), direction(e.id))
    .limit(p('limit'));
});

/** /v2/agents/execution/list: `{ items, nextCursor, hasMore }` by `startedAt` (then id), keyset-paged. */
export function listExecutions(app: AppContext, apiKeyId: string, input: z.output<typeof executionListInput>) {
  const { cursor: token, pageSize, ...filters } = input;
  const scope = { op: 'executions', apiKeyId, ...filters };
  const cursor = readPageToken(app, scope, token, ['number', 'string'], 'cursor');
  const shape = `${filters.orderDirection === 'asc' ? '>' : '<'}${cursor ? '+after' : ''}${filters.agentId !== undefined ? '+agent' : ''}${filters.organizationId !== undefined ? '+organization' : ''}${
    filters.documentId !== undefined ? '+document' : ''
  }${filters.status !== undefined ? '+status' : ''}` as const;
  const rows = executionPage(app.db, shape, { ...filters, apiKeyId, afterStartedAt: cursor?.[0], afterId: cursor?.[1], limit: pageSize + 1 });
  const page = paginate(rows, pageSize, (r) => [r.startedAt, r.id], app.pageTokens, scope);
  return { items: page.items.map(describeExecution), nextCursor: page.pageToken, hasMore: page.pageToken !== null };
}
