import type { LogFormat, LogLevel } from './config.ts';

const RANK: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  /** Whether lines of this level are written (to skip building fields on a hot path). */
  enabled(level: Exclude<LogLevel, 'silent'>): boolean;
}

/** Every control character: C0, DEL, C1, and the line and paragraph separators (line breaks to JavaScript and many viewers). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** What JSON.stringify leaves unescaped of CONTROL (in its output they can only stand inside a string). */
const BEYOND_JSON = /[\u007f-\u009f\u2028\u2029]/g;
const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with each control character written as an escape (`\n`, `\r`, `\t`, else `\uXXXX`): always one line. */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => SHORT[c] ?? unicodeEscape(c));
}

const bigintAsDigits = (_key: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);

/** The entry as JSON; a field that cannot be written as JSON (a cycle, a failing toJSON) as its String(). */
function jsonLine(entry: Record<string, unknown>): string {
  try {
    return JSON.stringify(entry, bigintAsDigits);
  } catch {
    // field by field: only the field that cannot be written is replaced by its String()
    const safe = (v: unknown) => {
      try {
        const json = JSON.stringify(v, bigintAsDigits);
        return json === undefined ? undefined : (JSON.parse(json) as unknown);
      } catch {
        return String(v);
      }
    };
    return JSON.stringify(Object.fromEntries(Object.entries(entry).map(([k, v]) => [k, safe(v)])));
  }
}

const escapeBeyondJson = (json: string) => json.replace(BEYOND_JSON, unicodeEscape);

/** JSON of a field's value that never throws (a bigint as its digits, a cycle or a failing toJSON as String()). */
function stringify(value: unknown): string {
  try {
    return JSON.stringify(value, bigintAsDigits) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * One line per event on stderr: `time level message key=value…`, or with `json` one object a line
 * (`{"time":…,"level":…,"msg":…, …fields}`: a call's lines carry its `requestId`, as its answer's `x-request-id`
 * does). Never pass secrets in `fields`.
 *
 * A message or value may hold what a client sent (a room id, a header, an error's text): every control character
 * (C0, DEL, C1, U+2028/U+2029) is written escaped (`\n`, `\u0085`…) in both formats, so that an event is always one
 * line and no client can write a line of its own making (issue 42).
 */
export function createLogger(level: LogLevel, format: LogFormat = 'text', write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Logger {
  const limit = RANK[level];
  const emit = (at: Exclude<LogLevel, 'silent'>, message: string, fields?: Record<string, unknown>) => {
    if (RANK[at] > limit) return;
    if (format === 'json') {
      const time = new Date().toISOString();
      const entry: Record<string, unknown> = { time, level: at, msg: message, ...fields };
      // the fixed keys first, and kept: a field named like one of them does not overwrite it
      entry.time = time;
      entry.level = at;
      entry.msg = message;
      // JSON.stringify escapes C0 itself; DEL, C1 and the two Unicode line separators it leaves as they are
      write(escapeBeyondJson(jsonLine(entry)));
      return;
    }
    let line = `${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} ${escapeControl(message)}`;
    if (fields) {
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined) continue;
        line += ` ${escapeControl(key)}=${escapeControl(typeof value === 'string' ? value : stringify(value))}`;
      }
    }
    write(line);
  };
  return {
    error: (m, f) => emit('error', m, f),
    warn: (m, f) => emit('warn', m, f),
    info: (m, f) => emit('info', m, f),
    debug: (m, f) => emit('debug', m, f),
    enabled: (at) => RANK[at] <= limit,
  };
}

/** The longest SQL text a fatal error's line carries. */
const QUERY_CHARS = 300;

/**
 * What a person needs of an error that ends a command or a start: its message followed by its causes' (drizzle's
 * "Failed query: … params: …" becomes "a database query failed: " and PostgreSQL's own words, such as `permission
 * denied for table …`), and fields for the line: the failed query's SQL (shortened; never its parameters, which
 * may hold secrets) and the first error code found (a SQLSTATE, ECONNREFUSED…), with PostgreSQL's detail and hint.
 */
export function describeError(error: unknown): { message: string; fields: Record<string, unknown> } {
  const fields: Record<string, unknown> = {};
  let message = '';
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    if (!(current instanceof Error)) {
      message = joinCause(message, String(current));
      break;
    }
    const e = current as Error & { query?: unknown; params?: unknown; code?: unknown; detail?: unknown; hint?: unknown };
    if (typeof e.query === 'string' && 'params' in e) {
      message = joinCause(message, 'a database query failed');
      fields.query ??= e.query.length > QUERY_CHARS ? `${e.query.slice(0, QUERY_CHARS)}…` : e.query;
    } else message = joinCause(message, e.message || e.name);
    if ((typeof e.code === 'string' || typeof e.code === 'number') && fields.code === undefined) fields.code = e.code;
    if (typeof e.detail === 'string' && e.detail) fields.detail ??= e.detail;
    if (typeof e.hint === 'string' && e.hint) fields.hint ??= e.hint;
    current = e.cause;
  }
  return { message: message || 'unknown error', fields };
}

/** `outer: inner`, unless the outer message already says the inner one (a wrapper that quotes its cause). */
const joinCause = (outer: string, inner: string) => (!outer ? inner : !inner || outer.includes(inner) ? outer : `${outer}: ${inner}`);
