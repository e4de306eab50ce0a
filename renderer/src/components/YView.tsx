// Views of a Y.Doc: the tree of its shared types, and an XML fragment's rich text rendered as formatted text
// (headings, marks, lists, links), built as elements (never HTML strings: the content is the clients').
import type { ComponentChildren } from 'preact';
import * as Y from 'yjs';

/** A root type read as the kind its items show (a root loaded from updates is a bare AbstractType). */
/** A root shared type, read as one of the four kinds. */
export type Root = Y.Text | Y.Map<unknown> | Y.Array<unknown> | Y.XmlFragment;

export function rootOf(doc: Y.Doc, name: string, known?: { type: string; contentKey: string }): Root {
  if (known && known.contentKey === name) {
    if (known.type === 'text') return doc.getText(name);
    if (known.type === 'map') return doc.getMap(name);
    if (known.type === 'array') return doc.getArray(name);
    return doc.getXmlFragment(name);
  }
  const root = doc.share.get(name) as unknown as Y.AbstractType<never>;
  if (root instanceof Y.Text || root instanceof Y.Map || root instanceof Y.Array || root instanceof Y.XmlFragment) return root;
  for (let item = root._start; item; item = item.right) {
    if (item.deleted) continue;
    const content = item.content;
    if (content instanceof Y.ContentString || content instanceof Y.ContentFormat || content instanceof Y.ContentEmbed) return doc.getText(name);
    if (content instanceof Y.ContentType && (content.type instanceof Y.XmlElement || content.type instanceof Y.XmlText)) return doc.getXmlFragment(name);
    return doc.getArray(name);
  }
  return doc.getMap(name);
}

const kindName = (t: unknown) =>
  t instanceof Y.XmlText
    ? 'XmlText'
    : t instanceof Y.Text
      ? 'Text'
      : t instanceof Y.XmlElement
        ? `XmlElement <${t.nodeName}>`
        : t instanceof Y.XmlFragment
          ? 'XmlFragment'
          : t instanceof Y.Map
            ? 'Map'
            : t instanceof Y.Array
              ? 'Array'
              : typeof t;

/**
 * How many levels the tree and the rich text show: a client's document may nest elements thousands deep (issue 42),
 * which rendered as components one inside the other overflows the page's stack. Deeper levels are summarized.
 */
const MAX_VIEW_DEPTH = 64;
const tooDeep = (key: string | number) => (
  <li key={key} class="muted">
    (deeper levels not shown)
  </li>
);

function TypeNode({ name, value, depth }: { name: string; value: unknown; depth: number }): ComponentChildren {
  if (value instanceof Y.Text) {
    return (
      <li>
        <span class="json-key">{name}</span> <span class="muted">{kindName(value)}</span> <span class="json-string">{JSON.stringify(value.toString())}</span>
      </li>
    );
  }
  if (value instanceof Y.Map || value instanceof Y.Array || value instanceof Y.XmlFragment) {
    const entries: Array<[string, unknown]> =
      value instanceof Y.Map ? [...value.entries()] : value.toArray().map((v, i) => [String(i), v] as [string, unknown]);
    const attrs = value instanceof Y.XmlElement ? Object.entries(value.getAttributes()) : [];
    return (
      <li>
        <details open={depth < 2}>
          <summary>
            <span class="json-key">{name}</span> <span class="muted">{kindName(value)}</span> <span class="muted">({entries.length})</span>
            {attrs.length > 0 && <span class="muted"> {attrs.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}</span>}
          </summary>
          <ul>
            {depth + 1 >= MAX_VIEW_DEPTH && entries.length > 0
              ? tooDeep('deeper')
              : entries.map(([k, v]) => <TypeNode key={k} name={k} value={v} depth={depth + 1} />)}
          </ul>
        </details>
      </li>
    );
  }
  return (
    <li>
      <span class="json-key">{name}</span> <span class="json-string">{JSON.stringify(value)}</span>
    </li>
  );
}

