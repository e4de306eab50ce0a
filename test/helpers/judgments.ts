import { addAnnotation } from './comments.ts';
import type { TestServer } from './server.ts';

/** A comment thread on a document, then a reaction on its first comment from each reviewer (👍 or 👎). */
export async function reviewThread(
  t: TestServer,
  documentId: string,
  author: string,
  text: string,
  votes: Record<string, string>,
  headers?: Record<string, string>,
) {
  const { annotationId, commentIds } = await addAnnotation(
    t,
    { commentData: [{ commentText: text, from: { userId: author, name: author } }] },
    { documentId, createDocument: true, createOrganization: true },
    headers,
  );
  for (const [userId, icon] of Object.entries(votes)) {
    const res = await t.callK(
      '/v2/reactions/add',
      { organizationId: 'acme', annotationId, commentId: commentIds[0], icon, from: { userId, name: userId } },
      headers,
    );
    if (res.status !== 200) throw new Error(`reactions/add failed: ${JSON.stringify(res.body)}`);
  }
  return annotationId;
}
