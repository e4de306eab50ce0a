// The content digest the compaction's check compares by (server/crdt/digest.ts, issue 42): it reads each root type as
// its toJSON() does, without toJSON's recursion, which throws on 30,000 nested XML elements (so such a document was
// taken for corrupted and never compacted). Two documents get the same digest exactly when their toJSON() agree.
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { contentDigest, type Expected, reproducesNow, rootKinds } from '../../server/crdt/digest.ts';
import { nestXml } from '../helpers/yjs.ts';

const expectedOf = (doc: Y.Doc): Expected => {
  const kinds = rootKinds(doc);
  return { kinds, digest: contentDigest(doc, kinds), stateVector: Y.encodeStateVector(doc) };
};
const digest = (doc: Y.Doc) => contentDigest(doc, rootKinds(doc));
/** toJSON of every root, map keys sorted (a map's keys have no order: the digest sorts them too). */
const sorted = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sorted)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, x]) => [k, sorted(x)]),
        )
      : v;
const json = (doc: Y.Doc) => JSON.stringify([...doc.share.keys()].sort().map((name) => [name, sorted(doc.share.get(name)?.toJSON())]));

/** Documents of every kind of root and nesting, each built by `build` on a fresh document. */
const shapes: Record<string, (doc: Y.Doc) => void> = {
  text: (doc) => doc.getText('t').insert(0, 'hello'),
  textOther: (doc) => doc.getText('t').insert(0, 'hellO'),
  textFormatted: (doc) => doc.getText('t').insert(0, 'hello', { bold: true }), // Y.Text's toJSON reads no formats
  map: (doc) => {
    const map = doc.getMap('m');
    map.set('a', 1);
    map.set('__proto__', { x: [1, 2] });
    const inner = new Y.Array();
    inner.push(['x', { y: null }]);
    map.set('list', inner);
  },
  mapOtherOrder: (doc) => {
    const map = doc.getMap('m');
    const inner = new Y.Array();
    map.set('list', inner);
    inner.push(['x', { y: null }]);
    map.set('__proto__', { x: [1, 2] });
    map.set('a', 1);
  },
  mapOtherValue: (doc) => {
    const map = doc.getMap('m');
    map.set('a', 2);
    map.set('__proto__', { x: [1, 3] });
    const inner = new Y.Array();
    inner.push(['x', { y: null }]);
    map.set('list', inner);
  },
  xml: (doc) => {
    const p = new Y.XmlElement('p');
    p.setAttribute('class', 'a');
    const text = new Y.XmlText();
    p.insert(0, [text]);
    doc.getXmlFragment('x').insert(0, [p]);
    text.insert(0, 'bold', { strong: {} });
    text.insert(4, ' plain');
  },
  xmlOtherMark: (doc) => {
    const p = new Y.XmlElement('p');
    p.setAttribute('class', 'a');
    const text = new Y.XmlText();
    p.insert(0, [text]);
    doc.getXmlFragment('x').insert(0, [p]);
    text.insert(0, 'bold', { em: {} });
    text.insert(4, ' plain');
  },
  xmlOtherAttribute: (doc) => {
    const p = new Y.XmlElement('p');
    p.setAttribute('class', 'b');
    const text = new Y.XmlText();
    p.insert(0, [text]);
    doc.getXmlFragment('x').insert(0, [p]);
    text.insert(0, 'bold', { strong: {} });
    text.insert(4, ' plain');
  },
  deleted: (doc) => {
    doc.getText('t').insert(0, 'hello world');
    doc.getText('t').delete(5, 6);
  },
};
const built = Object.fromEntries(Object.entries(shapes).map(([name, build]) => [name, ((doc) => (build(doc), doc))(new Y.Doc())]));

describe('contentDigest', () => {
  it('agrees with toJSON: the same digest exactly when the documents read alike', () => {
    for (const [a, docA] of Object.entries(built))
      for (const [b, docB] of Object.entries(built)) {
        expect({ a, b, same: digest(docA) === digest(docB) }).toEqual({ a, b, same: json(docA) === json(docB) });
      }
    // and the cases above differ where they should, and agree where only the way they were written differs
    expect(digest(built.map!)).toBe(digest(built.mapOtherOrder!));
    expect(digest(built.text!)).toBe(digest(built.textFormatted!));
    expect(digest(built.text!)).toBe(digest(built.deleted!));
    // a key "__proto__" is content too, though toJSON() loses it (it sets the object's prototype)
    const proto = (value: number) => ((doc) => (doc.getMap('m').set('__proto__', value), doc))(new Y.Doc());
    expect(digest(proto(1))).not.toBe(digest(proto(2)));
    for (const other of ['textOther', 'mapOtherValue', 'xmlOtherMark', 'xmlOtherAttribute'])
      expect(digest(built[other]!)).not.toBe(digest(built[other.replace(/Other.*/, '')]!));
  });

  it('reads 30,000 nested XML elements, where toJSON throws', () => {
    const doc = nestXml(new Y.Doc(), 'default', 30_000);
    expect(() => doc.getXmlFragment('default').toJSON()).toThrow(RangeError);
    const other = nestXml(new Y.Doc(), 'default', 29_999);
    expect(digest(doc)).not.toBe(digest(other));
    expect(digest(doc)).toBe(digest(nestXml(new Y.Doc(), 'default', 30_000)));
  });
});

describe('reproducesNow', () => {
  it("holds for a document's own snapshot, however deep", () => {
    for (const doc of [...Object.values(built), nestXml(new Y.Doc(), 'default', 30_000)]) {
      expect(reproducesNow(Y.encodeStateAsUpdate(doc), expectedOf(doc))).toBe(true);
    }
  });

  it('fails for a snapshot that lacks an update, reads otherwise, or cannot be read', () => {
    const doc = built.xml!;
    const expected = expectedOf(doc);
    // another document of the same state vector's length but other content
    expect(reproducesNow(Y.encodeStateAsUpdate(built.xmlOtherMark!), expected)).toBe(false);
    // the same document missing its last update
    const earlier = new Y.Doc();
    const updates: Uint8Array[] = [];
    earlier.on('update', (u: Uint8Array) => updates.push(u));
    shapes.xml!(earlier);
    const partial = new Y.Doc();
    for (const u of updates.slice(0, -1)) Y.applyUpdate(partial, u);
    expect(reproducesNow(Y.encodeStateAsUpdate(partial), expectedOf(earlier))).toBe(false);
    expect(reproducesNow(Y.encodeStateAsUpdate(earlier), expectedOf(earlier))).toBe(true);
    // bytes that are no update
    expect(reproducesNow(new Uint8Array([1, 2, 3, 250, 255]), expected)).toBe(false);
  });
});
