// A statement with `LIMIT ?` is compiled again on every run; with `LIMIT +?` it is not. SQLite's planner (3.53, the
// one better-sqlite3 12 bundles) peeks at the value bound to a LIMIT parameter (sqlite3ExprIsInteger with a Parse),
// and to keep the plan true to that value it marks the statement to be compiled again whenever the parameter is
// bound, as if the schema had changed. better-sqlite3 binds every parameter on every run, so each run of a
// statement with a bound LIMIT is a full compilation: 6 µs for a one-table page query, 18 µs for the
// notifications page (12 % of its statement's time). And the peek buys nothing here: better-sqlite3 binds
// JavaScript numbers as REAL, and the planner only takes an INTEGER.
//
// A unary plus is not a parameter to the planner (it looks through TK_UPLUS without the Parse, so without
// peeking) and costs nothing when the statement runs (the operand is coded as is; `+x` does not convert x).
// The plans are the ones SQLite made before, and the values the same: `LIMIT +?` with 50, 50.0, '50' or NULL
// limits, or fails, exactly as `LIMIT ?` does (test/unit/bound-limit.test.ts).
//
// OFFSET is not peeked at; SQLITE_DBCONFIG_ENABLE_QPSG would turn the peek off, but better-sqlite3 has no way to
// set it. The rewrite is textual: a string literal that itself contains `limit ?` would be rewritten too, which
// Hearth's SQL (drizzle's and its own) never has.
import type Database from 'better-sqlite3';

/** `LIMIT <parameter>` and `LIMIT <parameter>, <parameter>` (ordered `?`, `?NNN`, `:name`, `@name`, `$name`). */
const BOUND_LIMIT = /\blimit(\s+)([?:@$]\w*)(\s*,\s*)?([?:@$]\w*)?/gi;

/** The SQL with each bound LIMIT value written `+?`, so that binding it does not recompile the statement. */
export function unpeekedLimits(sql: string): string {
  if (!/limit/i.test(sql)) return sql;
  return sql.replace(BOUND_LIMIT, (match, space: string, first: string, comma: string | undefined, second: string | undefined) =>
    comma !== undefined && second !== undefined
      ? `${match.slice(0, 5)}${space}+${first}${comma}+${second}`
      : `${match.slice(0, 5)}${space}+${first}${comma ?? ''}`,
  );
}

/** Makes the connection's `prepare` compile every SQL text through unpeekedLimits. */
export function compileWithUnpeekedLimits(sqlite: Database.Database): void {
  const compile = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => compile(unpeekedLimits(source))) as typeof sqlite.prepare;
}
