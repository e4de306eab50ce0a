import fc from 'fast-check';
import { z } from 'zod';
import type { AnyOperation } from '../../../server/http/operation.ts';
import { applyMutation, arbitraryFor, mutationArbitrary, wrongValue, type JsonSchema, type Pools } from './arbitraries.ts';

/** One HTTP request of the fuzzer, exactly as sent (kept to reproduce a finding). */
export interface FuzzRequest {
  path: string;
  method: string;
  /** null: no content-type header at all. */
  contentType: string | null;
  body: string | Uint8Array<ArrayBuffer> | undefined;
  /** Which credentials go with it: the operation's own, or deliberately none/wrong ones. */
  credentials: 'own' | 'none' | 'wrong';
  /** What kind of request this is, for the histogram and reports. */
  kind: string;
}

export const inputSchemaOf = (op: AnyOperation) => z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

const json = (op: AnyOperation, body: string, kind: string): FuzzRequest => ({
  path: op.path,
  method: 'POST',
  contentType: 'application/json',
  body,
  credentials: 'own',
  kind,
});

/**
 * Requests for one operation: valid inputs generated from its zod schema (through JSON Schema), the same with
 * 1-3 mutations, and malformed envelopes around a valid input.
 */
export function requestArbitrary(op: AnyOperation, pools: Pools): fc.Arbitrary<FuzzRequest> {
  const valid = arbitraryFor(inputSchemaOf(op), pools);
  const validRequest = valid.map((data) => json(op, JSON.stringify({ data }), 'valid'));
  const mutated = fc
    .tuple(valid, fc.array(mutationArbitrary, { minLength: 1, maxLength: 3 }))
    // one 10,000-item array at most, and last: a later mutation of its (shared) item would multiply by 10,000
    .map(([data, mutations]) => {
      const many = mutations.find((m) => m.kind === 'manyItems');
      return [data, [...mutations.filter((m) => m.kind !== 'manyItems'), ...(many ? [many] : [])]] as const;
    })
    .map(([data, mutations]) =>
      json(op, JSON.stringify({ data: mutations.reduce<unknown>(applyMutation, data) }), `mutated:${mutations.map((m) => m.kind).join('+')}`),
    );
  const envelope = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 60 }).map((text) => json(op, text, 'envelope:not-json')),
    valid.chain((data) => {
      const text = JSON.stringify({ data });
      return fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => json(op, text.slice(0, cut), 'envelope:truncated'));
    }),
    valid.map((data) => json(op, JSON.stringify({ input: data }), 'envelope:no-data')),
    fc.constantFrom('{}', '[]', 'null', '"data"', '42', 'true', '').map((text) => json(op, text, 'envelope:not-an-object')),
    fc
      .tuple(
        valid,
        fc.string({ maxLength: 8 }).filter((k) => k !== 'data'),
      )
      .map(([data, key]) => json(op, JSON.stringify({ data, [key]: 1 }), 'envelope:extra-top-level-key')),
    wrongValue.map((data) => json(op, JSON.stringify({ data }), 'envelope:data-wrong-type')),
    valid.map((data) => json(op, `{"data":${JSON.stringify(data)},"data":{"__proto__":{"polluted":1}}}`, 'envelope:duplicate-data')),
    valid.map((data) => json(op, '\uFEFF' + JSON.stringify({ data }), 'envelope:bom')),
    fc
      .tuple(
        valid,
        fc.constantFrom<string | null>(
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          null,
          'application/jsonx',
          'APPLICATION/JSON; charset=utf-8',
        ),
      )
      .map(([data, contentType]) => ({
        ...json(op, JSON.stringify({ data }), 'envelope:content-type'),
        contentType,
        body: new TextEncoder().encode(JSON.stringify({ data })),
      })),
    fc.tuple(valid, fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD')).map(([data, method]) => ({
      ...json(op, JSON.stringify({ data }), 'envelope:method'),
      method,
      body: method === 'GET' || method === 'HEAD' ? undefined : JSON.stringify({ data }),
    })),
    // bytes that are not UTF-8 inside a JSON string
    valid.map((data) => {
      const bytes = new TextEncoder().encode(JSON.stringify({ data, x: 'PLACEHOLDER' }));
      const text = new TextDecoder().decode(bytes);
      const at = text.indexOf('PLACEHOLDER');
      const broken = new Uint8Array(bytes);
      broken.set([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf8, 0x88, 0x80, 0x80], at);
      return { ...json(op, '', 'envelope:invalid-utf8'), body: broken };
    }),
    valid.map((data) => ({ ...json(op, JSON.stringify({ data }), 'credentials:none'), credentials: 'none' as const })),
    valid.map((data) => ({ ...json(op, JSON.stringify({ data }), 'credentials:wrong'), credentials: 'wrong' as const })),
  );
  return fc.oneof({ arbitrary: validRequest, weight: 4 }, { arbitrary: mutated, weight: 5 }, { arbitrary: envelope, weight: 2 });
}

/**
 * Sends a request, and once more if its connection closed without an answer: a keep-alive socket the server
 * closed as idle just as this process reused it (the usual keep-alive race: the sweeps pause between rounds), or a
 * body over the limit refused before the client finished writing it (EPIPE). Each drop is told to `onDrop` (the
 * second with `again`); undefined when the request was dropped twice.
 */
export async function sendOnceMore<T>(send: () => Promise<T>, onDrop: (cause: string, again: boolean) => void): Promise<T | undefined> {
  for (const again of [false, true]) {
    try {
      return await send();
    } catch (error) {
      onDrop(error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error), again);
    }
  }
  return undefined;
}
