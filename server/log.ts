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

/**
 * One line per event on stderr: `time level message key=value…`, or with `json` one object a line
 * (`{"time":…,"level":…,"msg":…, …fields}`: a call's lines carry its `requestId`, as its answer's `x-request-id`
 * does). Never pass secrets in `fields`.
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
      write(JSON.stringify(entry));
      return;
    }
    let line = `${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} ${message}`;
    if (fields) {
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined) continue;
        line += ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
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
