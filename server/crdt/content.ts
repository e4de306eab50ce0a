import * as Y from 'yjs';
import { failedPrecondition, invalid } from '../errors.ts';

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
  if (type === 'map' || type === 'array') checkJsonData(data);
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
  refuseTooDeep(shared, 'read');
  if (shared instanceof Y.XmlFragment) return xmlString(shared);
  if (shared instanceof Y.Text) return shared.toString();
  return plain(shared);
}

/**
 * How deep content may nest to be read or written whole (an element in an element, a map in a map, JSON in an
 * array, each one level). Yjs's own readers and writers of nested content (toJSON, toString, deleting a subtree)
 * recurse once per level: a client's update of 30,000 nested elements made each of them throw "Maximum call stack
 * size exceeded" (issue 42). Every walk here is iterative or runs after the content's depth is checked (iteratively)
 * against this limit; a deeper document's raw updates still store and sync, only its content is not rendered.
 */
export const MAX_CONTENT_DEPTH = 512;

const tooDeep = (what: 'read' | 'write') =>
  failedPrecondition(
    what === 'read'
      ? `This document's content nests deeper than ${MAX_CONTENT_DEPTH} levels (the depth limit), so it cannot be rendered; its updates are still stored and synced to its clients.`
      : `This document's content nests deeper than ${MAX_CONTENT_DEPTH} levels (the depth limit), so the server cannot replace it (REST writes, restores); delete it, or change it from a client.`,
  );

/** Throws FAILED_PRECONDITION when any root of `doc` nests deeper than MAX_CONTENT_DEPTH (before a walk of every root). */
export function refuseTooDeepDoc(doc: Y.Doc, what: 'read' | 'write') {
  for (const root of doc.share.values()) refuseTooDeep(root, what);
}

/** Throws FAILED_PRECONDITION when the live content of `root` nests deeper than MAX_CONTENT_DEPTH. */
function refuseTooDeep(root: object, what: 'read' | 'write') {
  if (contentDepth(root, MAX_CONTENT_DEPTH) > MAX_CONTENT_DEPTH) throw tooDeep(what);
}

/**
 * How deep the live content of `root` nests (its own items are level 1), counted without recursion; stops at
 * `limit + 1`. Counts nested shared types (list items and map entries, XML attributes included) and the JSON
 * values clients store in them (and in text formats and embeds), whose readers recurse as well.
 */
export function contentDepth(root: object, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[root, 0]];
  const values = (content: unknown): unknown[] => {
    if (content instanceof Y.ContentType) return [content.type];
    if (content instanceof Y.ContentAny) return content.arr;
    if (content instanceof Y.ContentJSON) return content.arr;
    if (content instanceof Y.ContentEmbed) return [content.embed];
    if (content instanceof Y.ContentFormat) return [content.value];
    return [];
  };
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (depth > deepest) {
      deepest = depth;
      if (deepest > limit) return deepest;
    }
    if (value instanceof Y.AbstractType) {
      const type = value as Y.AbstractType<unknown>;
      for (let item = type._start; item; item = item.right) if (!item.deleted) for (const v of values(item.content)) stack.push([v, depth + 1]);
      for (const item of type._map.values()) if (!item.deleted) for (const v of values(item.content)) stack.push([v, depth + 1]);
    } else if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value) && !(value instanceof Y.Doc)) {
      // a JSON array or object: its values are one level deeper (only containers among them are walked)
      const children = Array.isArray(value) ? (value as unknown[]) : Object.values(value);
      if (children.length > 0) stack.push([null, depth + 1]);
      for (const v of children) if (v !== null && typeof v === 'object') stack.push([v, depth + 1]);
    }
  }
  return deepest;
}

/** Defines `key` on `out` as an own property, `__proto__` too (an assignment would set the prototype, or nothing). */
function put(out: Record<string, unknown>, key: string, value: unknown) {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/**
 * A map's or array's content as JSON values, run after its depth was checked (it recurses once per level). Unlike
 * Yjs's toJSON it keeps a map key `__proto__` (toJSON assigns it, which drops it), and writes bigints (which Yjs
 * clients may store, and JSON has no form for) as decimal strings: serialized as they were, they made the answer
 * fail with INTERNAL.
 */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Y.Map) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of (value as Y.Map<unknown>)._map) if (!item.deleted) put(out, key, plain(item.content.getContent()[item.length - 1]));
    return out;
  }
  if (value instanceof Y.Array) return (value as Y.Array<unknown>).toArray().map(plain);
  if (value instanceof Y.XmlFragment) return xmlString(value);
  if (value instanceof Y.AbstractType) return value.toJSON();
  // a subdocument is a document of its own (and its fields lead back to this one): named by its guid
  if (value instanceof Y.Doc) return { guid: value.guid };
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map(plain);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) put(out, key, plain(child));
  return out;
}

