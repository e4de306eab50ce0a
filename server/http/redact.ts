// Redaction by the schemas' own marks (shared/schemas/common.ts `secret`): a request body is walked along the
// operation's input schema, an answer along its `output`, and every value at a marked field is replaced. No list
// of key names: a field called `token` that is not a secret (a page token) stays readable, and a secret under
// any name is hidden once its schema says so.
import type { z } from 'zod';
import { isSecret } from '../../shared/schemas/common.ts';
import type { AnyOperation } from './operation.ts';

export const REDACTED = '[redacted]';

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Whether a schema marks any field secret, anywhere inside it (checked once per schema). */
const marked = new WeakMap<z.ZodType, boolean>();
export function hasSecrets(schema: z.ZodType, seen = new Set<z.ZodType>()): boolean {
  const known = marked.get(schema);
  if (known !== undefined) return known;
  if (seen.has(schema)) return false;
  seen.add(schema);
  const result = isSecret(schema) || children(schema).some((child) => hasSecrets(child, seen));
  marked.set(schema, result);
  return result;
}

function children(schema: z.ZodType): z.ZodType[] {
  const def = defOf(schema);
  const out: z.ZodType[] = [];
  for (const child of [def.innerType, def.in, def.catchall, def.element, def.rest, def.valueType, def.left, def.right]) if (child) out.push(child);
  if (def.shape) out.push(...Object.values(def.shape));
  if (def.items) out.push(...def.items);
  if (def.options) out.push(...def.options);
  if (def.type === 'lazy' && def.getter) out.push(def.getter());
  return out;
}

/** `value` with every value at a field `schema` marks secret replaced by "[redacted]"; the rest as it was. */
export function redact(schema: z.ZodType, value: unknown): unknown {
  if (value === undefined || !hasSecrets(schema)) return value;
  if (isSecret(schema)) return value === null ? null : REDACTED;
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      if (!isObject(value)) return value;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const field = Object.hasOwn(def.shape ?? {}, key) ? def.shape?.[key] : def.catchall;
        Object.defineProperty(out, key, { value: field ? redact(field, value[key]) : value[key], enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'array':
      return Array.isArray(value) && def.element ? value.map((item) => redact(def.element as z.ZodType, item)) : value;
    case 'tuple':
      return Array.isArray(value)
        ? value.map((item, i) => {
            const at = def.items?.[i] ?? def.rest;
            return at ? redact(at, item) : item;
          })
        : value;
    case 'record': {
      if (!isObject(value) || !def.valueType) return value;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value))
        Object.defineProperty(out, key, { value: redact(def.valueType, value[key]), enumerable: true, writable: true, configurable: true });
      return out;
    }
    case 'union':
      // the marks of every option apply: redaction only ever hides, so applying one option after another is safe
      return (def.options ?? []).reduce<unknown>((current, option) => redact(option, current), value);
    case 'intersection':
      return redact(def.right as z.ZodType, redact(def.left as z.ZodType, value));
    case 'pipe':
      return redact(def.in as z.ZodType, value);
    case 'lazy':
      return def.getter ? redact(def.getter(), value) : value;
    default:
      // optional, nullable, default, readonly, catch, …: what they wrap
      return def.innerType ? redact(def.innerType, value) : value;
  }
}

/** A request body's JSON text, its `data` redacted by the operation's input schema; text that is not JSON as sent. */
export function redactRequest(op: AnyOperation, text: string): string {
  if (!hasSecrets(op.input)) return text;
  try {
    const body = JSON.parse(text) as unknown;
    if (!isObject(body) || !('data' in body)) return text;
    return JSON.stringify({ ...body, data: redact(op.input, body.data) });
  } catch {
    return text;
  }
}

/** An answer's JSON text, its data (classic envelope) or result (direct) redacted by the operation's `output`. */
export function redactAnswer(op: AnyOperation, text: string): string {
  if (!op.output || !hasSecrets(op.output)) return text;
  try {
    const body = JSON.parse(text) as { result?: unknown };
    if (!isObject(body) || !isObject(body.result)) return text;
    const result = op.envelope === 'classic' ? { ...body.result, data: redact(op.output, body.result.data) } : redact(op.output, body.result);
    return JSON.stringify({ ...body, result });
  } catch {
    return text;
  }
}
