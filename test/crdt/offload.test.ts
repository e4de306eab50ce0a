// The Yjs worker thread (server/crdt/offload.ts, yjs-worker.ts; issue 42): what it answers is what the same work on
// the event loop gives: slices that build the document, content as readContent reads it, and its errors as the
// errors readContent throws (FAILED_PRECONDITION for a document too deep, which quarantines a webhook event).
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { readContent, type CrdtType } from '../../server/crdt/content.ts';
import { OFFLOAD_BYTES, renderStored, sliceOffThread } from '../../server/crdt/offload.ts';
import { ApiError } from '../../server/errors.ts';
import { nestXml } from '../helpers/yjs.ts';

/** A document past the offload size, of each kind, written in several updates (a snapshot and a log). */
function bigDoc(type: CrdtType) {
  const doc = new Y.Doc();
  const updates: Uint8Array[] = [];
  doc.on('update', (u: Uint8Array) => updates.push(u));
  for (let round = 0; round < 40; round++) {
    doc.transact(() => {
      if (type === 'text') doc.getText('c').insert(0, `${round}:${'x'.repeat(2_000)}\n`);
      else if (type === 'map') doc.getMap('c').set(`k${round}`, 'y'.repeat(2_000));
      else if (type === 'array') doc.getArray('c').push(['z'.repeat(2_000)]);
      else doc.getXmlFragment('c').insert(0, [new Y.XmlText(`t${round}${'w'.repeat(2_000)}`)]);
    });
  }
  const snapshot = Y.mergeUpdates(updates.slice(0, 20));
  return { doc, snapshot, log: updates.slice(20) };
}

describe('the Yjs worker thread', () => {
  it('renders a large stored document as the event loop would', async () => {
    for (const type of ['text', 'map', 'array', 'xml'] as const) {
      const { doc, snapshot, log } = bigDoc(type);
      expect(snapshot.length + log.reduce((s, u) => s + u.length, 0)).toBeGreaterThan(OFFLOAD_BYTES);
      let inline = false;
      const rendered = await renderStored({ snapshot, log }, { type, contentKey: 'c', infer: false }, () => (inline = true));
      expect(inline).toBe(false);
      expect(rendered).toEqual(readContent(doc, type, 'c'));
    }
  });

  it('answers a document too deep to render with the FAILED_PRECONDITION readContent throws', async () => {
    const doc = nestXml(new Y.Doc(), 'c', 30_000);
    const error = await renderStored({ snapshot: Y.encodeStateAsUpdate(doc), log: [] }, { type: 'xml', contentKey: 'c', infer: false }, () => 'inline').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe('FAILED_PRECONDITION');
    // cut into slices there, which build the same document here
    const slices = await sliceOffThread(Y.encodeStateAsUpdate(doc));
    expect(slices.length).toBe(15);
    const copy = new Y.Doc();
    for (const slice of slices) Y.applyUpdate(copy, slice);
    expect(Y.encodeStateVector(copy)).toEqual(Y.encodeStateVector(doc));
  });

  it('renders a small document on the event loop, and refuses an unreadable update as Yjs would', async () => {
    expect(await renderStored({ snapshot: null, log: [new Uint8Array([0, 0])] }, { type: 'text', contentKey: 'c', infer: false }, () => 'inline')).toBe(
      'inline',
    );
    const garbage = new Uint8Array(OFFLOAD_BYTES + 10).fill(200);
    await expect(sliceOffThread(garbage)).rejects.toThrow();
  });
});
