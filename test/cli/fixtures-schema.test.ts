import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesJsonSchema, readFixturesFile } from '../../server/testing/fixtures.ts';

const DOCS = join(import.meta.dirname, '..', '..', 'docs');

describe('the fixtures JSON Schema', () => {
  it('docs/fixtures.schema.json is what npm run fixtures:schema generates from the zod schema', () => {
    const committed = JSON.parse(readFileSync(join(DOCS, 'fixtures.schema.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(fixturesJsonSchema())));
  });

  it('describes the format an editor checks: the top level, fixed credentials and content by type', () => {
    const schema = fixturesJsonSchema() as { required?: string[]; additionalProperties?: boolean; $schema: string };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.required).toEqual(['version', 'workspaces']);
    expect(schema.additionalProperties).toBe(false);
    const text = JSON.stringify(schema);
    for (const word of ['authTokens', 'parentFolderId', 'expiresAt', 'commentData', 'notifyUsers', '"xml"', '"map"']) expect(text).toContain(word);
  });

  it('the example in docs/ is a valid fixtures file', () => {
    const example = readFixturesFile(join(DOCS, 'fixtures.example.json'));
    expect(example.workspaces[0]?.apiKeys[0]?.id).toBe('key_fixture_acme');
  });
});
