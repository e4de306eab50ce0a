import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ReadmeBlock {
  /** node, sh or browser: how the block runs. */
  kind: string;
  /** What its output must contain. */
  prints: string;
  code: string;
  /** The README line of its fence, for messages. */
  line: number;
}

/**
 * The README's runnable code blocks: each fenced block right after a `<!-- readme-test: KIND prints "TEXT" -->`
 * comment (invisible on GitHub), read from README.md itself so that the tests run what readers copy.
 */
export function readmeBlocks(root: string): ReadmeBlock[] {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!-- readme-test: (\w+) prints "([^"]+)" -->$/.exec(lines[i] as string);
    if (!marker) continue;
    if (!/^```\w+$/.test(lines[i + 1] ?? '')) throw new Error(`README.md:${i + 1}: a readme-test comment must be followed by a fenced block`);
    const end = lines.indexOf('```', i + 2);
    if (end === -1) throw new Error(`README.md:${i + 2}: unclosed fence`);
    blocks.push({ kind: marker[1] as string, prints: marker[2] as string, code: lines.slice(i + 2, end).join('\n'), line: i + 2 });
    i = end;
  }
  return blocks;
}

/** The block as it runs against a server at `url` instead of the README's http://127.0.0.1:8787. */
export const againstServer = (code: string, url: string) =>
  code.replaceAll('http://127.0.0.1:8787', url).replaceAll('ws://127.0.0.1:8787', url.replace(/^http/, 'ws'));
