/**
 * The one error type of the API. Services and operations throw it with a canonical status; the HTTP layer
 * maps the status to a code in one place (`httpStatusOf`) and writes `{ error: { status, message, details? } }`.
 */
export const STATUS_TO_HTTP = {
  OK: 200,
  CANCELLED: 499,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  RESOURCE_EXHAUSTED: 429,
  FAILED_PRECONDITION: 400,
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
} as const;

export type ErrorStatus = Exclude<keyof typeof STATUS_TO_HTTP, 'OK'>;

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

export function httpStatusOf(status: ErrorStatus): number {
  return STATUS_TO_HTTP[status];
}

export interface ErrorBody {
  error: { status: ErrorStatus; message: string; details?: unknown };
}

export function errorBody(error: ApiError): ErrorBody {
  return {
    error: {
      status: error.status,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}

/** What a client sees for anything that was not a deliberate ApiError (hosted wording, no stack, no original text). */
export const INTERNAL_ERROR: ErrorBody = { error: { message: 'INTERNAL', status: 'INTERNAL' } };

export const invalid = (message: string, details?: unknown) => new ApiError('INVALID_ARGUMENT', message, details);
export const notFound = (message: string) => new ApiError('NOT_FOUND', message);
export const permissionDenied = (message: string) => new ApiError('PERMISSION_DENIED', message);
export const failedPrecondition = (message: string) => new ApiError('FAILED_PRECONDITION', message);
export const resourceExhausted = (message: string) => new ApiError('RESOURCE_EXHAUSTED', message);
export const alreadyExists = (message: string) => new ApiError('ALREADY_EXISTS', message);
