// The PostgreSQL port of the workflow definitions repository answers as the SQLite one (see organizations.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DefinitionRow, type WorkflowsRepo, workflowsRepo } from '../../server/db/repos/workflows.ts';
import { type BothEngines, bothEngines, onBoth } from '../helpers/pg-parity.ts';

let both: BothEngines;
beforeAll(async () => {
  both = await bothEngines();
});
afterAll(() => both?.close());

describe('workflows', () => {
  it('answers every call as on SQLite: find, insert, replace, tombstone, purge, active pages, tenant isolation', async () => {
    const { k1, k2 } = both;
    const def = (definitionId: string, name: string, extra: Partial<DefinitionRow> = {}): Omit<DefinitionRow, 'apiKeyId'> => ({
      definitionId,
      name,
      description: null,
      version: 1,
      scopeLevel: 'apiKey',
      organizationId: null,
      documentId: null,
      body: { nodes: [{ id: 'n1', type: 'start' }], edges: [], zeta: true, alpha: { b: 1, a: [2, null] } },
      webhookSecretEnc: null,
      status: 'active',
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
      ...extra,
    });
    const ids = (rows: unknown) => (rows as DefinitionRow[]).map((r) => r.definitionId);
    const answers = await onBoth<WorkflowsRepo>(both.storage.workflows, workflowsRepo(both.pg), async (repo) => [
      await repo.find(k1, 'wf-a'),
      await repo.insert(k1, def('wf-a', 'A')),
      await repo.insert(k1, def('Wf-Z', 'Z', { scopeLevel: 'organization', organizationId: 'o1', description: 'upper case first' })),
      await repo.insert(k1, def('wf-b', 'B', { scopeLevel: 'document', organizationId: 'o1', documentId: 'd1', webhookSecretEnc: 'sealed' })),
      await repo.insert(k1, def('wf-c', 'C')),
      await repo.insert(k2, def('wf-a', 'other tenant')),
      await repo.find(k1, 'wf-a'),
      await repo.find(k1, 'wf-b'),
      await repo.find(k2, 'wf-a'),
      await repo.replace(k1, 'wf-a', def('wf-a', 'A2', { version: 2, body: { z: 1, a: 2 }, updatedAt: 1_700_000_000_005 })),
      await repo.replace(k1, 'missing', def('missing', 'x')),
      await repo.find(k1, 'wf-a'),
      await repo.find(k1, 'missing'),
      // code point order: 'Wf-Z' before 'wf-a'
      await repo.activePage(k1, undefined, 10),
      await repo.activePage(k1, undefined, 2),
      await repo.activePage(k1, 'wf-a', 1),
      await repo.activePage(k1, 'wf-c', 10),
      await repo.tombstone(k1, 'wf-b', 1_700_000_000_009),
      await repo.find(k1, 'wf-b'),
      await repo.activePage(k1, undefined, 10),
      await repo.activePage(k2, undefined, 10),
      await repo.purge(k1, 'wf-b'),
      await repo.purge(k1, 'wf-a'),
      await repo.find(k1, 'wf-b'),
      await repo.find(k1, 'wf-a'),
      await repo.find(k2, 'wf-a'),
      await repo.activePage(k1, undefined, 10),
      await repo.activePage(k2, undefined, 10),
    ]);
    expect(answers.pg).toEqual(answers.sqlite);
    const s = answers.sqlite;
    expect(s[0]).toBeUndefined();
    expect((s[6] as DefinitionRow).name).toBe('A');
    expect((s[8] as DefinitionRow).name).toBe('other tenant');
    expect((s[11] as DefinitionRow).name).toBe('A2');
    expect(JSON.stringify((answers.pg[11] as DefinitionRow).body)).toBe('{"z":1,"a":2}');
    expect(JSON.stringify((answers.pg[7] as DefinitionRow).body)).toBe(
      '{"nodes":[{"id":"n1","type":"start"}],"edges":[],"zeta":true,"alpha":{"b":1,"a":[2,null]}}',
    );
    expect(s[12]).toBeUndefined();
    expect(ids(s[13])).toEqual(['Wf-Z', 'wf-a', 'wf-b', 'wf-c']);
    expect(ids(s[14])).toEqual(['Wf-Z', 'wf-a']);
    expect(ids(s[15])).toEqual(['wf-b']);
    expect(ids(s[16])).toEqual([]);
    expect(s[18]).toMatchObject({ status: 'deleted', updatedAt: 1_700_000_000_009, webhookSecretEnc: 'sealed' });
    expect(ids(s[19])).toEqual(['Wf-Z', 'wf-a', 'wf-c']);
    expect(ids(s[20])).toEqual(['wf-a']);
    expect(s[23]).toBeUndefined();
    expect(s[24]).toBeUndefined();
    expect((s[25] as DefinitionRow).name).toBe('other tenant');
    expect(ids(s[26])).toEqual(['Wf-Z', 'wf-c']);
  });
});
