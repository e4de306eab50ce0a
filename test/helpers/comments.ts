import { dataOf, type TestServer } from './server.ts';

/** An activity record as /v2/activities/get answers it (the fields tests read; the rest as answered). */
export interface ActivityRecord {
  id: string;
  featureType: string;
  actionType: string;
  actionUser: { userId: string; name?: string; email?: string };
  targetEntityId: string | null;
  targetSubEntityId: string | null;
  changes?: Record<string, { from?: unknown; to?: unknown }> | null;
  entityData?: Record<string, unknown> | null;
  [field: string]: unknown;
}

/** Adds one annotation with comments through the API; returns its id and the comment ids. */
export async function addAnnotation(t: TestServer, annotation: Record<string, unknown>, extra: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const res = await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'doc', commentAnnotations: [annotation], ...extra }, headers);
  if (res.status !== 200) throw new Error(`commentannotations/add failed: ${JSON.stringify(res.body)}`);
  const [entry] = Object.values(dataOf<Record<string, { annotationId: string; commentIds: number[] }>>(res));
  if (entry === undefined) throw new Error('commentannotations/add answered no annotation');
  return entry;
}

export const activitiesOf = async (t: TestServer, targetEntityId: string) =>
  dataOf<ActivityRecord[]>(await t.callK('/v2/activities/get', { organizationId: 'acme', targetEntityId, order: 'asc' }));
