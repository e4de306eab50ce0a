import * as Y from 'yjs';
import { invalid } from '../errors.ts';

export type CrdtType = 'text' | 'map' | 'array' | 'xml';

/** The shared type a document keeps its content in, per the runtime contract (DESIGN §1). */
export function sharedType(doc: Y.Doc, type: CrdtType, contentKey: string) {
  switch (type) {
    case 'text':
      return doc.getText(contentKey);
    case 'map':
      return doc.getMap(contentKey);
    case 'array':
      return doc.getArray(contentKey);
    case 'xml':
      return doc.getXmlFragment(contentKey);
  }
}

/** Checks REST `data` against `type` (interface.md rule 3), with the message naming both. */
export function checkData(type: CrdtType, data: unknown) {
  const ok =
    type === 'text' || type === 'xml'
      ? typeof data === 'string'
      : type === 'array'
        ? Array.isArray(data)
        : data !== null && typeof data === 'object' && !Array.isArray(data);
  if (!ok) throw invalid(`Data must be ${type === 'array' ? 'an array' : type === 'map' ? 'an object' : 'a string'} for type ${type}.`);
  if (type === 'xml') parseXml(data as string);
  // Yjs picks the content kind of each map value and array item by its `constructor`: an object with its own
  // "constructor" key is not a value it can hold (it throws). Deeper objects are encoded as plain JSON and pass.
  if (type === 'map') for (const [key, value] of Object.entries(data as object)) refuseOwnConstructor(value, `data.${key}`);
  if (type === 'array') for (const [i, value] of (data as unknown[]).entries()) refuseOwnConstructor(value, `data[${i}]`);
}

function refuseOwnConstructor(value: unknown, field: string) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, 'constructor')) {
    throw invalid(`${field} cannot be stored: Yjs cannot hold an object with its own "constructor" key at this level (nest it one level deeper).`);
  }
}

/** Bits of `crdt_documents.infer`: what the room's first websocket client did not say (no `type`, no `contentKey`). */
export const INFER_TYPE = 1;
export const INFER_KEY = 2;

/**
 * The kind of content a root type holds, judged from its live items (a root loaded from updates is a bare
 * AbstractType until someone reads it as one kind): text if any character, format or embed; xml if its children
 * are XML elements or texts; array for other sequences; map for keyed entries. Null while it holds nothing live.
 */
function kindOf(root: Pick<Y.AbstractType<never>, '_start' | '_map'>): CrdtType | null {
  let sequence: CrdtType | null = null;
  for (let item = root._start; item; item = item.right) {
    if (item.deleted) continue;
    const content = item.content;
    if (content instanceof Y.ContentString || content instanceof Y.ContentFormat || content instanceof Y.ContentEmbed) return 'text';
    if (content instanceof Y.ContentType && (content.type instanceof Y.XmlElement || content.type instanceof Y.XmlText || content.type instanceof Y.XmlHook))
      sequence = 'xml';
    else sequence ??= 'array';
  }
  if (sequence) return sequence;
  for (const item of root._map.values()) if (!item.deleted) return 'map';
  return null;
}

/**
 * The type and content key a room opened without them turns out to have (`infer` bits say which are unknown),
 * from the content its clients wrote: the root holding content (with several, the stored key's, else `default`,
 * the rich-text editors' fragment, else the first by name) and the kind of that content. Null while nothing tells.
 */
export function inferContent(doc: Y.Doc, infer: number, type: CrdtType, contentKey: string): { type: CrdtType; contentKey: string } | null {
  const kinds = new Map<string, CrdtType>();
  for (const [name, root] of doc.share) {
    const kind = kindOf(root);
    // a root named with U+0000 is never the content key: PostgreSQL could not store it (issue 43)
    if (kind && !name.includes('\u0000')) kinds.set(name, kind);
  }
  let key = contentKey;
  if (infer & INFER_KEY && !kinds.has(contentKey)) {
    const names = [...kinds.keys()].sort();
    key = kinds.has('default') ? 'default' : (names[0] ?? contentKey);
  }
  const kind = kinds.get(key);
  if (!kind) return null;
  return { type: infer & INFER_TYPE ? kind : type, contentKey: key };
}

/** What a document of `type` with nothing in it reads as. */
export const emptyContent = (type: CrdtType): unknown => (type === 'map' ? {} : type === 'array' ? [] : '');

export function readContent(doc: Y.Doc, type: CrdtType, contentKey: string): unknown {
  // Reading never defines a root: one defined here as the wrong kind would make a client's content unreadable.
  if (!doc.share.has(contentKey)) return emptyContent(type);
  const shared = sharedType(doc, type, contentKey);
  if (shared instanceof Y.Text || shared instanceof Y.XmlFragment) return shared.toString();
  return withoutBigints(shared.toJSON());
}

/**
 * A map's or array's content with its bigints (which Yjs clients may store, and JSON has no form for) as decimal
 * strings: serialized as they were, they made the answer fail with INTERNAL.
 */
