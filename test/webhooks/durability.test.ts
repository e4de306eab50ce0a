import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliServer } from '../helpers/cli.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { apiKeyHeaders, call, dataOf, eventually, startTestServer, type TestServer } from '../helpers/server.ts';
import { enableWithEndpoint, FAST_WEBHOOKS } from '../helpers/webhooks.ts';
import { connectYjs } from '../helpers/yjs.ts';
import type { UserTokenAnswer } from '../helpers/answers.ts';

const receivers: Receiver[] = [];
const receiver = async (options: Parameters<typeof startReceiver>[0] = {}) => {
  const r = await startReceiver(options);
  receivers.push(r);
  return r;
};
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

describe('crdt.update_data, debounced per document', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ webhooks: FAST_WEBHOOKS });
  });
  afterAll(() => t.close());

  it('reports a burst of REST changes once, with the content after the last one', async () => {
    const r = await receiver();
    await enableWithEndpoint(t, r.url, { filterTypes: ['crdt.update_data'] });
    const doc = { organizationId: 'acme', documentId: 'rest-doc', editorId: 'e1' };
    await t.callK('/v2/crdt/add', { ...doc, type: 'text', data: 'one' });
    for (const data of ['two', 'three', 'four']) await t.callK('/v2/crdt/update', { ...doc, type: 'text', data });
    await eventually(() => expect(r.received).toHaveLength(1));
    const payload = JSON.parse(r.received[0]!.body);
    expect(payload).toMatchObject({
      event: 'crdt.update_data',
      actionType: 'updateData',
      source: 'crdt',
      data: {
        actionUser: { userId: 'rest-api' },
        crdtData: { id: 'e1', data: 'four', lastUpdatedBy: 'rest-api', sessionId: null, lastUpdate: expect.any(String) },
        metadata: { clientOrganizationId: 'acme', clientDocumentId: 'rest-doc' },
      },
    });
    // one event per burst: a later change opens a new one
    await t.callK('/v2/crdt/update', { ...doc, type: 'text', data: 'five' });
    await eventually(() => expect(r.received).toHaveLength(2));
    expect(JSON.parse(r.received[1]!.body).data.crdtData.data).toBe('five');
  });

  it('reports edits made over y-websocket, once per burst', async () => {
    const r = await receiver();
    await enableWithEndpoint(t, r.url, { filterTypes: ['crdt.update_data'] });
    const room = { organizationId: 'acme', documentId: 'live-doc', editorId: 'e1' };
    await t.callK('/v2/organizations/documents/add', {
      organizationId: 'acme',
      createOrganization: true,
      documents: [{ documentId: 'live-doc', accessType: 'restricted' }],
    });
    await t.callK('/v2/users/add', { organizationId: 'acme', documentId: 'live-doc', users: [{ userId: 'ann', accessRole: 'editor' }] });
    await t.callK('/v2/crdt/add', { ...room, type: 'text', data: '' });
    const token = dataOf<UserTokenAnswer>(await t.callK('/v2/auth/generate_token', { userId: 'ann' })).token;
    const client = connectYjs(t.url, room, { apiKey: t.credentials.apiKey, token });
    try {
      await client.synced;
      const text = client.doc.getText('content');
      for (const ch of 'typed') text.insert(text.length, ch);
      await eventually(() => expect(r.received.filter((x) => JSON.parse(x.body).data.crdtData.data === 'typed')).toHaveLength(1));
      const payload = JSON.parse(r.received.at(-1)!.body);
      expect(payload.data.crdtData.lastUpdatedBy).toBe('ann');
      // the REST add before the edits and the burst of keystrokes: no event per keystroke
      expect(r.received.length).toBeLessThanOrEqual(2);
    } finally {
      client.close();
    }
  });

  it('reports a burst longer than the maximum wait along the way, then its end', async () => {
    const DEBOUNCE_MS = 200;
    const busy = await startTestServer({ webhooks: { ...FAST_WEBHOOKS, crdtDebounceMs: DEBOUNCE_MS, crdtMaxWaitMs: 500 } });
    try {
      const r = await receiver();
      await enableWithEndpoint(busy, r.url, { filterTypes: ['crdt.update_data'] });
      const doc = { organizationId: 'acme', documentId: 'busy-doc', editorId: 'e1' };
      await busy.callK('/v2/crdt/add', { ...doc, type: 'text', data: 'v0' });
      const started = Date.now();
      let version = 0;
      // edits closer together than the debounce (the burst this test is about: paced on the debouncer's own
      // clock, the timers of this process)
      while (Date.now() - started < 1_200) {
        await busy.callK('/v2/crdt/update', { ...doc, type: 'text', data: `v${++version}` });
        await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS / 5));
      }
      // under continuous edits events still come, at most every maxWait; the last one has the final content
      await eventually(() => expect(JSON.parse(r.received.at(-1)!.body).data.crdtData.data).toBe(`v${version}`));
      const during = r.received.filter((x) => x.at < started + 1_200);
      expect(during.length).toBeGreaterThanOrEqual(1);
      expect(r.received.length).toBeLessThanOrEqual(5);
      // nothing more once the final state went out: no duplicate follow-up. Nothing can come any more once no
      // event of the document is open (only an edit opens one) and every event dispatched was received.
      const count = r.received.length;
      await eventually(async () => {
        const [events] = await busy.query<{ open: number; dispatched: number }>(
          "SELECT CAST(count(*) - count(dispatched_at) AS INTEGER) AS open, CAST(count(dispatched_at) AS INTEGER) AS dispatched FROM webhook_events WHERE type = 'crdt.update_data' AND document_id = ?",
          [doc.documentId],
        );
        expect(events?.open).toBe(0);
        expect(r.received).toHaveLength(events?.dispatched ?? -1);
      });
      expect(r.received).toHaveLength(count);
    } finally {
      await busy.close();
    }
  });

  it('is not written to the outbox when nobody listens', async () => {
    const quiet = await startTestServer({ webhooks: FAST_WEBHOOKS });
    try {
      await quiet.callK('/v2/crdt/add', { organizationId: 'acme', documentId: 'd', editorId: 'e', type: 'text', data: 'x' });
      const [rows] = await quiet.query<{ n: number }>('SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_events');
      expect(rows!.n).toBe(0);
    } finally {
      await quiet.close();
    }
  });
});

