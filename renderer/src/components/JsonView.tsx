// JSON as a collapsible tree (details/summary: keyboard-operable by the browser), with the raw text a click away.
import { useState } from 'preact/hooks';
import { CopyButton } from './ui.tsx';

function Node({ name, value, depth }: { name: string | null; value: unknown; depth: number }) {
  const label = name === null ? null : <span class="json-key">{name}: </span>;
  if (value === null || typeof value !== 'object') {
    const kind = value === null ? 'null' : typeof value;
    return (
      <div class="json-leaf">
        {label}
        <span class={`json-${kind}`}>{typeof value === 'string' ? JSON.stringify(value) : String(value)}</span>
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
  const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  return (
    <details open={depth < 2}>
      <summary>
        {label}
        <span class="muted">{summary}</span>
      </summary>
      <div class="json-children">
        {entries.map(([k, v]) => (
          <Node key={k} name={k} value={v} depth={depth + 1} />
        ))}
      </div>
    </details>
  );
}

export function JsonView({ value, id, label = 'JSON' }: { value: unknown; id?: string; label?: string }) {
  const [raw, setRaw] = useState(false);
  const text = JSON.stringify(value, null, 2) ?? 'undefined';
  return (
    <div class="json" id={id}>
      <div class="json-tools">
        <button type="button" class="small" aria-pressed={raw} onClick={() => setRaw(!raw)}>
          {raw ? 'Tree' : 'Raw'}
        </button>
        <CopyButton value={text} label="Copy" name={label} />
      </div>
      {raw ? (
        <pre tabIndex={0} class="raw">
          {text}
        </pre>
      ) : (
        <Node name={null} value={value} depth={0} />
      )}
    </div>
  );
}
