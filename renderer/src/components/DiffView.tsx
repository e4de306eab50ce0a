// A character diff of two texts (longest common subsequence of what lies between the common prefix and suffix;
// past a size the diff says so rather than stall the page).
const MAX_CELLS = 4_000_000;

// ---------------------------------------------------------------------------------------------------------
// By character (issue 44, point 3): what changed inside a line, not whole lines
// ---------------------------------------------------------------------------------------------------------

export type DiffPart = { kind: 'same' | 'added' | 'removed'; text: string };

/**
 * A character diff of two texts: the common prefix and suffix are cut first (an edit is usually one place), then
 * the middle is aligned by longest common subsequence; runs of one kind are joined. Null past MAX_CELLS.
 */
export function diffChars(before: string, after: string): DiffPart[] | null {
  const a = Array.from(before);
  const b = Array.from(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const m = endA - start;
  const n = endB - start;
  if (m * n > MAX_CELLS) return null;
  const parts: DiffPart[] = [];
  const push = (kind: DiffPart['kind'], text: string) => {
    if (!text) return;
    const last = parts[parts.length - 1];
    if (last && last.kind === kind) last.text += text;
    else parts.push({ kind, text });
  };
  push('same', a.slice(0, start).join(''));
  const table = new Uint32Array((m + 1) * (n + 1));
  for (let i = m - 1; i >= 0; i--) {
    for (let j = n - 1; j >= 0; j--) {
      table[i * (n + 1) + j] =
        a[start + i] === b[start + j]
          ? (table[(i + 1) * (n + 1) + j + 1] as number) + 1
          : Math.max(table[(i + 1) * (n + 1) + j] as number, table[i * (n + 1) + j + 1] as number);
    }
  }
  let i = 0;
  let j = 0;
  while (i < m && j < n) {
    if (a[start + i] === b[start + j]) {
      push('same', a[start + i] as string);
      i++;
      j++;
    } else if ((table[(i + 1) * (n + 1) + j] as number) >= (table[i * (n + 1) + j + 1] as number)) push('removed', a[start + i++] as string);
    else push('added', b[start + j++] as string);
  }
  while (i < m) push('removed', a[start + i++] as string);
  while (j < n) push('added', b[start + j++] as string);
  push('same', a.slice(endA).join(''));
  return parts;
}

/** How many characters a diff adds and removes. */
export const diffCounts = (parts: DiffPart[]) => ({
  added: parts.filter((p) => p.kind === 'added').reduce((n, p) => n + Array.from(p.text).length, 0),
  removed: parts.filter((p) => p.kind === 'removed').reduce((n, p) => n + Array.from(p.text).length, 0),
});

/** A character diff shown inline, wrapping: removed text struck through, added text marked (and named for readers). */
export function CharDiffView({
  before,
  after,
  id,
  beforeLabel,
  afterLabel,
}: {
  before: string;
  after: string;
  id?: string;
  beforeLabel: string;
  afterLabel: string;
}) {
  const parts = diffChars(before, after);
  if (!parts) return <p class="muted">Too large to compare character by character.</p>;
  const { added, removed } = diffCounts(parts);
  return (
    <div class="diff" id={id}>
      <p class="muted diff-summary">
        From {beforeLabel} to {afterLabel}: <span class="added-count">+{added}</span> <span class="removed-count">−{removed}</span> characters
      </p>
      <pre tabIndex={0} class="diff-inline">
        {parts.map((p, k) =>
          p.kind === 'added' ? (
            <ins key={k} class="diff-added">
              {p.text}
            </ins>
          ) : p.kind === 'removed' ? (
            <del key={k} class="diff-removed">
              {p.text}
            </del>
          ) : (
            <span key={k}>{p.text}</span>
          ),
        )}
      </pre>
    </div>
  );
}
