// A large Yjs update is applied in slices (server/crdt/slices.ts, issue 42): the slices, applied one after another,
// must give the document the whole update gives, each integrating at once (nothing left in Yjs's pending set
// between them), whatever the clients, their interleaving, deletions and nesting.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { sliceUpdate } from '../../server/crdt/slices.ts';
import { nestXml } from '../helpers/yjs.ts';

type Edit =
  | { kind: 'text'; client: number; at: number; text: string }
  | { kind: 'cut'; client: number; at: number; length: number }
  | { kind: 'map'; client: number; key: string; value: number }
  | { kind: 'xml'; client: number; at: number; depth: number }
  | { kind: 'sync'; from: number; to: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('text' as const), client: fc.nat(2), at: fc.nat(40), text: fc.string({ minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('cut' as const), client: fc.nat(2), at: fc.nat(40), length: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constant('map' as const), client: fc.nat(2), key: fc.constantFrom('a', 'b', 'c'), value: fc.integer() }),
  fc.record({ kind: fc.constant('xml' as const), client: fc.nat(2), at: fc.nat(5), depth: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('sync' as const), from: fc.nat(2), to: fc.nat(2) }),
);

/** Three clients editing text, a map and nested XML, syncing now and then: the state of all of them merged. */
function play(edits: Edit[]): { whole: Y.Doc; partial: Y.Doc } {
  const docs = [1, 2, 3].map((client) => {
    const doc = new Y.Doc();
    doc.clientID = client * 1000;
    return doc;
  });
  let partial: Uint8Array | undefined;
  edits.forEach((e, index) => {
    if (e.kind === 'sync') {
      const from = docs[e.from] as Y.Doc;
      const to = docs[e.to] as Y.Doc;
      Y.applyUpdate(to, Y.encodeStateAsUpdate(from, Y.encodeStateVector(to)));
      return;
    }
    const doc = docs[e.client] as Y.Doc;
    if (e.kind === 'text') {
      const text = doc.getText('t');
      text.insert(Math.min(e.at, text.length), e.text);
    } else if (e.kind === 'cut') {
      const text = doc.getText('t');
      if (text.length > 0) text.delete(Math.min(e.at, text.length - 1), Math.min(e.length, text.length - Math.min(e.at, text.length - 1)));
    } else if (e.kind === 'map') doc.getMap('m').set(e.key, e.value);
    else {
      const fragment = doc.getXmlFragment('x');
      let parent: Y.XmlFragment | Y.XmlElement = fragment;
      for (let d = 0; d < e.depth; d++) {
        const child = new Y.XmlElement(`e${d}`);
        parent.insert(Math.min(d === 0 ? e.at : 0, parent.length), [child]);
        parent = child;
      }
    }
    if (index === Math.floor(edits.length / 2)) partial = Y.encodeStateAsUpdate(docs[0] as Y.Doc);
  });
  const whole = new Y.Doc();
  for (const doc of docs) Y.applyUpdate(whole, Y.encodeStateAsUpdate(doc));
  const start = new Y.Doc();
  if (partial) Y.applyUpdate(start, partial);
  return { whole, partial: start };
}

/** The content, map keys sorted (the order they were first met in differs with the order updates came in). */
const contentOf = (doc: Y.Doc) =>
  JSON.stringify([doc.getText('t').toString(), Object.entries(doc.getMap('m').toJSON()).sort(), doc.getXmlFragment('x').toString()]);

describe('sliceUpdate', () => {
  it('gives, slice by slice, the document the whole update gives; each slice integrates at once', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 7 }), (edits, maxStructs) => {
        const { whole, partial } = play(edits);
        const update = Y.encodeStateAsUpdate(whole);
        for (const target of [new Y.Doc(), partial]) {
          // the update as a client sends it in sync step 2: what the target lacks
          const sent = Y.encodeStateAsUpdate(whole, Y.encodeStateVector(target));
          for (const slice of sliceUpdate(sent, maxStructs)) {
            Y.applyUpdate(target, slice);
            expect(target.store.pendingStructs).toBeNull();
          }
          expect(target.store.pendingDs).toBeNull();
          expect(contentOf(target)).toBe(contentOf(whole));
          expect(Y.encodeStateVector(target)).toEqual(Y.encodeStateVector(whole));
          expect(Y.equalSnapshots(Y.snapshot(target), Y.snapshot(whole))).toBe(true);
        }
        expect(sliceUpdate(update, 1_000_000)).toEqual([update]);
      }),
      { numRuns: 300 },
    );
  });

  it('cuts 30,000 nested XML elements into slices of at most the given size', () => {
    const doc = nestXml(new Y.Doc(), 'default', 30_000);
    const slices = sliceUpdate(Y.encodeStateAsUpdate(doc), 2_000);
    expect(slices.length).toBe(15);
    const copy = new Y.Doc();
    for (const slice of slices) {
      expect(Y.decodeUpdate(slice).structs.length).toBeLessThanOrEqual(2_000);
      Y.applyUpdate(copy, slice);
      expect(copy.store.pendingStructs).toBeNull();
    }
    expect(Y.encodeStateVector(copy)).toEqual(Y.encodeStateVector(doc));
  });

  it('throws for an update Yjs cannot read, as applying it would', () => {
    expect(() => sliceUpdate(new Uint8Array([200, 1, 2, 3]), 10)).toThrow();
  });
});
