// The PostgreSQL port of the agents repository answers as the SQLite one (see organizations.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentRow, agentsRepo, type AgentsRepo, type ExecutionRow } from '../../server/db/repos/agents.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
});
afterAll(() => both?.close());

const T = 1_700_000_000_000;

const agent = (id: string, createdAt: number, extra: Partial<AgentRow> = {}): Omit<AgentRow, 'apiKeyId'> => ({
  id,
  name: `agent ${id}`,
  description: null,
  version: 1,
  model: 'gpt-test',
  instructions: 'Check the text.',
  createdAt,
  updatedAt: createdAt,
  ...extra,
});

const execution = (id: string, startedAt: number, extra: Partial<ExecutionRow> = {}): Omit<ExecutionRow, 'apiKeyId'> => ({
  id,
  agentId: 'a1',
  agentName: 'agent a1',
  agentVersion: 1,
  organizationId: 'o1',
  documentId: 'd1',
  editorId: null,
  status: 'passed',
  message: 'ok',
  trigger: 'manual',
  llmModel: 'gpt-test',
  input: 'some text',
  ranBy: { userId: 'u1', name: 'U', email: 'u@x.test' },
  startedAt,
  completedAt: startedAt + 10,
  durationMs: 10,
  tokenUsage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
  findings: [{ quote: null, comment: 'fine', severity: 'low', annotationId: null }],
  leaseUntil: null,
  ...extra,
});

const ids = (rows: unknown) => (rows as Array<{ id: string }>).map((r) => r.id);