/** The tree of every shared type of the document. */
export function YTree({ doc, known, id }: { doc: Y.Doc; known: { type: string; contentKey: string }; id?: string }) {
  const names = [...doc.share.keys()].sort();
  if (names.length === 0) return <p class="muted">Empty document.</p>;
  return (
    <ul class="tree" id={id}>
      {names.map((name) => (
        <TypeNode key={name} name={name} value={rootOf(doc, name, known)} depth={0} />
      ))}
    </ul>
  );
}

const SAFE_URL = /^(https?:|mailto:)/i;

function marks(text: string, attributes: Record<string, unknown> | undefined, key: number): ComponentChildren {
  let node: ComponentChildren = text;
  const a = attributes ?? {};
  if (a.code) node = <code>{node}</code>;
  if (a.bold || a.strong) node = <strong>{node}</strong>;
  if (a.italic || a.em) node = <em>{node}</em>;
  if (a.underline) node = <u>{node}</u>;
  if (a.strike) node = <s>{node}</s>;
  const link = a.link as { href?: unknown } | undefined;
  if (link && typeof link.href === 'string' && SAFE_URL.test(link.href))
    node = (
      <a href={link.href} target="_blank" rel="noopener noreferrer">
        {node}
      </a>
    );
  return <span key={key}>{node}</span>;
}

function inline(text: Y.XmlText): ComponentChildren {
  const delta = text.toDelta() as Array<{ insert: unknown; attributes?: Record<string, unknown> }>;
  return delta.map((op, i) =>
    typeof op.insert === 'string' ? (
      marks(op.insert, op.attributes, i)
    ) : (
      <span key={i} class="muted">
        [embed]
      </span>
    ),
  );
}

function block(node: Y.XmlElement | Y.XmlText, key: number, depth = 0): ComponentChildren {
  if (node instanceof Y.XmlText) return <span key={key}>{inline(node)}</span>;
  if (depth >= MAX_VIEW_DEPTH)
    return (
      <span key={key} class="muted">
        (deeper levels not shown)
      </span>
    );
  const children = node.toArray().map((c, i) => (c instanceof Y.XmlElement || c instanceof Y.XmlText ? block(c, i, depth + 1) : null));
  const attrs = node.getAttributes() as Record<string, unknown>;
  switch (node.nodeName) {
    case 'heading': {
      const level = Math.min(6, Math.max(1, Number(attrs.level) || 1));
      const H = `h${level}` as 'h1';
      return <H key={key}>{children}</H>;
    }
    case 'paragraph':
      return <p key={key}>{children}</p>;
    case 'bulletList':
    case 'bullet_list':
      return <ul key={key}>{children}</ul>;
    case 'orderedList':
    case 'ordered_list':
      return <ol key={key}>{children}</ol>;
    case 'listItem':
    case 'list_item':
    case 'taskItem':
      return <li key={key}>{children}</li>;
    case 'taskList':
      return <ul key={key}>{children}</ul>;
    case 'blockquote':
      return <blockquote key={key}>{children}</blockquote>;
    case 'codeBlock':
    case 'code_block':
      return (
        <pre tabIndex={0} key={key}>
          {children}
        </pre>
      );
    case 'hardBreak':
    case 'hard_break':
      return <br key={key} />;
    case 'horizontalRule':
    case 'horizontal_rule':
      return <hr key={key} />;
    default:
      return (
        <div key={key} data-node={node.nodeName}>
          {children}
        </div>
      );
  }
}

/** An XML fragment (a ProseMirror/TipTap document) as formatted text. */
export function RichText({ fragment, id }: { fragment: Y.XmlFragment; id?: string }) {
  const nodes = fragment.toArray();
  return (
    <div class="richtext" id={id}>
      {nodes.length === 0 ? <p class="muted">(empty)</p> : nodes.map((n, i) => (n instanceof Y.XmlElement || n instanceof Y.XmlText ? block(n, i) : null))}
    </div>
  );
}