describe('deliveries survive restarts', () => {
  it('sends a pending retry after a graceful restart, with the same webhook-id', async () => {
    const r = await receiver({ script: [{ status: 500 }] });
    const t = await startTestServer({ webhooks: { ...FAST_WEBHOOKS, retryScheduleMs: [0, 500, 500] } });
    try {
      await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
      await enableWithEndpoint(t, r.url);
      await t.callK('/v2/commentannotations/add', {
        organizationId: 'acme',
        documentId: 'doc',
        commentAnnotations: [{ commentData: [{ commentText: 'x', from: { userId: 'ann' } }] }],
      });
      await eventually(() => expect(r.received).toHaveLength(1));
      await t.restart();
      await eventually(() => expect(r.received).toHaveLength(2));
      expect(r.received[1]!.headers['webhook-id']).toBe(r.received[0]!.headers['webhook-id']);
    } finally {
      await t.close();
    }
  });

  it('lets a request in flight finish when the server stops: answered within the grace, it is recorded and not sent again', async () => {
    const r = await receiver({ script: ['hang'] });
    const t = await startTestServer({ webhooks: FAST_WEBHOOKS, shutdownGraceMs: 10_000 });
    try {
      await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
      await enableWithEndpoint(t, r.url);
      await t.callK('/v2/commentannotations/add', {
        organizationId: 'acme',
        documentId: 'doc',
        commentAnnotations: [{ commentData: [{ commentText: 'x', from: { userId: 'ann' } }] }],
      });
      await eventually(() => expect(r.received).toHaveLength(1));
      // the receiver answers while the server is stopping (its delivery engine has been told to close)
      const closing = t.server.close();
      setTimeout(() => r.release(200), 500);
      await closing;
      const attempts = await t.query<{ status: string; code: number | null }>(
        'SELECT status, CAST(response_status_code AS INTEGER) AS code FROM webhook_attempts',
        [],
        {
          sqliteFile: 'webhooks.db',
        },
      );
      expect(attempts).toEqual([{ status: 'succeeded', code: 200 }]);
      const pending = await t.query<{ n: number }>("SELECT CAST(count(*) AS INTEGER) AS n FROM webhook_deliveries WHERE status <> 'succeeded'", [], {
        sqliteFile: 'webhooks.db',
      });
      expect(pending).toEqual([{ n: 0 }]);
    } finally {
      await t.close();
    }
  });

  it('cuts a request still in flight when the grace runs out, and sends it again after the restart', async () => {
    const r = await receiver({ script: ['hang'] });
    const t = await startTestServer({ webhooks: FAST_WEBHOOKS, shutdownGraceMs: 200 });
    try {
      await t.callK('/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] });
      await enableWithEndpoint(t, r.url);
      await t.callK('/v2/commentannotations/add', {
        organizationId: 'acme',
        documentId: 'doc',
        commentAnnotations: [{ commentData: [{ commentText: 'x', from: { userId: 'ann' } }] }],
      });
      await eventually(() => expect(r.received).toHaveLength(1));
      await t.restart();
      await eventually(() => expect(r.received).toHaveLength(2));
      expect(r.received[1]!.headers['webhook-id']).toBe(r.received[0]!.headers['webhook-id']);
    } finally {
      await t.close();
    }
  });

  it('delivers every acknowledged event after SIGKILL (at least once; receivers dedupe on webhook-id)', async () => {
    const r = await receiver({ fallback: 'hang' });
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-webhook-kill-'));
    try {
      let server = await startCliServer(dataDir, { WEBHOOK_RETRY_SCHEDULE_MS: '0,50,50,50' });
      const K = apiKeyHeaders(JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')));
      await call(server.url, '/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, K);
      await call(server.url, '/v2/workspace/advancedwebhook/endpoints/create', { url: r.url }, K);
      await call(server.url, '/v2/organizations/documents/add', { organizationId: 'acme', createOrganization: true, documents: [{ documentId: 'doc' }] }, K);
      const COUNT = 20;
      for (let i = 0; i < COUNT; i++) {
        const res = await call(
          server.url,
          '/v2/commentannotations/add',
          {
            organizationId: 'acme',
            documentId: 'doc',
            commentAnnotations: [{ annotationId: `a${i}`, commentData: [{ commentText: `c${i}`, from: { userId: 'ann' } }] }],
          },
          K,
        );
        expect(res.status).toBe(200);
      }
      // the receiver holds every request open: nothing is acknowledged when the server dies
      await eventually(() => expect(r.received.length).toBeGreaterThan(0));
      server.child.kill('SIGKILL');
      await server.exited;
      r.answer({ status: 200 });
      const restartedAt = Date.now();
      server = await startCliServer(dataDir, { WEBHOOK_RETRY_SCHEDULE_MS: '0,50,50,50' });
      try {
        await eventually(() => {
          const ok = new Set(r.received.filter((x) => x.at >= restartedAt).map((x) => JSON.parse(x.body).data.commentAnnotation.annotationId));
          expect(ok.size).toBe(COUNT);
        }, 15_000);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
