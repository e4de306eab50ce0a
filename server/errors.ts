/**
 * The one error type of Hearth's services and operations: a canonical status (the callable-function statuses)
 * and a message for the caller. Services and the storage layer's callers throw it; the HTTP layer maps the status
 * to a code in one place (http/errors.ts) and writes `{ error: { status, message, details? } }`.
 */
export const ERROR_STATUSES = [
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
] as const;

export type ErrorStatus = (typeof ERROR_STATUSES)[number];

export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const invalid = (message: string, details?: unknown) => new ApiError('INVALID_ARGUMENT', message, details);
export const notFound = (message: string) => new ApiError('NOT_FOUND', message);
export const permissionDenied = (message: string) => new ApiError('PERMISSION_DENIED', message);
export const failedPrecondition = (message: string) => new ApiError('FAILED_PRECONDITION', message);
export const resourceExhausted = (message: string) => new ApiError('RESOURCE_EXHAUSTED', message);
export const alreadyExists = (message: string) => new ApiError('ALREADY_EXISTS', message);

/**
 * A write the database refused because a unique key is taken (issue 43): another unit of work created the same row
 * first. The storage engines throw it in place of their driver's error (PostgreSQL 23505 once its retries are spent,
 * SQLite's SQLITE_CONSTRAINT_UNIQUE / PRIMARYKEY), and the HTTP layer answers ALREADY_EXISTS, never INTERNAL. Creates
 * that may race are written not to get there (`INSERT … ON CONFLICT DO NOTHING`, then a read); this is the net.
 */
export class StorageConflict extends Error {
  constructor(cause: unknown) {
    super('a unique key of the row is taken', { cause });
    this.name = 'StorageConflict';
  }
}

/**
 * The database's connection was lost while a call used it (PostgreSQL restarted or stopped, its backend terminated,
 * the network reset): answered UNAVAILABLE, a call to try again, not a fault of the server's (INTERNAL).
 */
export class StorageUnavailable extends Error {
  constructor(cause: unknown) {
    super('the connection to the database was lost', { cause });
    this.name = 'StorageUnavailable';
  }
}

/**
 * Whether a unit of work failed because PostgreSQL refused it (a serialization failure, a deadlock, or a repository's
 * optimistic check, ConcurrentChange, all SQLSTATE 40001 / 40P01) as many times as the engine runs one again: other
 * calls kept changing what it read. The HTTP layer answers it ABORTED, a call to try again, not a fault of the
 * server's (INTERNAL). The error is looked for along its causes (drizzle wraps the driver's).
 */
export function refusedByContention(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === '40001' || code === '40P01') return true;
  }
  return false;
}
