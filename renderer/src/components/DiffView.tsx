// A word diff shown inline (lib/diff.ts makes it).
import { diffCounts, diffWords } from '../lib/diff.ts';

/** A word diff shown inline, wrapping: removed words struck through, added words marked (and named for readers). */
export function WordDiffView({
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
  const parts = diffWords(before, after);
  if (!parts) return <p class="muted">Too large to compare word by word.</p>;
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
