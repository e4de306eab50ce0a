// Writes docs/fixtures.schema.json, the JSON Schema of fixtures files for editors, from the zod schema
// (server/testing/fixtures.ts) with zod's z.toJSONSchema, formatted as the repository's formatter formats JSON.
// `npm run fixtures:schema`; test/cli/fixtures-schema.test.ts fails when the committed file is not what this writes.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesJsonSchema } from '../server/testing/fixtures.ts';

const root = join(import.meta.dirname, '..');
const file = join(root, 'docs', 'fixtures.schema.json');
writeFileSync(file, `${JSON.stringify(fixturesJsonSchema(), null, 2)}\n`);
execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', '--write', file], { cwd: root, stdio: 'inherit' });
console.log(`wrote ${file}`);
