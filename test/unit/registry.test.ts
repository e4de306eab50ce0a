import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { checkRegistry } from '../../server/http/app.ts';
import { defineOperation } from '../../server/http/operation.ts';
import { operations } from '../../server/operations/index.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** `/v2/workspace/apikey/create` → `workspace/apikey/create`: the operation's file and its test file share it. */
const stem = (path: string) => path.replace(/^\/v\d+\//, '');

describe('operation registry', () => {
  it('has one file per operation, named after its path', () => {
    for (const op of operations) {
      const file = join(ROOT, 'server', 'operations', `${stem(op.path)}.ts`);
      expect(existsSync(file), `${op.path} should live in ${file}`).toBe(true);
      expect(readFileSync(file, 'utf8')).toContain(`'${op.path}'`);
    }
  });

  it('has a test file for every operation that calls it', () => {
    const missing = operations.filter((op) => {
      const file = join(ROOT, 'test', 'api', `${stem(op.path)}.test.ts`);
      return !existsSync(file) || !readFileSync(file, 'utf8').includes(stem(op.path));
    });
    expect(missing.map((op) => `${op.path} needs test/api/${stem(op.path)}.test.ts`)).toEqual([]);
  });

  it('refuses a path registered twice', () => {
    const op = defineOperation({ path: '/v2/dup', auth: 'public', summary: 'x', input: z.object({}), handler: async () => ({ message: 'x' }) });
    expect(() => checkRegistry([op, op])).toThrow('Operation path registered twice: /v2/dup');
    expect(() => checkRegistry(operations)).not.toThrow();
  });

  it('declares an auth kind and a summary for every operation', () => {
    for (const op of operations) {
      expect(['workspace', 'apiKey', 'public']).toContain(op.auth);
      expect(op.summary.length).toBeGreaterThan(10);
    }
  });
});
