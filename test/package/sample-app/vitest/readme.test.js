// README's vitest example at work: hearth.setup.js (copied from README.md by test/cli/package.test.ts) started
// Hearth for this run and provided its URL and credentials.
import { expect, inject, it } from 'vitest';

it('reaches the Hearth that the globalSetup started', async () => {
  const { url, credentials } = inject('hearth');
  expect(url).toBe(process.env.HEARTH_URL);
  const res = await fetch(`${url}/v2/organizations/documents/add`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-api-key': credentials.apiKey, 'x-svc-auth-token': credentials.authToken },
    body: JSON.stringify({ data: { organizationId: 'vi', createOrganization: true, documents: [{ documentId: 'one' }] } }),
  });
  expect(res.status).toBe(200);
  const reset = await fetch(`${url}/testing/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":{}}' });
  expect(reset.status).toBe(200);
});
