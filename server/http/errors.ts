// How an error is answered over HTTP: the status table of the callable-function convention (DESIGN §1) and the
// envelope. The errors themselves are server/errors.ts's.
import type { ApiError, ErrorStatus } from '../errors.ts';

export const STATUS_TO_HTTP: Readonly<Record<ErrorStatus | 'OK', number>> = {
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
};

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
