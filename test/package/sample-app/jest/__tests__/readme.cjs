// README's Jest example at work: hearth.setup.mjs (copied from README.md by test/cli/package.test.ts) started
// Hearth in Jest's global setup and put its URL and credentials in the environment; hearth.teardown.mjs stops it.
// CommonJS: this app is an ES module package, and Jest runs ES module tests only behind a Node flag. In __tests__
// without a .test suffix: Jest's default match finds it, vitest's (README's vitest example runs here too) does not.
test('reaches the Hearth that the globalSetup started', async () => {
  const url = process.env.HEARTH_URL;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const headers = { 'content-type': 'application/json', 'x-svc-api-key': process.env.HEARTH_API_KEY, 'x-svc-auth-token': process.env.HEARTH_AUTH_TOKEN };
  const res = await fetch(`${url}/v2/organizations/documents/add`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ data: { organizationId: 'je', createOrganization: true, documents: [{ documentId: 'one' }] } }),
  });
  expect(res.status).toBe(200);
  const reset = await fetch(`${url}/testing/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":{}}' });
  expect(reset.status).toBe(200);
  const after = await fetch(`${url}/v2/organizations/get`, { method: 'POST', headers, body: JSON.stringify({ data: { organizationIds: ['je'] } }) });
  expect(JSON.stringify(await after.json())).not.toContain('"je"');
});