function withoutBigints(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map(withoutBigints);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '__proto__') Object.defineProperty(out, key, { value: withoutBigints(child), enumerable: true, writable: true, configurable: true });
    else out[key] = withoutBigints(child);
  }
  return out;
}

/** JSON text of CRDT content, bigints written as `<digits>n` (for comparisons; JSON has no form for them). */
export const contentJson = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
const same = (a: unknown, b: unknown) => contentJson(a) === contentJson(b);

/**
 * Replaces the content with `data` by applying the smallest CRDT operations that get there, so that connected
 * clients receive an ordinary update: for text only the changed range, for maps only changed keys, for arrays the
 * changed middle. XML is parsed into elements and text and replaces the fragment's children.
 */
export function writeContent(doc: Y.Doc, type: CrdtType, contentKey: string, data: unknown) {
  const shared = sharedType(doc, type, contentKey);
  if (shared instanceof Y.Text) {
    const before = shared.toString();
    const after = data as string;
    let start = 0;
    while (start < before.length && start < after.length && before[start] === after[start]) start++;
    let end = 0;
    while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
    const removed = before.length - start - end;
    if (removed > 0) shared.delete(start, removed);
    const inserted = after.slice(start, after.length - end);
    if (inserted) shared.insert(start, inserted);
  } else if (shared instanceof Y.Map) {
    const next = data as Record<string, unknown>;
    for (const key of [...shared.keys()]) if (!(key in next)) shared.delete(key);
    for (const [key, value] of Object.entries(next)) {
      const current = shared.get(key);
      const currentJson = current instanceof Y.AbstractType ? current.toJSON() : current;
      if (!shared.has(key) || !same(currentJson, value)) shared.set(key, value);
    }
  } else if (shared instanceof Y.Array) {
    const before = shared.toJSON() as unknown[];
    const after = data as unknown[];
    let start = 0;
    while (start < before.length && start < after.length && same(before[start], after[start])) start++;
    let end = 0;
    while (end < before.length - start && end < after.length - start && same(before[before.length - 1 - end], after[after.length - 1 - end])) end++;
    const removed = before.length - start - end;
    if (removed > 0) shared.delete(start, removed);
    const inserted = after.slice(start, after.length - end);
    if (inserted.length) shared.insert(start, inserted);
  } else {
    const fragment = shared as Y.XmlFragment;
    const nodes = parseXml(data as string);
    if (fragment.length > 0) fragment.delete(0, fragment.length);
    fragment.insert(0, nodes.map(toYXml));
  }
}

interface XmlNode {
  name?: string;
  attributes?: Record<string, string>;
  children?: XmlNode[];
  text?: string;
}

function toYXml(node: XmlNode): Y.XmlElement | Y.XmlText {
  if (node.text !== undefined) return new Y.XmlText(node.text);
  const element = new Y.XmlElement(node.name as string);
  for (const [key, value] of Object.entries(node.attributes ?? {})) element.setAttribute(key, value);
  element.insert(0, (node.children ?? []).map(toYXml));
  return element;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const decode = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    // own entries only: `&constructor;` is not an entity (a plain object's lookup found Object's constructor)
    return Object.hasOwn(ENTITIES, e) ? (ENTITIES[e] as string) : m;
  });

/** A small parser for the XML that rich-text editors store (elements, attributes, text); no DTDs or CDATA. */
export function parseXml(source: string): XmlNode[] {
  const root: XmlNode = { children: [] };
  const stack: XmlNode[] = [root];
  const tag = /<\/?([A-Za-z_][\w.:-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;
  let i = 0;
  const fail = (why: string): never => {
    throw invalid(`data is not well-formed XML: ${why}.`);
  };
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    const textEnd = lt === -1 ? source.length : lt;
    if (textEnd > i) {
      const text = source.slice(i, textEnd);
      if (text.includes('>')) fail(`unexpected ">" at ${i + text.indexOf('>')}`);
      stack[stack.length - 1]?.children?.push({ text: decode(text) });
      i = textEnd;
      continue;
    }
    tag.lastIndex = i;
    const match = tag.exec(source);
    if (!match) fail(`bad tag at ${i}`);
    const [whole, name, attrs, selfClosing] = match as RegExpExecArray;
    const closing = whole.startsWith('</');
    if (closing) {
      const open = stack.pop();
      if (!open || open === root || open.name !== name) fail(`</${name}> does not close an open <${name}>`);
    } else {
      // no prototype: an attribute named __proto__ is an attribute like any other
      const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
      for (const a of (attrs ?? '').matchAll(/([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attributes[a[1] as string] = decode(a[2] ?? a[3] ?? '');
      const node: XmlNode = { name: name as string, attributes, children: [] };
      stack[stack.length - 1]?.children?.push(node);
      if (!selfClosing) stack.push(node);
    }
    i += whole.length;
  }
  if (stack.length > 1) fail(`<${stack[stack.length - 1]?.name}> is not closed`);
  return root.children ?? [];
}
