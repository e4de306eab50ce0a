// LOG_FORMAT=json: the server's log as one JSON object a line, for log collectors, each call's line with the
// request id its answer carries.
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/log.ts';
import { runHearth, startCliServer, tempDirs } from '../helpers/cli.ts';
import { eventually } from '../helpers/server.ts';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

/** A text-format log line: `time LEVEL message…`. */
const TEXT_LINE = /^\d{4}-\d\d-\d\dT[\d:.]+Z (ERROR|WARN |INFO |DEBUG) /m;

describe('LOG_FORMAT', () => {
  it('json: every log line is a JSON object, and a call’s line names its request id', async () => {
    const server = await startCliServer(dirs.make(), { LOG_FORMAT: 'json', LOG_LEVEL: 'debug' });
    try {
      const res = await fetch(`${server.url}/v2/ping`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":{}}' });
      const requestId = res.headers.get('x-request-id');
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      const entries = () =>
        server
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      const call = await eventually(() => {
        const found = entries().find((e) => e.requestId === requestId);
        expect(found).toBeDefined();
        return found!;
      });
      expect(call).toMatchObject({ level: 'debug', msg: 'call', path: '/v2/ping', status: 200 });
      expect(Object.keys(call).slice(0, 3)).toEqual(['time', 'level', 'msg']);
      expect(Number.isNaN(Date.parse(call.time as string))).toBe(false);
      // no line in the text format (the banner on stdout is not a log line and is left as it is)
      expect(server.output()).not.toMatch(TEXT_LINE);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('text stays the default', async () => {
    const server = await startCliServer(dirs.make(), { LOG_LEVEL: 'debug' });
    try {
      await fetch(`${server.url}/v2/ping`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":{}}' });
      await eventually(() => expect(server.output()).toMatch(TEXT_LINE));
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('refuses a format it does not know, naming the setting', async () => {
    const run = await runHearth(['--port', '0', '--data-dir', dirs.make()], { env: { LOG_FORMAT: 'xml' } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('LOG_FORMAT must be one of text, json');
  });

  it('keeps its own keys when a field has the same name', () => {
    const lines: string[] = [];
    const log = createLogger('info', 'json', (line) => lines.push(line));
    log.info('hello', { msg: 'not this', level: 'nor this', user: 'ann' });
    log.debug('below the level');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', msg: 'hello', user: 'ann' });
  });
});
