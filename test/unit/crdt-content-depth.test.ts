// The readers of CRDT content (server/crdt/content.ts, issue 42): the XML serializer walks without recursion and
// writes what Yjs's toString writes; a document nesting deeper than MAX_CONTENT_DEPTH answers FAILED_PRECONDITION
// where Yjs's own recursive readers overflow the stack; a map key "__proto__" is kept.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { checkData, contentDepth, MAX_CONTENT_DEPTH, readContent, writeContent, xmlString } from '../../server/crdt/content.ts';
import { ApiError } from '../../server/errors.ts';
import { nestXml } from '../helpers/yjs.ts';

/** A random XML tree as elements and texts (text with formats and attributes of any JSON-ish value). */
type Tree = { name: string; attrs: Array<[string, string | number | boolean]>; children: Tree[] } | { text: string; bold: boolean };
const tree: fc.Memo<Tree> = fc.memo((n) =>
  n <= 1
    ? fc.record({ text: fc.string({ maxLength: 8 }), bold: fc.boolean() })
    : fc.oneof(
        fc.record({ text: fc.string({ maxLength: 8 }), bold: fc.boolean() }),
        fc.record({
          name: fc.constantFrom('p', 'Heading', 'li', 'ul', 'x-y', 'IMG'),
          attrs: fc.array(
            fc.tuple(fc.constantFrom('b', 'a', 'Z', 'level', 'href', '10', '2'), fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean())),
            {
              maxLength: 3,
            },
          ),
          children: fc.array(tree(n - 1), { maxLength: 3 }),
        }),
      ),
);

function build(parent: Y.XmlFragment, nodes: Tree[]) {
  for (const node of nodes) {
    if ('text' in node) {
      const text = new Y.XmlText();
      parent.insert(parent.length, [text]);
      text.insert(0, node.text, node.bold ? { bold: true } : {});
    } else {
      const element = new Y.XmlElement(node.name);
      parent.insert(parent.length, [element]);
      for (const [key, value] of node.attrs) element.setAttribute(key, value as never);
      build(element, node.children);
    }
  }
}

/** A fragment whose elements nest `depth` deep, built in one transaction (one per level costs quadratic time). */
function deepXml(depth: number) {
  return nestXml(new Y.Doc(), 'default', depth);
}

const statusOf = (work: () => unknown) => {
  try {
    work();
    return 'OK';
  } catch (error) {
    return error instanceof ApiError ? `${error.status}: ${error.message}` : `thrown: ${String(error)}`;
  }
};