describe('agents', () => {
  it('answers every call as on SQLite: agents, executions, filters, pages both ways, endAbandoned, provider settings', async () => {
    const { k1, k2 } = both;
    await both.insertBoth('UPDATE api_keys SET settings = ? WHERE id = ?', [
      JSON.stringify({ aiProviders: { openai: { baseUrl: 'https://llm.test/v1' }, anthropic: { baseUrl: 'https://a.test' } } }),
      'k1',
    ]);
    const answers = await onBoth<AgentsRepo>(both.storage.agents, agentsRepo(both.pg), async (repo) => [
      await repo.find(k1, 'a1'),
      await repo.insert(k1, agent('a1', T)),
      await repo.insert(k1, agent('a1', T + 99, { name: 'duplicate' })),
      await repo.insert(k1, agent('B2', T + 5)),
      await repo.insert(k1, agent('a3', T + 5)),
      await repo.insert(k1, agent('a0', T + 7, { description: 'last' })),
      await repo.insert(k2, agent('a1', T, { name: 'other tenant' })),
      await repo.find(k1, 'a1'),
      await repo.update(k1, 'a1', agent('a1', T, { version: 2, name: 'renamed', updatedAt: T + 50 })),
      await repo.update(k1, 'missing', agent('missing', T)),
      await repo.find(k1, 'a1'),
      await repo.find(k1, 'missing'),
      // createdAt, then id in code point order: a1 (T), B2 and a3 (T+5), a0 (T+7)
      await repo.page(k1, null, 10),
      await repo.page(k1, null, 2),
      await repo.page(k1, [T + 5, 'B2'], 2),
      await repo.page(k1, [T + 7, 'a0'], 2),
      await repo.page(k2, null, 10),
      await repo.delete(k1, 'a3'),
      await repo.delete(k1, 'a3'),
      await repo.page(k1, null, 10),
      await repo.findExecution(k1, 'e1'),
      await repo.insertExecution(k1, execution('e1', T)),
      await repo.insertExecution(k1, execution('e2', T + 1, { status: 'running', completedAt: null, durationMs: null, tokenUsage: null, findings: null })),
      await repo.insertExecution(k1, execution('E3', T + 1, { agentId: 'B2', organizationId: 'o2', status: 'failed' })),
      await repo.insertExecution(k1, execution('e4', T + 2, { documentId: null, organizationId: null, input: null, ranBy: null })),
      await repo.insertExecution(k1, execution('e5', T + 3, { status: 'running', documentId: 'd2', completedAt: null, durationMs: null, leaseUntil: T + 500 })),
      await repo.insertExecution(k2, execution('e1', T, { status: 'running', completedAt: null, durationMs: null })),
      await repo.findExecution(k1, 'e1'),
      await repo.findExecution(k1, 'e4'),
      await repo.completeExecution(k1, 'e2', { message: 'changed', tokenUsage: { totalTokens: 9, promptTokens: 4, completionTokens: 5 } }),
      await repo.completeExecution(k1, 'missing', { message: 'x' }), // 30
      await repo.findExecution(k1, 'e2'),
      await repo.executions(k1, { order: 'asc' }, null, 10),
      await repo.executions(k1, { order: 'desc' }, null, 10),
      await repo.executions(k1, { order: 'asc' }, [T + 1, 'E3'], 2),
      await repo.executions(k1, { order: 'desc' }, [T + 1, 'e2'], 10),
      await repo.executions(k1, { order: 'desc', agentId: 'a1' }, null, 10),
      await repo.executions(k1, { order: 'asc', organizationId: 'o1' }, null, 10),
      await repo.executions(k1, { order: 'asc', organizationId: 'o1', documentId: 'd1' }, null, 10),
      await repo.executions(k1, { order: 'asc', status: 'running' }, null, 10),
      await repo.executions(k1, { order: 'asc', agentId: 'a1', organizationId: 'o1', documentId: 'd2', status: 'running' }, [T, 'e1'], 10),
      await repo.executions(k2, { order: 'asc' }, null, 10),
      await repo.providerSettings(k1),
      await repo.providerSettings(k2),
      // leases: renewed while running (not once ended, not in another key); what a gone runner held ends as error
      await repo.renewLease(k1, 'e2', T + 150),
      await repo.renewLease(k1, 'e1', T + 150), // 45
      await repo.renewLease(k2, 'e2', T + 150),
      await repo.endAbandoned('the server stopped', T + 100, T + 100),
      await repo.endAbandoned('lease ran out', T + 200, T + 200),
      await repo.findExecution(k1, 'e2'),
      await repo.findExecution(k1, 'e5'), // 50
      await repo.findExecution(k2, 'e1'),
      await repo.findExecution(k1, 'e1'),
      // the only instance's start: every running execution was its previous run's
      await repo.endAbandoned('at start', T + 300, Number.MAX_SAFE_INTEGER),
      await repo.findExecution(k1, 'e5'),
      await repo.endAbandoned('again', T + 400, Number.MAX_SAFE_INTEGER), // 55
      // the fence on completion: an outcome is recorded only while the execution runs
      await repo.insertExecution(k1, execution('e6', T + 5, { status: 'running', completedAt: null, durationMs: null, leaseUntil: T + 600 })),
      await repo.completeExecution(k2, 'e6', { status: 'passed', message: 'not this key' }),
      await repo.completeExecution(k1, 'e6', { status: 'passed', message: 'done', completedAt: T + 9, durationMs: 4, leaseUntil: null }),
      await repo.completeExecution(k1, 'e6', { status: 'failed', message: 'too late' }),
      await repo.findExecution(k1, 'e6'), // 60
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[0]).toBeUndefined();
    expect(s.slice(1, 3)).toEqual([true, false]);
    expect(s[10]).toMatchObject({ name: 'renamed', version: 2, updatedAt: T + 50 });
    expect(ids(s[12])).toEqual(['a1', 'B2', 'a3', 'a0']);
    expect(ids(s[13])).toEqual(['a1', 'B2']);
    expect(ids(s[14])).toEqual(['a3', 'a0']);
    expect(ids(s[15])).toEqual([]);
    expect((s[16] as AgentRow[]).map((r) => r.name)).toEqual(['other tenant']);
    expect(s.slice(17, 19)).toEqual([true, false]);
    expect(ids(s[19])).toEqual(['a1', 'B2', 'a0']);
    expect(s.slice(29, 31)).toEqual([true, false]);
    expect(s[31]).toMatchObject({ status: 'running', message: 'changed' });
    expect(s[28]).toMatchObject({ organizationId: null, documentId: null, input: null, ranBy: null });
    expect(JSON.stringify((answers.pg[31] as ExecutionRow).tokenUsage)).toBe('{"totalTokens":9,"promptTokens":4,"completionTokens":5}');
    expect(ids(s[32])).toEqual(['e1', 'E3', 'e2', 'e4', 'e5']);
    expect(ids(s[33])).toEqual(['e5', 'e4', 'e2', 'E3', 'e1']);
    expect(ids(s[34])).toEqual(['e2', 'e4']);
    expect(ids(s[35])).toEqual(['E3', 'e1']);
    expect(ids(s[36])).toEqual(['e5', 'e4', 'e2', 'e1']);
    expect(ids(s[37])).toEqual(['e1', 'e2', 'e5']);
    expect(ids(s[38])).toEqual(['e1', 'e2']);
    expect(ids(s[39])).toEqual(['e2', 'e5']);
    expect(ids(s[40])).toEqual(['e5']);
    expect(ids(s[41])).toEqual(['e1']);
    expect(s[42]).toEqual({ openai: { baseUrl: 'https://llm.test/v1' }, anthropic: { baseUrl: 'https://a.test' } });
    expect(s[43]).toBeUndefined();
    expect(s.slice(44, 47)).toEqual([true, false, false]);
    expect(s.slice(47, 49)).toEqual([1, 1]);
    expect(s[49]).toMatchObject({ status: 'error', message: 'lease ran out', completedAt: T + 200, durationMs: 199, leaseUntil: null });
    expect(s[50]).toMatchObject({ status: 'running', leaseUntil: T + 500 });
    expect(s[51]).toMatchObject({ status: 'error', message: 'the server stopped', durationMs: 100 });
    expect(s[52]).toMatchObject({ status: 'passed', message: 'ok' });
    expect(s[53]).toBe(1);
    expect(s[54]).toMatchObject({ status: 'error', message: 'at start', completedAt: T + 300, durationMs: 297 });
    expect(s[55]).toBe(0);
    expect(s.slice(57, 60)).toEqual([false, true, false]);
    expect(s[60]).toMatchObject({ status: 'passed', message: 'done', durationMs: 4, leaseUntil: null });
  });
});
