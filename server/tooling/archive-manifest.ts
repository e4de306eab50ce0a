import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { hashFile } from './archive-files.ts';
import { ARCHIVE_FORMAT, ARCHIVE_FORMAT_VERSION, archiveTables, buildSchemaLevel, MANIFEST_FILE } from './archive-schema.ts';
import type { Manifest } from './transfer.ts';

/** A problem with an archive (or the place it goes): said in one line, naming the file and line when there is one. */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A path of the manifest inside the archive, refused if it could point outside it. */
export function archivePath(from: string, relative: string): string {
  const clean = normalize(relative);
  if (isAbsolute(relative) || clean.startsWith('..') || clean.split(sep).includes('..'))
    throw new ArchiveError(`manifest.json names a file outside the archive: ${relative}`);
  return join(from, clean);
}

/** Reads and checks manifest.json: format, version, schema level, and the shape of what the import relies on. */
export function readManifest(from: string): Manifest {
  const file = join(from, MANIFEST_FILE);
  if (!existsSync(from) || !statSync(from).isDirectory()) throw new ArchiveError(`${from} is not a directory`);
  if (!existsSync(file)) throw new ArchiveError(`${from} is not a Hearth export: it has no ${MANIFEST_FILE}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ArchiveError(`${MANIFEST_FILE} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(parsed) || parsed.format !== ARCHIVE_FORMAT)
    throw new ArchiveError(`${from} is not a Hearth export: ${MANIFEST_FILE} does not say format "${ARCHIVE_FORMAT}"`);
  const version = parsed.formatVersion;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1)
    throw new ArchiveError(`${MANIFEST_FILE}: formatVersion must be a whole number`);
  if (version > ARCHIVE_FORMAT_VERSION)
    throw new ArchiveError(
      `This archive has format version ${version}, written by a newer Hearth (${String(parsed.hearthVersion)}); this Hearth reads version ${ARCHIVE_FORMAT_VERSION}: upgrade Hearth to import it`,
    );
  const level = parsed.schemaLevel;
  if (typeof level !== 'number' || !Number.isInteger(level)) throw new ArchiveError(`${MANIFEST_FILE}: schemaLevel must be a whole number`);
  const buildLevel = buildSchemaLevel();
  if (level > buildLevel)
    throw new ArchiveError(
      `This archive comes from a newer Hearth (${String(parsed.hearthVersion)}, schema level ${level}; this Hearth has level ${buildLevel}): upgrade Hearth to import it`,
    );
  if (!isObject(parsed.scope) || !['all', 'workspace', 'apiKey'].includes(String(parsed.scope.kind)))
    throw new ArchiveError(`${MANIFEST_FILE}: scope is missing or unknown`);
  if (!isObject(parsed.secrets) || (parsed.secrets.mode !== 'include' && parsed.secrets.mode !== 'omit'))
    throw new ArchiveError(`${MANIFEST_FILE}: secrets.mode must be include or omit`);
  if (!isObject(parsed.files)) throw new ArchiveError(`${MANIFEST_FILE}: files is missing`);
  for (const [path, entry] of Object.entries(parsed.files)) {
    if (!isObject(entry) || typeof entry.sha256 !== 'string' || typeof entry.bytes !== 'number')
      throw new ArchiveError(`${MANIFEST_FILE}: files["${path}"] needs sha256 and bytes`);
  }
  if (!Array.isArray(parsed.tables)) throw new ArchiveError(`${MANIFEST_FILE}: tables is missing`);
  const known = new Map(archiveTables().map((t) => [t.name, t]));
  for (const [index, table] of parsed.tables.entries()) {
    if (
      !isObject(table) ||
      typeof table.name !== 'string' ||
      typeof table.file !== 'string' ||
      typeof table.rows !== 'number' ||
      !Array.isArray(table.columns)
    ) {
      throw new ArchiveError(`${MANIFEST_FILE}: tables[${index}] needs name, file, rows and columns`);
    }
    const spec = known.get(table.name);
    if (!spec) throw new ArchiveError(`${MANIFEST_FILE}: table "${table.name}" is unknown to this Hearth`);
    const unknownColumn = (table.columns as unknown[]).find((c) => !spec.columns.some((s) => s.key === c));
    if (unknownColumn !== undefined) throw new ArchiveError(`${MANIFEST_FILE}: column "${String(unknownColumn)}" of ${table.name} is unknown to this Hearth`);
    if (!(table.file in parsed.files)) throw new ArchiveError(`${MANIFEST_FILE}: ${table.file} has no checksum in files`);
  }
  return parsed as unknown as Manifest;
}

/** Checks that every file the manifest lists is there, with its size and sha256. */
export async function verifyFiles(from: string, manifest: Manifest, onFile: () => void) {
  for (const [relative, expected] of Object.entries(manifest.files)) {
    const path = archivePath(from, relative);
    if (!existsSync(path)) throw new ArchiveError(`${relative} is listed in ${MANIFEST_FILE} but missing from the archive`);
    const actual = await hashFile(path);
    if (actual.bytes !== expected.bytes || actual.sha256 !== expected.sha256) {
      throw new ArchiveError(
        `${relative} does not match its checksum in ${MANIFEST_FILE} (${actual.bytes} bytes, sha256 ${actual.sha256.slice(0, 12)}…; expected ${expected.bytes} bytes, ${expected.sha256.slice(0, 12)}…): the archive was changed or damaged`,
      );
    }
    onFile();
  }
}
