// A line diff of two texts (longest common subsequence; documents shown here are small enough, and past a size
// the diff says so rather than stall the page).
const MAX_CELLS = 4_000_000;

export type DiffLine = { kind: 'same' | 'added' | 'removed'; text: string };

export function diffLines(before: string, after: string): DiffLine[] | null {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length * b.length > MAX_CELLS) return null;
  // lengths of common subsequences of the suffixes
  const m = a.length;
  const n = b.length;
  const table = new Uint32Array((m + 1) * (n + 1));
  for (let i = m - 1; i >= 0; i--) {
    for (let j = n - 1; j >= 0; j--) {
      table[i * (n + 1) + j] =
        a[i] === b[j]
          ? (table[(i + 1) * (n + 1) + j + 1] as number) + 1
          : Math.max(table[(i + 1) * (n + 1) + j] as number, table[i * (n + 1) + j + 1] as number);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < m && j < n) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i] as string });
      i++;
      j++;
    } else if ((table[(i + 1) * (n + 1) + j] as number) >= (table[i * (n + 1) + j + 1] as number)) out.push({ kind: 'removed', text: a[i++] as string });
    else out.push({ kind: 'added', text: b[j++] as string });
  }
  while (i < m) out.push({ kind: 'removed', text: a[i++] as string });
  while (j < n) out.push({ kind: 'added', text: b[j++] as string });
  return out;
}

export function DiffView({
  before,
  after,
  id,
  beforeLabel = 'then',
  afterLabel = 'now',
}: {
  before: string;
  after: string;
  id?: string;
  beforeLabel?: string;
  afterLabel?: string;
}) {
  const lines = diffLines(before, after);
  if (!lines) return <p class="muted">Too large to compare line by line.</p>;
  const added = lines.filter((l) => l.kind === 'added').length;
  const removed = lines.filter((l) => l.kind === 'removed').length;
  return (
    <div class="diff" id={id}>
      <p class="muted">
        From {beforeLabel} to {afterLabel}: <span class="added-count">+{added}</span> <span class="removed-count">−{removed}</span> lines
      </p>
      <pre tabIndex={0}>
        {lines.map((l, i) => (
          <div key={i} class={`diff-${l.kind}`}>
            <span class="diff-mark" aria-label={l.kind === 'same' ? undefined : l.kind}>
              {l.kind === 'added' ? '+' : l.kind === 'removed' ? '−' : ' '}
            </span>
            {l.text}
          </div>
        ))}
      </pre>
    </div>
  );
}
