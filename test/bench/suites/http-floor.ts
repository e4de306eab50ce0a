// HTTP floor: a bare node:http handler and an empty h3 handler vs Hearth's /v2/ping and an authenticated read.
import { load, ratio, startChild, startHearth, type Row } from '../harness.ts';

export const title = 'HTTP floor';

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  const node = await startChild(['test/bench/floor-server.ts', 'node']);
  const h3 = await startChild(['test/bench/floor-server.ts', 'h3']);
  const hearth = await startHearth();
  try {
    const ping = '{"data":{}}';
    const nodeFloor = await load(node.url, '/v2/ping', ping);
    rows.push({ scenario: 'floor: bare node:http', ...nodeFloor });
    const h3Floor = await load(h3.url, '/v2/ping', ping);
    rows.push({ scenario: 'floor: empty h3 handler', ...h3Floor });
    const hearthPing = await load(hearth.url, '/v2/ping', ping);
    rows.push({ scenario: 'Hearth POST /v2/ping', ...hearthPing, vs: `${ratio(hearthPing.rps, h3Floor.rps)} of h3 (goal ≥ 90%)` });
    const authed = await load(hearth.url, '/v2/workspace/apikeyconfig/get', ping, hearth.headers);
    rows.push({ scenario: 'Hearth apikeyconfig/get (set B auth + read)', ...authed, vs: `${ratio(authed.rps, h3Floor.rps)} of h3` });
  } finally {
    node.child.kill('SIGTERM');
    h3.child.kill('SIGTERM');
    hearth.stop();
  }
  return rows;
}
