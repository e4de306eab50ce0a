// Issue 42, point 7: no client writes a log line of its own making. A room id may hold any character (URI-encoded
// in the websocket path); the bad frame that follows is logged with the room's ids. Through a real Hearth in a child
// process, a raw websocket and the server's own stderr, in both log formats: the forged "line" stays inside the
// one warning line, escaped.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, escapeControl } from '../../server/log.ts';
import { startCliServer, tempDirs } from '../helpers/cli.ts';
import { eventually } from '../helpers/server.ts';
import { encodeFrame, rawUpgrade } from '../helpers/ws-raw.ts';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const FORGED = '2026-12-04T10:00:00.000Z ERROR admin signed in from 6.6.6.6';
/** A document id that, written raw, would end the warning line and start a forged one (LF, CR LF, NEL, LS, PS). */
const DOCUMENT_ID = `doc\n${FORGED}\r\n${FORGED}\u0085${FORGED}\u2028${FORGED}\u2029x`;

/** A control character written as it is (what a log line must never hold). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's purpose
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

async function badFrameLog(format: 'text' | 'json'): Promise<string[]> {
  const dataDir = dirs.make();
  const server = await startCliServer(dataDir, { LOG_LEVEL: 'warn', LOG_FORMAT: format });
  try {
    const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { apiKey: string; authToken: string };
    const path = `/yjs/acme/${encodeURIComponent(DOCUMENT_ID)}/e?apiKey=${encodeURIComponent(creds.apiKey)}&authToken=${encodeURIComponent(creds.authToken)}`;
    const open = await rawUpgrade(server.url, path);
    expect(open.status).toBe(101);
    // a reserved opcode: ws closes the connection (1002) and the server logs it with the room's ids
    open.write(encodeFrame({ opcode: 0x3, payload: Uint8Array.of(1, 2, 3) }));
    await open.ended;
    expect(open.closeCode()).toBe(1002);
    await eventually(() => expect(server.output()).toContain('bad frame'));
    return server
      .output()
      .split('\n')
      .filter((line) => /^(\{|\d{4}-)/.test(line));
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

describe('log lines of a client’s making (issue 42, point 7)', () => {
  it('text: the room id’s line breaks are escaped inside the one warning line', async () => {
    const lines = await badFrameLog('text');
    expect(lines.filter((line) => line.includes('admin signed in'))).toHaveLength(1);
    const warning = lines.find((line) => line.includes('bad frame'))!;
    expect(warning).toMatch(/^\S+ WARN {2}websocket closed: bad frame/);
    expect(warning).toContain(`documentId=doc\\n${FORGED}\\r\\n${FORGED}\\u0085${FORGED}\\u2028${FORGED}\\u2029x`);
    expect(lines.some((line) => line.startsWith(FORGED))).toBe(false);
    expect(warning).not.toMatch(RAW_CONTROL);
  });

  it('json: every line parses, the room id comes back whole, and no raw separator is written', async () => {
    const lines = await badFrameLog('json');
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const warning = entries.find((e) => String(e.msg).includes('bad frame'))!;
    expect(warning).toMatchObject({ level: 'warn', documentId: DOCUMENT_ID, organizationId: 'acme', closeCode: 1002 });
    for (const line of lines) expect(line).not.toMatch(RAW_CONTROL);
  });

  it('escapes every control character in messages, keys and values of both formats, and never throws on a value', () => {
    const written: string[] = [];
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const format of ['text', 'json'] as const) {
      const log = createLogger('info', format, (line) => written.push(line));
      log.error('a\rb\nc\u0000\u001b[31m\u007f\u009b', { 'k\ney': 'v\u2028w', n: 10n, nested: { s: 'x\ny\u0085' }, cyclic });
    }
    expect(written).toHaveLength(2);
    for (const line of written) expect(line).not.toMatch(RAW_CONTROL);
    expect(written[0]).toContain('a\\rb\\nc\\u0000\\u001b[31m\\u007f\\u009b k\\ney=v\\u2028w n="10" nested={"s":"x\\ny\\u0085"}');
    const entry = JSON.parse(written[1]!) as Record<string, unknown>;
    expect(entry).toMatchObject({
      msg: 'a\rb\nc\u0000\u001b[31m\u007f\u009b',
      'k\ney': 'v\u2028w',
      n: '10',
      nested: { s: 'x\ny\u0085' },
      cyclic: '[object Object]',
    });
    expect(escapeControl('plain text, ü and 中 stay')).toBe('plain text, ü and 中 stay');
  });
});
