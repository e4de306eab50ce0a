import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

/** Holds the event loop, as a long synchronous piece of work (or a busy machine) does. */
function hold(ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

describe('keep-alive connections', () => {
  it('outlive a stall of the event loop longer than a client keeps them idle: the next request on a pooled connection is answered', async () => {
    expect((await t.callPublic('/v2/ping', {})).status).toBe(200);
    const ping = await fetch(t.url + '/v2/ping', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":{}}' });
    // the server tells clients how long it keeps an idle connection: longer than they keep theirs
    expect(ping.headers.get('keep-alive')).toMatch(/timeout=(\d+)/);
    expect(Number(/timeout=(\d+)/.exec(ping.headers.get('keep-alive') ?? '')?.[1])).toBeGreaterThanOrEqual(60);
    await ping.text();
    hold(6_000);
    expect((await t.callPublic('/v2/ping', {})).status).toBe(200);
  }, 20_000);
});
