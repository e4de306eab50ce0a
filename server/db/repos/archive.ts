// The storage layer's face to the archive tooling (tooling/export.ts, tooling/import.ts): export and import work on a
// data dir's database files directly, as one read transaction over everything or one bulk restore, not on a running
// server's units of work. The tooling keeps the files, the manifest, the secrets and the progress; everything that
// speaks SQL is in db/archive/. The same reader and writer exist for a PostgreSQL database (pg-source.ts,
// pg-target.ts): the tooling picks one, and awaits every call of either.
export { buildSchemaLevel, schemaLevelOfFile } from '../archive/level.ts';
export { openPgArchiveSource } from '../archive/pg-source.ts';
export { openPgArchiveTarget } from '../archive/pg-target.ts';
export { openArchiveSource, type ArchiveScope, type ArchiveSource, type ArchiveTableRef, type StoredRow } from '../archive/source.ts';
export { storedTables, type ColumnKind, type StoredColumn, type StoredTable } from '../archive/tables.ts';
export { openArchiveTarget, type ArchiveTarget, type TableTarget } from '../archive/target.ts';
export { toArchiveValue, toStoredValue, type Stored } from '../archive/values.ts';
