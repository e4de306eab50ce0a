// A call as a shell command or a fetch() snippet, with the header names of this server's brand and placeholders
// for the credentials (the UI never holds a token).
export interface CallShape {
  path: string;
  auth: 'workspace' | 'apiKey' | 'public';
  data: unknown;
  apiKey?: string;
  workspaceId?: string;
  brand?: string;
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function headers(c: CallShape): Array<[string, string]> {
  const brand = c.brand ?? 'svc';
  const out: Array<[string, string]> = [['content-type', 'application/json']];
  if (c.auth === 'apiKey') out.push([`x-${brand}-api-key`, c.apiKey ?? '$API_KEY'], [`x-${brand}-auth-token`, '$AUTH_TOKEN']);
  if (c.auth === 'workspace')
    out.push([`x-${brand}-workspace-id`, c.workspaceId ?? '$WORKSPACE_ID'], [`x-${brand}-workspace-auth-token`, '$WORKSPACE_AUTH_TOKEN']);
  return out;
}

export function asCurl(c: CallShape): string {
  const lines = [
    `curl -s -X POST ${location.origin}${c.path}`,
    ...headers(c).map(([k, v]) => `  -H ${v.startsWith('$') ? `"${k}: ${v}"` : quote(`${k}: ${v}`)}`),
    `  -d ${quote(JSON.stringify({ data: c.data }))}`,
  ];
  return lines.join(' \\\n');
}

export function asFetch(c: CallShape): string {
  const h = Object.fromEntries(headers(c).map(([k, v]) => [k, v.startsWith('$') ? `\${process.env.${v.slice(1)}}` : v]));
  const headerText = JSON.stringify(h, null, 2).replace(/"\$\{([^}]+)\}"/g, '`${$1}`');
  return `const res = await fetch('${location.origin}${c.path}', {\n  method: 'POST',\n  headers: ${headerText.replace(/\n/g, '\n  ')},\n  body: JSON.stringify({ data: ${JSON.stringify(c.data, null, 2).replace(/\n/g, '\n  ')} }),\n});\nconsole.log(await res.json());`;
}