describe('the XML serializer', () => {
  it("writes what Yjs's toString writes, for any tree", () => {
    fc.assert(
      fc.property(fc.array(tree(5), { maxLength: 4 }), (nodes) => {
        const doc = new Y.Doc();
        const fragment = doc.getXmlFragment('default');
        build(fragment, nodes);
        expect(xmlString(fragment)).toBe(fragment.toString());
        expect(readContent(doc, 'xml', 'default')).toBe(fragment.toString());
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  it('writes content parsed from XML as Yjs does, deleted nodes left out', () => {
    const doc = new Y.Doc();
    writeContent(doc, 'xml', 'default', '<p class="a" id="x">Hello <b>w</b> &amp;</p><ul><li>1</li><li>2<img src="s"/></li></ul>');
    const fragment = doc.getXmlFragment('default');
    (fragment.get(1) as Y.XmlElement).delete(0, 1);
    expect(xmlString(fragment)).toBe(fragment.toString());
    expect(xmlString(fragment)).toBe('<p class="a" id="x">Hello <b>w</b> &</p><ul><li>2<img src="s"></img></li></ul>');
  });

  it('keeps an attribute named __proto__ (Yjs drops it)', () => {
    const doc = new Y.Doc();
    writeContent(doc, 'xml', 'default', '<p __proto__="x" b="y"></p>');
    expect(readContent(doc, 'xml', 'default')).toBe('<p __proto__="x" b="y"></p>');
  });
});

describe('depth', () => {
  it('is counted without recursion: 30,000 nested elements, where Yjs overflows the stack', () => {
    const doc = deepXml(30_000);
    const fragment = doc.getXmlFragment('default');
    expect(contentDepth(fragment)).toBe(30_000);
    expect(() => fragment.toString()).toThrow(RangeError);
    expect(statusOf(() => readContent(doc, 'xml', 'default'))).toBe(
      `FAILED_PRECONDITION: This document's content nests deeper than ${MAX_CONTENT_DEPTH} levels (the depth limit), so it cannot be rendered; its updates are still stored and synced to its clients.`,
    );
    // replacing it would delete the subtree (recursive in Yjs): refused before any change
    expect(statusOf(() => doc.transact(() => writeContent(doc, 'xml', 'default', '<p></p>')))).toMatch(/^FAILED_PRECONDITION: .*deeper than 512 levels/);
    expect(contentDepth(fragment)).toBe(30_000);
  });

  it('reads content exactly at the limit, and refuses one level more', () => {
    expect(readContent(deepXml(MAX_CONTENT_DEPTH), 'xml', 'default')).toBe(`${'<p>'.repeat(MAX_CONTENT_DEPTH)}${'</p>'.repeat(MAX_CONTENT_DEPTH)}`);
    expect(statusOf(() => readContent(deepXml(MAX_CONTENT_DEPTH + 1), 'xml', 'default'))).toMatch(/^FAILED_PRECONDITION/);
  });

  it('counts maps in maps and JSON values in them, and refuses REST data nesting too deep', () => {
    const doc = new Y.Doc();
    const map = doc.getMap('default');
    let json: unknown = 1;
    for (let i = 0; i < 20_000; i++) json = [json];
    map.set('deep', json);
    expect(contentDepth(map)).toBeGreaterThan(20_000);
    expect(statusOf(() => readContent(doc, 'map', 'default'))).toMatch(/^FAILED_PRECONDITION/);
    const nestedMaps = new Y.Doc();
    nestedMaps.transact(() => {
      let current = nestedMaps.getMap('default');
      for (let i = 0; i < 2_000; i++) {
        const next = new Y.Map();
        current.set('m', next);
        current = next as Y.Map<unknown>;
      }
    });
    expect(statusOf(() => readContent(nestedMaps, 'map', 'default'))).toMatch(/^FAILED_PRECONDITION/);
    expect(statusOf(() => checkData('map', { deep: json }))).toBe(
      `INVALID_ARGUMENT: data.deep${'[0]'.repeat(MAX_CONTENT_DEPTH)} nests deeper than 512 levels (the depth limit).`,
    );
    expect(statusOf(() => checkData('xml', `${'<p>'.repeat(600)}${'</p>'.repeat(600)}`))).toMatch(
      /^INVALID_ARGUMENT: data is not well-formed XML: elements nest deeper than 512/,
    );
  });
});

describe('a map key "__proto__"', () => {
  it('is read as an own key, at the top and in nested maps, and written and deleted like any other', () => {
    const doc = new Y.Doc();
    const map = doc.getMap('default');
    map.set('__proto__', { a: 1 });
    const nested = new Y.Map();
    map.set('nested', nested);
    nested.set('__proto__', 2);
    const read = readContent(doc, 'map', 'default') as Record<string, unknown>;
    expect(JSON.stringify(read)).toBe('{"__proto__":{"a":1},"nested":{"__proto__":2}}');
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    writeContent(doc, 'map', 'default', JSON.parse('{"__proto__": 5, "toString": "t"}'));
    expect(JSON.stringify(readContent(doc, 'map', 'default'))).toBe('{"__proto__":5,"toString":"t"}');
    // a key named like a member of Object.prototype is deleted when the data no longer has it
    writeContent(doc, 'map', 'default', JSON.parse('{"__proto__": 5}'));
    expect(JSON.stringify(readContent(doc, 'map', 'default'))).toBe('{"__proto__":5}');
    writeContent(doc, 'map', 'default', {});
    expect(JSON.stringify(readContent(doc, 'map', 'default'))).toBe('{}');
  });

  it('reads a subdocument as its guid (its fields lead back to the parent: walked, they never ended)', () => {
    const doc = new Y.Doc();
    doc.getMap('default').set('sub', new Y.Doc({ guid: 'child-guid' }));
    const copy = new Y.Doc();
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc));
    expect(readContent(copy, 'map', 'default')).toEqual({ sub: { guid: 'child-guid' } });
  });

  it('below the top level of REST data is refused (Yjs stores it as JSON, whose decoder drops it)', () => {
    expect(statusOf(() => checkData('map', JSON.parse('{"a": {"__proto__": 1}}')))).toBe(
      `INVALID_ARGUMENT: data.a.__proto__ cannot be stored: below the top level a key "__proto__" would be lost (Yjs's JSON decoder drops it).`,
    );
    expect(statusOf(() => checkData('array', JSON.parse('[{"__proto__": 1}]')))).toMatch(/^INVALID_ARGUMENT: data\[0\]\.__proto__ cannot be stored/);
    expect(statusOf(() => checkData('map', JSON.parse('{"__proto__": {"x": 1}}')))).toBe('OK');
  });
});
