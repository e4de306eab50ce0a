import type { TestServer } from './server.ts';

/** Adds one annotation with comments through the API; returns its id and the comment ids. */
export async function addAnnotation(t: TestServer, annotation: Record<string, unknown>, extra: Record<string, unknown> = {}, headers?: Record<string, string>) {
  const res = await t.callK('/v2/commentannotations/add', { organizationId: 'acme', documentId: 'doc', commentAnnotations: [annotation], ...extra }, headers);
  if (res.status !== 200) throw new Error(`commentannotations/add failed: ${JSON.stringify(res.body)}`);
  const [entry] = Object.values(res.body.result.data) as Array<{ annotationId: string; commentIds: number[] }>;
  return entry as { annotationId: string; commentIds: number[] };
}

export const activitiesOf = async (t: TestServer, targetEntityId: string) =>
  (await t.callK('/v2/activities/get', { organizationId: 'acme', targetEntityId, order: 'asc' })).body.result.data as Array<Record<string, any>>;