/**
 * An XML fragment or element as Yjs's toString writes it (elements' names lower-cased, attributes sorted by name,
 * text as XmlText writes it), without recursion. Unlike Yjs it keeps an attribute named `__proto__`.
 */
export function xmlString(fragment: Y.XmlFragment): string {
  let out = '';
  // what is left to write, last first: a node, or the closing tag of an element whose children come before it
  const stack: Array<unknown> = [];
  const children = (parent: Y.XmlFragment) => {
    const list = parent.toArray();
    for (let i = list.length - 1; i >= 0; i--) stack.push(list[i]);
  };
  if (fragment instanceof Y.XmlElement) stack.push(fragment);
  else children(fragment);
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      out += node;
    } else if (node instanceof Y.XmlElement) {
      const attributes: Record<string, unknown> = {};
      for (const [key, item] of node._map) if (!item.deleted) put(attributes, key, item.content.getContent()[item.length - 1]);
      const names = Object.keys(attributes).sort();
      // concatenated as Yjs does (a value that is not a string is converted as `+` converts it)
      const written = names.map((key) => key + '="' + attributes[key] + '"');
      const name = node.nodeName.toLocaleLowerCase();
      out += `<${name}${written.length > 0 ? ' ' + written.join(' ') : ''}>`;
      stack.push(`</${name}>`);
      children(node);
    } else {
      out += String((node as { toString(): string }).toString());
    }
  }
  return out;
}

/**
 * The depth of REST `data` for a map or array (its own entries are level 1), counted without recursion; and an
 * object below the top level may not have a key `__proto__`: such objects are stored as JSON values, whose
 * decoder (lib0's) drops that key, so it would be lost silently. (A top-level map key is a map entry and is kept.)
 */
function checkJsonData(data: unknown) {
  const stack: Array<[unknown, number, string]> = [[data, 0, 'data']];
  while (stack.length > 0) {
    const [value, depth, field] = stack.pop() as [unknown, number, string];
    if (depth > MAX_CONTENT_DEPTH) throw invalid(`${field} nests deeper than ${MAX_CONTENT_DEPTH} levels (the depth limit).`);
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) if (v !== null && typeof v === 'object') stack.push([v, depth + 1, `${field}[${i}]`]);
      continue;
    }
    if (depth > 0 && Object.hasOwn(value, '__proto__'))
      throw invalid(`${field}.__proto__ cannot be stored: below the top level a key "__proto__" would be lost (Yjs's JSON decoder drops it).`);
    for (const [key, v] of Object.entries(value)) if (v !== null && typeof v === 'object') stack.push([v, depth + 1, `${field}.${key}`]);
  }
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
  // what is replaced is read (maps, arrays) or deleted (XML), both of which recurse in Yjs: checked before any change
  if (!(shared instanceof Y.Text)) refuseTooDeep(shared, 'write');
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
    // own keys only: `"toString" in next` holds for any object, and so would a key named like a prototype's member
    for (const key of [...shared.keys()]) if (!Object.hasOwn(next, key)) shared.delete(key);
    for (const [key, value] of Object.entries(next)) {
      if (!shared.has(key) || !same(plain(shared.get(key)), value)) shared.set(key, value);
    }
  } else if (shared instanceof Y.Array) {
    const before = plain(shared) as unknown[];
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
      if (!selfClosing) {
        if (stack.length > MAX_CONTENT_DEPTH) fail(`elements nest deeper than ${MAX_CONTENT_DEPTH} levels (the depth limit) at ${i}`);
        stack.push(node);
      }
    }
    i += whole.length;
  }
  if (stack.length > 1) fail(`<${stack[stack.length - 1]?.name}> is not closed`);
  return root.children ?? [];
}
