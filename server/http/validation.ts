import type { z } from 'zod';
import { ApiError } from '../errors.ts';

type Issue = z.core.$ZodIssue;

/** `users[0].email` from `['users', 0, 'email']`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || 'data';
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  map: 'an object',
  array: 'an array',
  bigint: 'an integer',
  null: 'null',
};

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** One readable sentence for one zod issue, always naming the field, ending with a period. */
export function issueMessage(issue: Issue): string {
  const field = formatPath(issue.path);
  if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) return `${field} is required.`;
  switch (issue.code) {
    case 'invalid_type': {
      const expected = ARTICLE[issue.expected] ?? issue.expected;
      return `${field} must be ${expected}, not ${describeType(issue.input)}.`;
    }
    case 'invalid_value':
      return `${field} must be one of: ${issue.values.map((v) => String(v)).join(', ')}.`;
    case 'invalid_format':
      return issue.format === 'email' ? `${field} must be a valid email address.` : `${field} ${withoutPeriod(issue.message)}.`;
    case 'too_small':
      if (issue.origin === 'string' && issue.minimum === 1) return `${field} must not be empty.`;
      if (issue.origin === 'array') return `${field} must have at least ${issue.minimum} item(s).`;
      if (issue.origin === 'string') return `${field} must be at least ${issue.minimum} characters long.`;
      return issue.inclusive === false ? `${field} must be greater than ${issue.minimum}.` : `${field} must be at least ${issue.minimum}.`;
    case 'too_big':
      if (issue.origin === 'array') return `${field} must have at most ${issue.maximum} item(s).`;
      if (issue.origin === 'string') return `${field} must be at most ${issue.maximum} characters long.`;
      return issue.inclusive === false ? `${field} must be less than ${issue.maximum}.` : `${field} must be at most ${issue.maximum}.`;
    case 'unrecognized_keys':
      return `${field} has unknown field(s): ${issue.keys.join(', ')}.`;
    case 'invalid_union':
      return `${field} has an invalid value.`;
    default:
      return `${field} ${withoutPeriod(issue.message)}.`;
  }
}

function withoutPeriod(message: string): string {
  const lowered = message.charAt(0).toLowerCase() + message.slice(1);
  return lowered.endsWith('.') ? lowered.slice(0, -1) : lowered;
}

/**
 * Parses `data` with the operation's schema; the first problem becomes an INVALID_ARGUMENT naming the field.
 * Valid input is parsed without options: zod 4's `reportInput` (the messages need the offending value) made
 * every parse ~35x slower (0.76 vs 0.02 µs for ping's empty object), so only a failed parse is repeated with it.
 */
const PARSE_OPTIONS = { reportInput: true } as const;

export function parseInput<S extends z.ZodType>(schema: S, data: unknown, missingMessages?: Readonly<Record<string, string>>): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issue = schema.safeParse(data, { ...PARSE_OPTIONS }).error?.issues[0];
  if (!issue) throw new ApiError('INVALID_ARGUMENT', 'data is invalid.');
  const own = missingMessages && issue.path.length === 1 && issue.input === undefined ? missingMessages[String(issue.path[0])] : undefined;
  throw new ApiError('INVALID_ARGUMENT', own ?? issueMessage(issue));
}

/**
 * The escapes through which a JSON text can carry what no engine stores alike: U+0000 (PostgreSQL refuses it in text
 * and jsonb; SQLite stores it) and a UTF-16 surrogate, which may be lone (PostgreSQL's driver sends U+FFFD, SQLite's
 * three). A raw NUL is not valid JSON and UTF-8 cannot carry a lone surrogate, so a text without these escapes holds
 * neither and is not walked.
 */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/** Where in `value` the first string or field name holding U+0000 or a lone surrogate is, and which it is. */
function unstorableIn(value: unknown, path: PropertyKey[]): { path: PropertyKey[]; nul: boolean; key: boolean } | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return { path, nul: true, key: false };
    return value.isWellFormed() ? undefined : { path, nul: false, key: false };
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableIn(value[i], [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return { path, nul: true, key: true };
    if (!key.isWellFormed()) return { path, nul: false, key: true };
    const found = unstorableIn(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * Refuses a request whose data holds, in any string or field name, U+0000 or a lone UTF-16 surrogate, as
 * INVALID_ARGUMENT naming the field (issue 43, docs/decisions.md "Text both engines store alike"): PostgreSQL cannot
 * store the one and stores the other unlike SQLite, so both engines refuse both, before any handler runs. `text` is
 * the body the data was parsed from: only a body with such an escape is walked.
 */
export function refuseUnstorableText(data: unknown, text: string): void {
  if (!SUSPECT_ESCAPE.test(text)) return;
  const found = unstorableIn(data, []);
  if (!found) return;
  const field = formatPath(found.path);
  if (found.key)
    throw new ApiError(
      'INVALID_ARGUMENT',
      `${field} has a field name that ${found.nul ? 'contains the NUL character (U+0000)' : 'is not well-formed Unicode text'}.`,
    );
  throw new ApiError('INVALID_ARGUMENT', found.nul ? `${field} must not contain the NUL character (U+0000).` : `${field} must be well-formed Unicode text.`);
}
