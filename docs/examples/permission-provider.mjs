// A permission provider for Hearth (README, "Permission provider"): Hearth POSTs the access questions, this server
// decides with `decide`, has Hearth sign the decisions (/v2/auth/generate_signature) and answers them signed.
import { createServer } from 'node:http';

export function startPermissionProvider({ hearthUrl, apiKey, authToken, providerToken, decide, port = 0 }) {
  const server = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${providerToken}`) return res.writeHead(401).end();
    let body = '';
    for await (const chunk of req) body += chunk;
    const { requests } = JSON.parse(body).data; // [{ userId, resourceId, type, organizationId }]
    // decide(request) -> { hasAccess, accessRole? (documents only), expiresAt? (ms) }: your own rules
    const permissions = requests.map((r) => ({ userId: r.userId, resourceId: r.resourceId, type: r.type, ...decide(r) }));
    const signed = await fetch(`${hearthUrl}/v2/auth/generate_signature`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-api-key': apiKey, 'x-svc-auth-token': authToken },
      body: JSON.stringify({ data: { permissions } }),
    }).then((answer) => answer.json());
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: { permissions, signature: signed.result.data.signature } }));
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
