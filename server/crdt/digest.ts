// What a document holds, as a digest that two documents compare by: each root type read as its toJSON() reads it,
// but walked with a stack of our own instead of toJSON's recursion, which throws "Maximum call stack size exceeded"
// past a few thousand nested types (a 313 KB update nests 30,000 XML elements, issue 42). The compaction's check
// (store.ts, `reproduces`) compares a document with one loaded from its snapshot by this digest, on the event loop
// for a small document and in the Yjs worker thread for a large one (the worker then gets only the digest).
import { createHash } from 'node:crypto';
import * as Y from 'yjs';
import { contentJson } from './content.ts';

/** The kinds a root type can be read as; `untyped`: never read through a type here, so its toJSON() is empty. */
const KINDS = {
  text: Y.Text,
  xmltext: Y.XmlText,
  array: Y.Array,
  map: Y.Map,
  xmlfragment: Y.XmlFragment,
  xmlelement: Y.XmlElement,
  xmlhook: Y.XmlHook,
} as const;
export type RootKind = keyof typeof KINDS | 'untyped';
/** A document's root types by name, sorted by name, each with the kind the document reads it as. */
export type RootKinds = Array<[name: string, kind: RootKind]>;

export function rootKinds(doc: Y.Doc): RootKinds {
  const kinds: RootKinds = [];
  for (const [name, type] of doc.share) {
    const found = Object.entries(KINDS).find(([, kind]) => type.constructor === kind);
    kinds.push([name, found ? (found[0] as RootKind) : 'untyped']);
  }
  return kinds.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

type AnyType = Y.AbstractType<unknown>;

/**
 * The digest of `doc`'s content, each root named in `kinds` read as that kind (a root the document lacks is read
 * as an empty one; a root it has that `kinds` does not name is left out, as an untyped root's toJSON() is empty).
 */
export function contentDigest(doc: Y.Doc, kinds: RootKinds): string {
  const hash = createHash('sha256');
  for (const [name, kind] of kinds) {
    if (kind === 'untyped') continue;
    // parts hashed a few thousand at a time: one update per part cost more than the walk
    let parts: string[] = [`${contentJson(name)}=`];
    walk(doc.get(name, KINDS[kind] as unknown as typeof Y.AbstractType<unknown>), (part) => {
      parts.push(part);
      if (parts.length >= 4096) {
        hash.update(parts.join(''));
        parts = [];
      }
    });
    parts.push(';');
    hash.update(parts.join(''));
  }
  return hash.digest('hex');
}

/** Writes a type's content in order, nested types inside their parent's brackets; a value as its JSON. */
function walk(root: AnyType, write: (part: string) => void) {
  // what is left to write: a type to open, or text already made (a value, a closing bracket)
  const stack: Array<AnyType | string> = [root];
  while (stack.length > 0) {
    const next = stack.pop() as AnyType | string;
    if (typeof next === 'string') {
      write(next);
      continue;
    }
    const children: Array<AnyType | string> = [];
    const value = (v: unknown) => children.push(v instanceof Y.AbstractType ? (v as AnyType) : (contentJson(v) ?? 'undefined'), ',');
    const entries = (map: Record<string, unknown>) => {
      for (const key of Object.keys(map).sort()) {
        children.push(`${contentJson(key)}:`);
        value(map[key]);
      }
    };
    if (next instanceof Y.XmlText) {
      // as its toString() reads it: the inserts with their formatting attributes resolved (toDelta)
      write('x(');
      for (const op of next.toDelta() as Array<{ insert: unknown; attributes?: Record<string, unknown> }>) {
        if (op.attributes) {
          children.push('{');
          entries(op.attributes);
          children.push('}');
        }
        value(op.insert);
      }
    } else if (next instanceof Y.Text) {
      write(`t(${contentJson(next.toString())}`);
    } else if (next instanceof Y.XmlElement) {
      write(`<${contentJson(next.nodeName)}(`);
      // most elements have no attribute: their map is empty (getAttributes makes an object each time)
      if (next._map.size > 0) entries(next.getAttributes() as Record<string, unknown>);
      children.push('|');
      for (const child of next.toArray()) value(child);
    } else if (next instanceof Y.XmlFragment) {
      write('f(');
      for (const child of next.toArray()) value(child);
    } else if (next instanceof Y.XmlHook) {
      write(`h${contentJson(next.hookName)}(`);
      entries(Object.fromEntries(next.entries()));
    } else if (next instanceof Y.Map) {
      write('m(');
      entries(Object.fromEntries(next.entries()));
    } else if (next instanceof Y.Array) {
      write('a(');
      for (const item of next.toArray()) value(item);
    } else {
      // a nested type of no kind above (none in Yjs 13): its toJSON() reads nothing
      write('?(');
    }
    stack.push(')');
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as AnyType | string);
  }
}

/** What a snapshot of a document must load into (store.ts, `expectedOf`). */
export type Expected = { kinds: RootKinds; digest: string; stateVector: Uint8Array };

/** Whether `snapshot` loads into a document of the expected content and state vector; false when it throws. */
export function reproducesNow(snapshot: Uint8Array, expected: Expected): boolean {
  const copy = new Y.Doc({ gc: true });
  try {
    Y.applyUpdate(copy, snapshot);
    return Buffer.from(Y.encodeStateVector(copy)).equals(expected.stateVector) && contentDigest(copy, expected.kinds) === expected.digest;
  } catch {
    return false;
  } finally {
    copy.destroy();
  }
}
