// The storage boundary, read from the code's own imports: outside server/db/ no file reaches the database driver,
// drizzle, the schema or a connection; everything goes through the repositories (server/db/repos/) and the units of
// work of server/db/storage.ts. The tenant scopes are made in server/db/ only (and by authentication, which hands
// them to the request).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every TypeScript file of these folders, as paths from the project root. */
function files(...folders: string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.(ts|tsx|mts)$/.test(e.name))
      .map((e) => relative(ROOT, join(e.parentPath, e.name))),
  );
}

/** What a file imports: package names and project paths (relative imports resolved), static, type-only and dynamic. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => (m[1] ?? m[2]) as string,
  );
  return specifiers.map((s) => (s.startsWith('.') ? normalize(join(dirname(file), s)) : s));
}

/** Modules of server/db/ that hand out no connection: pagination cursors, and the data dir's files seen from outside a server (backups, inspection). */
const PUBLIC = ['server/db/pagination.ts', 'server/db/backup.ts', 'server/db/inspect.ts'];
const FORBIDDEN = (target: string) =>
  target === 'better-sqlite3' ||
  target === 'drizzle-orm' ||
  target.startsWith('drizzle-orm/') ||
  (target.startsWith('server/db/') && !target.startsWith('server/db/repos/') && !PUBLIC.includes(target));
/** Allowed from outside: the scope's types (not its constructors) are imported with `import type`. */
const TYPE_ONLY_OK = new Set(['server/db/scope.ts', 'server/db/storage.ts']);

function violations(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return importsOf(file).filter((target) => {
    if (!FORBIDDEN(target)) return false;
    if (TYPE_ONLY_OK.has(target)) {
      const name = relative(dirname(file), target).replace(/\\/g, '/');
      const typeOnly = new RegExp(`import type [^;]*from ['"](\\./)?${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]`);
      return !typeOnly.test(text);
    }
    return true;
  });
}

describe('the storage boundary', () => {
  const outside = files('server', 'shared', 'main', 'renderer/src').filter((f) => !f.startsWith('server/db/'));

  it('holds: no file outside server/db/ imports the driver, drizzle, the schema or a connection', () => {
    const found = outside.flatMap((f) => violations(f).map((target) => `${f} -> ${target}`));
    expect(found).toEqual([]);
  });

  it('sees what it guards against: a file that imports the driver, drizzle or the schema is a violation', () => {
    expect(FORBIDDEN('better-sqlite3')).toBe(true);
    expect(FORBIDDEN('drizzle-orm/sqlite-core')).toBe(true);
    expect(FORBIDDEN('server/db/schema.ts')).toBe(true);
    expect(FORBIDDEN('server/db/client.ts')).toBe(true);
    expect(FORBIDDEN('server/db/repos/keys.ts')).toBe(false);
    expect(outside.length).toBeGreaterThan(100);
    expect(outside).toContain('server/index.ts');
  });
});
