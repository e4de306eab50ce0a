import fc from 'fast-check';

/** The part of JSON Schema (draft 2020-12) that `z.toJSONSchema` writes for the operations' inputs. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
}

/** Known ids by field name (`documentIds` items use `documentId`): generated requests then reach real rows. */
export type Pools = Record<string, readonly string[]>;

// Valid values stay small: size is the mutations' business.
const MAX_STRING = 24;
const MAX_ITEMS = 4;

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? MAX_STRING, MAX_STRING));
  const fits = (s: string) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  switch (schema.format) {
    case 'email':
      return fc.emailAddress().filter(fits);
    case 'uri':
      return fc.webUrl().filter(fits);
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  }
  return fc.string({ minLength, maxLength });
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-6) : -1e6);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-6) : 1e6);
  if (integer) return fc.integer({ min: Math.ceil(Math.max(min, Number.MIN_SAFE_INTEGER)), max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)) });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

const singular = (name: string) => (name.endsWith('s') ? name.slice(0, -1) : name);

/** Values that the schema accepts (as far as JSON Schema says: zod refinements are not in it), from known ids where they fit. */
export function arbitraryFor(schema: JsonSchema, pools: Pools, name = ''): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf ?? schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf)!.map((s) => arbitraryFor(s, pools, name)));
  if (schema.allOf?.length) return arbitraryFor(Object.assign({}, ...schema.allOf) as JsonSchema, pools, name);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      const generated = stringArbitrary(schema);
      const known = pools[name];
      return known?.length ? fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: generated, weight: 1 }) : generated;
    }
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? MAX_ITEMS, MAX_ITEMS));
      return fc.array(arbitraryFor(schema.items ?? {}, pools, singular(name)), { minLength, maxLength });
    }
    case 'object': {
      const properties = schema.properties ?? {};
      const record = fc.record(Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, arbitraryFor(s, pools, key)])), {
        requiredKeys: (schema.required ?? []).filter((k) => k in properties),
      });
      const extra = schema.additionalProperties;
      if (extra && typeof extra === 'object' && Object.keys(properties).length === 0) {
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), arbitraryFor(extra, pools), { maxKeys: 3 });
      }
      return record;
    }
    default:
      // z.unknown() and friends: any JSON
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Strings that have broken parsers, databases and renderers. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\uD800', // lone high surrogate
  '\uDFFF', // lone low surrogate
  'a\uD83D', // an emoji cut in half
  '\uD83D\uDE00'.repeat(50),
  '\u202Eevil\u202C',
  '\u200B\u200D\uFEFF',
  "'; drop table notifications; --",
  '%s%n%x',
  '../../../../etc/passwd',
  '<script>alert(1)</script>',
  '{"data":1}',
  '__proto__',
  'null',
  'e\u0301'.repeat(1000),
];

export const NASTY_NUMBERS = [-1, 0, -0, 0.5, 1e308, -1e308, 2 ** 53 + 1, -(2 ** 53) - 1, 2 ** 31, 1e-300, Number.MAX_SAFE_INTEGER];

/** A value of the wrong kind for anything: the field's type changes, or it holds garbage. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.constantFrom(...NASTY_NUMBERS),
  fc.constantFrom<unknown>(null, true, false, [], {}, [null], [1, 'two', { three: 3 }], { '': '' }, JSON.parse('{"__proto__":{"polluted":true}}') as unknown, {
    constructor: { prototype: { polluted: true } },
  }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }),
);

function nested(depth: number, leaf: unknown, asArray: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  return value;
}

export type Mutation =
  | { kind: 'drop'; at: number }
  | { kind: 'wrong'; at: number; value: unknown }
  | { kind: 'huge'; at: number; length: number; char: string }
  | { kind: 'deep'; at: number; depth: number; asArray: boolean }
  | { kind: 'extraKey'; at: number; key: string; value: unknown }
  | { kind: 'manyItems'; at: number; count: number; item: unknown };

export const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  { arbitrary: fc.record({ kind: fc.constant('wrong' as const), at: fc.nat(), value: wrongValue }), weight: 4 },
  // at most ~2.2 MB of UTF-8 each (a lone surrogate is 6 bytes escaped): three stay under the 10 MiB body limit,
  // which the limits test checks on its own
  fc.record({
    kind: fc.constant('huge' as const),
    at: fc.nat(),
    length: fc.constantFrom(1_000, 70_000, 300_000),
    char: fc.constantFrom('x', 'é', '\uD83D\uDE00'),
  }),
  // past a megabyte rarely: the limits test has the 5 MB and 11 MiB cases, and the fuzz must stay quick
  { arbitrary: fc.record({ kind: fc.constant('huge' as const), at: fc.nat(), length: fc.constant(1_100_000), char: fc.constant('x') }), weight: 1 },
  fc.record({ kind: fc.constant('huge' as const), at: fc.nat(), length: fc.constantFrom(1_000, 70_000, 300_000), char: fc.constant('\uD800') }),
  fc.record({ kind: fc.constant('deep' as const), at: fc.nat(), depth: fc.integer({ min: 10, max: 100 }), asArray: fc.boolean() }),
  fc.record({
    kind: fc.constant('extraKey' as const),
    at: fc.nat(),
    key: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString')),
    value: wrongValue,
  }),
  fc.record({ kind: fc.constant('manyItems' as const), at: fc.nat(), count: fc.constantFrom(1_001, 10_001), item: fc.oneof(fc.constant('doc-1'), wrongValue) }),
);

type Container = Record<string, unknown> | unknown[];

/** Every object or array inside `root` (root first), with the key that holds it. */
function containers(root: unknown): Container[] {
  const found: Container[] = [];
  const visit = (value: unknown) => {
    if (value === null || typeof value !== 'object') return;
    found.push(value as Container);
    for (const child of Object.values(value)) visit(child);
  };
  visit(root);
  return found;
}

/** Applies a mutation to a copy of `value` at one of its fields (chosen by `at`); the root itself may be replaced. */
export function applyMutation(value: unknown, mutation: Mutation): unknown {
  const root = structuredClone(value);
  const targets = containers(root);
  const target = targets[mutation.at % Math.max(targets.length, 1)];
  const keys = target ? Object.keys(target) : [];
  const key = keys[mutation.at % Math.max(keys.length, 1)];
  const set = (v: unknown) => {
    if (!target) return v;
    if (Array.isArray(target)) target[key === undefined ? 0 : Number(key)] = v;
    else target[key ?? 'field'] = v;
    return root;
  };
  switch (mutation.kind) {
    case 'drop':
      if (target && key !== undefined) {
        if (Array.isArray(target)) target.splice(Number(key), 1);
        else delete target[key];
      }
      return root;
    case 'wrong':
      return set(mutation.value);
    case 'huge':
      return set(mutation.char.repeat(Math.ceil(mutation.length / mutation.char.length)));
    case 'deep':
      return set(nested(mutation.depth, 'leaf', mutation.asArray));
    case 'extraKey':
      if (target && !Array.isArray(target))
        Object.defineProperty(target, mutation.key, { value: mutation.value, enumerable: true, configurable: true, writable: true });
      return root;
    case 'manyItems':
      return set(Array.from({ length: mutation.count }, () => mutation.item));
  }
}
