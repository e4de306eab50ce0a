// The access model at scale: reads must stay O(page) whether an organization holds 1k or 100k documents,
// and a folder move must cost the moved subtree, not the tree. Both sizes are measured in the same run.
import { load, startHearth, type Row } from '../harness.ts';

export const title = 'Access model: 1k vs 100k documents, 10-level folder tree';

type Hearth = Awaited<ReturnType<typeof startHearth>>;

async function seed(h: Hearth, organizationId: string, documents: number) {
  // a 10-level folder chain, plus 50 side folders under its top so that the tree is not a mere line
  const chain = Array.from({ length: 10 }, (_, i) => ({
    folderId: `${organizationId}-l${i}`,
    parentFolderId: i === 0 ? undefined : `${organizationId}-l${i - 1}`,
  }));
  const side = Array.from({ length: 50 }, (_, i) => ({ folderId: `${organizationId}-side${i}`, parentFolderId: `${organizationId}-l0` }));
  await h.call('/v2/organizations/folders/add', { organizationId, createOrganization: true, folders: [...chain, ...side] });
  for (let start = 0; start < documents; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, documents - start) }, (_, i) => ({ documentId: `doc-${String(start + i).padStart(7, '0')}` }));
    // every tenth batch goes to the deepest folder
    const folderId = (start / 1000) % 10 === 9 ? `${organizationId}-l9` : undefined;
    await h.call('/v2/organizations/documents/add', { organizationId, folderId, documents: batch });
  }
  const users = Array.from({ length: 200 }, (_, i) => ({ userId: `user-${i}`, accessRole: i % 2 ? 'viewer' : 'editor' }));
  await h.call('/v2/users/add', { organizationId, users });
  await h.call('/v2/users/add', { organizationId, folderId: `${organizationId}-l3`, users: users.slice(0, 20) });
}

/** A page token from the middle of the organization's documents (page tokens ignore pageSize). */
async function middleToken(h: Hearth, organizationId: string, documents: number) {
  const step = Math.min(1000, documents / 2);
  let token: string | undefined;
  for (let seen = 0; seen < documents / 2; seen += step) {
    token = (await h.call<{ pageToken?: string }>('/v2/organizations/documents/get', { organizationId, pageSize: step, pageToken: token })).pageToken;
  }
  return token;
}

async function timeMoves(h: Hearth, organizationId: string, rounds: number) {
  // moves a 3-folder subtree back and forth between two parents; the rest of the tree is untouched
  await h.call('/v2/organizations/folders/add', {
    organizationId,
    folders: [
      { folderId: `${organizationId}-m0`, parentFolderId: `${organizationId}-side0` },
      { folderId: `${organizationId}-m1`, parentFolderId: `${organizationId}-m0` },
      { folderId: `${organizationId}-m2`, parentFolderId: `${organizationId}-m1` },
    ],
  });
  const started = performance.now();
  for (let i = 0; i < rounds; i++) {
    const parent = i % 2 ? `${organizationId}-side0` : `${organizationId}-l9`;
    await h.call('/v2/organizations/folders/update', { organizationId, folders: [{ folderId: `${organizationId}-m0`, parentFolderId: parent }] });
  }
  return rounds / ((performance.now() - started) / 1000);
}

export async function run(): Promise<Row[]> {
  const h = await startHearth();
  const rows: Row[] = [];
  try {
    const sizes = [1_000, 100_000];
    for (const size of sizes) await seed(h, `org${size}`, size);
    const measure = async (label: string, make: (org: string, size: number) => Promise<unknown>) => {
      const results = [];
      for (const size of sizes) {
        const data = await make(`org${size}`, size);
        results.push(await load(h.url, label.split(' ')[0]!, JSON.stringify({ data }), h.headers));
      }
      rows.push({ scenario: `${label} @1k`, ...results[0]! });
      rows.push({ scenario: `${label} @100k`, ...results[1]!, baseline: { scenario: 'the same @1k', figure: results[0]!.rps } });
    };
    await measure('/v2/organizations/documents/get first page of 50', async (organizationId) => ({ organizationId, pageSize: 50 }));
    await measure('/v2/organizations/documents/get page of 50 mid-way', async (organizationId, size) => ({
      organizationId,
      pageSize: 50,
      pageToken: await middleToken(h, organizationId, size),
    }));
    await measure('/v2/organizations/documents/get deepest folder, page of 50', async (organizationId) => ({
      organizationId,
      folderId: `${organizationId}-l9`,
      pageSize: 50,
    }));
    await measure('/v2/organizations/documents/get 30 ids', async (organizationId, size) => ({
      organizationId,
      documentIds: Array.from({ length: 30 }, (_, i) => `doc-${String(Math.floor((i * size) / 30)).padStart(7, '0')}`),
    }));
    await measure('/v2/organizations/folders/get from the top, maxDepth 3', async (organizationId) => ({ organizationId, maxDepth: 3 }));
    await measure('/v2/auth/permissions/get 10 users x 10 documents', async (organizationId, size) => ({
      organizationId,
      userIds: Array.from({ length: 10 }, (_, i) => `user-${i * 7}`),
      documentIds: Array.from({ length: 10 }, (_, i) => `doc-${String(Math.floor((i * size) / 10)).padStart(7, '0')}`),
    }));
    const moves = [] as number[];
    for (const size of sizes) moves.push(await timeMoves(h, `org${size}`, 200));
    rows.push({ scenario: 'folders/update move of a 3-folder subtree @1k (sequential)', rps: moves[0]!, p50: 0, p99: 0, unit: 'moves/s' });
    rows.push({
      scenario: 'folders/update move of a 3-folder subtree @100k (sequential)',
      rps: moves[1]!,
      p50: 0,
      p99: 0,
      unit: 'moves/s',
      baseline: { scenario: 'the same @1k', figure: moves[0]! },
    });
  } finally {
    h.stop();
  }
  return rows;
}
