// Diffs of two texts, by character (what changed inside a word: the live view's marks) and by word (the history's
// diff, issue 44: whole words marked, as a reader compares versions). Both align the tokens between the common
// prefix and suffix by longest common subsequence; past a size the diff says so (null) rather than stall the page.
const MAX_CELLS = 4_000_000;

export type DiffPart = { kind: 'same' | 'added' | 'removed'; text: string };

/** A word, a run of whitespace, or one other character (punctuation, a symbol). */
const TOKEN = /[\p{L}\p{M}\p{N}_]+|\s+|[^\p{L}\p{M}\p{N}_\s]/gu;

/** A character diff of two texts; runs of one kind joined. Null past MAX_CELLS. */
export const diffChars = (before: string, after: string): DiffPart[] | null => diffTokens(Array.from(before), Array.from(after));

/** A word diff of two texts: a changed word is removed and added whole; runs of one kind joined. Null past MAX_CELLS. */
export const diffWords = (before: string, after: string): DiffPart[] | null => diffTokens(before.match(TOKEN) ?? [], after.match(TOKEN) ?? []);

/**
 * The diff of two token lists: the common prefix and suffix are cut first (an edit is usually one place), then the
 * middle is aligned by longest common subsequence.
 */
function diffTokens(a: string[], b: string[]): DiffPart[] | null {
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
