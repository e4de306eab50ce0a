// Memory: a server's resident set size (/proc/<pid>/status) idle, after touching 10,000 CRDT documents (each
// created over REST crdt/add, which loads it), and after going idle long enough for the server to store and
// unload them (crdtIdleMs, 30 s by default and not settable from the command line, plus the 5 s sweep and a
// margin). Goal: back under 300 MB.
import { inPool, rssMb, startHearth, type Row } from '../harness.ts';

export const title = 'Memory: RSS after touching 10,000 CRDT documents, then idle';

const DOCUMENTS = 10_000;
/** defaultConfig().crdtIdleMs, the sweep interval (min(idleMs, 5 s)) and a margin for the last sweep's work. */
const IDLE_WAIT_MS = 30_000 + 5_000 + 10_000;
const TEXT = 'A paragraph of a document that someone opened, typed into and left for the day. '.repeat(12);

export async function run(): Promise<Row[]> {
  const hearth = await startHearth();
  try {
    const pid = hearth.child.pid;
    await hearth.call('/v2/ping', {});
    const idleBefore = rssMb(pid);
    const touchStarted = performance.now();
    await inPool(
      Array.from({ length: DOCUMENTS }, (_, i) => i),
      8,
      async (i) => {
        await hearth.call('/v2/crdt/add', { organizationId: 'org', documentId: `doc-${i}`, editorId: 'editor', type: 'text', data: TEXT });
      },
    );
    const touchSeconds = (performance.now() - touchStarted) / 1000;
    const afterTouch = rssMb(pid);
    const lastTouch = performance.now();
    const samples: number[] = [];
    while (performance.now() - lastTouch < IDLE_WAIT_MS) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      samples.push(rssMb(pid));
    }
    const idleAfter = samples.at(-1) ?? afterTouch;
    const floorRow = 'floor: the idle server before touching';
    const baseline = { scenario: 'idle floor', figure: idleBefore };
    return [
      { scenario: floorRow, rps: 0, p50: 0, p99: 0, figure: idleBefore, unit: 'MB' },
      {
        scenario: `right after touching ${DOCUMENTS.toLocaleString('en-US')} documents`,
        rps: 0,
        p50: 0,
        p99: 0,
        figure: afterTouch,
        unit: 'MB',
        baseline,
        vs: `touched in ${touchSeconds.toFixed(0)} s (${Math.round(DOCUMENTS / touchSeconds)} crdt/add/s, 8 at a time)`,
      },
      {
        scenario: `${IDLE_WAIT_MS / 1000} s idle after the last touch`,
        rps: 0,
        p50: 0,
        p99: 0,
        figure: idleAfter,
        unit: 'MB',
        baseline,
        goal: { kind: 'value<=', value: 300 },
        vs: `lowest while idle ${Math.min(...samples)} MB`,
      },
    ];
  } finally {
    await hearth.stop();
  }
}
