// README, "Run as a cluster": its nginx config (docs/cluster/nginx.conf, as it is, only its ports changed) in front
// of three Hearth instances as processes over one PostgreSQL and one Redis. REST calls and y-websocket rooms through
// nginx reach every instance and converge; with an instance killed, nginx sends the next requests to the others.
//
// nginx is Debian's package (.ci/run installs it; the system service is never started): it runs here in the
// foreground as this user, on 127.0.0.1 and a free port, with its prefix, temp dirs, pid file and error log in a
// temp dir of its own. Without an nginx binary this test fails, naming the package: it is never skipped.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcessCluster, type ProcessCluster, type ProcessInstance } from '../helpers/cluster-processes.ts';
import { freePort, type Kept, keep, portIsOpen, waitUntil } from '../helpers/external-servers.ts';
import { apiKeyHeaders, call, dataOf, eventually } from '../helpers/server.ts';
import { connectYjs } from '../helpers/yjs.ts';

/** The nginx binary: NGINX if set, else Debian's. */
const NGINX = process.env.NGINX || '/usr/sbin/nginx';
/** The Debian package CI installs (.ci/run), named when the binary is missing. */
const NGINX_PACKAGE = 'nginx';
const CONFIG = join(import.meta.dirname, '..', '..', 'docs', 'cluster', 'nginx.conf');
/** The ports the documented config names: its three instances and the port it listens on. */
const DOC_UPSTREAM_PORTS = [8781, 8782, 8783];
const DOC_LISTEN_PORT = 8080;

let cluster: ProcessCluster | undefined;
let nginx: Kept | undefined;
let proxy = '';

/**
 * The README's config with the instances' and the listen port substituted, inside the least of a main config that
 * keeps everything of nginx's in `dir` (what /etc/nginx/nginx.conf's http context would otherwise give it).
 */
function writeConfig(dir: string, instancePorts: number[], listenPort: number): string {
  let site = readFileSync(CONFIG, 'utf8');
  for (const [n, port] of DOC_UPSTREAM_PORTS.entries()) {
    const pattern = new RegExp(`server 127\\.0\\.0\\.1:${port} `, 'g');
    if (!pattern.test(site)) throw new Error(`docs/cluster/nginx.conf no longer names 127.0.0.1:${port}: update this test with it`);
    site = site.replace(pattern, `server 127.0.0.1:${instancePorts[n]} `);
  }
  const listen = new RegExp(`listen ${DOC_LISTEN_PORT};`);
  if (!listen.test(site)) throw new Error(`docs/cluster/nginx.conf no longer listens on ${DOC_LISTEN_PORT}: update this test with it`);
  site = site.replace(listen, `listen 127.0.0.1:${listenPort};`);
  writeFileSync(join(dir, 'hearth.conf'), site);
  const main = [
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    `error_log ${join(dir, 'error.log')} warn;`,
    // as root, nginx's workers would switch to `nobody`, which cannot use this temp dir; as any other user nginx
    // runs as that user and the directive is left out (it would only warn)
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    'events { worker_connections 256; }',
    'http {',
    `  access_log ${join(dir, 'access.log')};`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, kind)};`),
    `  include ${join(dir, 'hearth.conf')};`,
    '}',
  ];
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, `${main.join('\n')}\n`);
  return file;
}

beforeAll(async () => {
  if (!existsSync(NGINX)) {
    throw new Error(
      `nginx was not found at ${NGINX}: this test runs the README's nginx config in front of a cluster. ` +
        `Install Debian's package: apt-get install -y ${NGINX_PACKAGE} (.ci/run does; its service need not run), or set NGINX to the binary.`,
    );
  }
  cluster = await startProcessCluster(3);
  const dir = mkdtempSync(join(tmpdir(), 'hearth-nginx-'));
  const listenPort = await freePort();
  const file = writeConfig(
    dir,
    cluster.instances.map((i) => i.port),
    listenPort,
  );
  // -p: the prefix (relative paths), -e: the error log from the start (before the config names its own)
  nginx = await keep(dir, 'TERM', [NGINX, '-p', `${dir}/`, '-c', file, '-e', join(dir, 'error.log')], undefined);
  await waitUntil('nginx', nginx, () => portIsOpen(listenPort), 20_000);
  nginx.release();
  proxy = `http://127.0.0.1:${listenPort}`;
}, 120_000);
afterAll(async () => {
  await nginx?.stop();
  await cluster?.close();
}, 60_000);

const instancesOf = () => (cluster as ProcessCluster).instances;
const credentials = () => (instancesOf()[0] as ProcessInstance).credentials;
const keyParams = () => ({ apiKey: credentials().apiKey, authToken: credentials().authToken });
const viaProxy = <T>(path: string, data: unknown) => call<T>(proxy, path, data, apiKeyHeaders(credentials()));
const room = { organizationId: 'lb-org', documentId: 'lb-doc', editorId: 'lb-editor' };

/** An instance's open y-websocket connections, from its GET /metrics. */
async function websocketsOn(instance: ProcessInstance): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('hearth_websocket_connections '));
  if (line === undefined) throw new Error('no hearth_websocket_connections in /metrics');
  return Number(line.split(' ')[1]);
}

describe('the README cluster example: nginx in front of three instances', () => {
  it('REST calls through nginx are served by the cluster, and what one wrote every instance reads', async () => {
    expect((await fetch(`${proxy}/readyz`)).status).toBe(200);
    expect(
      (
        await viaProxy('/v2/organizations/documents/add', {
          organizationId: room.organizationId,
          createOrganization: true,
          documents: [{ documentId: room.documentId }],
        })
      ).status,
    ).toBe(200);
    // round-robin: consecutive writes through nginx land on different instances, and each is read back everywhere
    for (let n = 0; n < 6; n++) {
      const added = await viaProxy('/v2/crdt/add', { ...room, editorId: `rest-${n}`, type: 'text', data: `written ${n}` });
      expect(added.status).toBe(200);
    }
    for (const instance of instancesOf()) {
      for (let n = 0; n < 6; n++) {
        const read = await instance.callK('/v2/crdt/get', { ...room, editorId: `rest-${n}` });
        expect(dataOf<Array<{ data: unknown }>>(read).map((e) => e.data)).toEqual([`written ${n}`]);
      }
    }
  });

  it('y-websocket rooms through nginx reach each instance and converge', async () => {
    // one after the other, nothing else through nginx meanwhile: round-robin gives each its own instance
    const clients: ReturnType<typeof connectYjs>[] = [];
    try {
      for (let n = 0; n < 3; n++) {
        const client = connectYjs(proxy, room, keyParams());
        clients.push(client);
        await client.synced;
      }
      // the upgrades went through: one connection on each instance, as the instances count them
      await eventually(async () => expect(await Promise.all(instancesOf().map(websocketsOn))).toEqual([1, 1, 1]), 5_000);
      const EDITS = 30;
      await Promise.all(
        clients.map(async (client, n) => {
          const text = client.doc.getText('default');
          for (let e = 0; e < EDITS; e++) {
            text.insert(Math.floor(Math.random() * (text.length + 1)), String.fromCharCode(120 + n));
            if (e % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
          }
        }),
      );
      await eventually(() => {
        const texts = clients.map((c) => c.doc.getText('default').toString());
        expect(texts[0]?.length).toBe(3 * EDITS);
        expect(new Set(texts).size).toBe(1);
      }, 15_000);
      const final = (clients[0] as ReturnType<typeof connectYjs>).doc.getText('default').toString();
      // stored once and read the same through nginx and on every instance
      await eventually(async () => {
        const read = await viaProxy('/v2/crdt/get', room);
        expect(dataOf<Array<{ data: unknown }>>(read).map((e) => e.data)).toEqual([final]);
        for (const instance of instancesOf()) {
          const own = await instance.callK('/v2/crdt/get', room);
          expect(dataOf<Array<{ data: unknown }>>(own).map((e) => e.data)).toEqual([final]);
        }
      }, 10_000);
    } finally {
      for (const client of clients) client.close();
    }
  });

  it('with an instance killed, nginx sends every request to the others', async () => {
    const victim = instancesOf()[2] as ProcessInstance;
    await victim.kill();
    const statuses: number[] = [];
    for (let n = 0; n < 9; n++) {
      const res = await viaProxy('/v2/crdt/update', { ...room, editorId: 'rest-0', type: 'text', data: `after the kill ${n}` });
      statuses.push(res.status);
    }
    expect(statuses).toEqual(Array(9).fill(200));
    const read = await viaProxy('/v2/crdt/get', { ...room, editorId: 'rest-0' });
    expect(dataOf<Array<{ data: unknown }>>(read).map((e) => e.data)).toEqual(['after the kill 8']);
    // a new websocket through nginx opens too, on a survivor
    const client = connectYjs(proxy, room, keyParams());
    try {
      await client.synced;
      expect(client.doc.getText('default').length).toBeGreaterThan(0);
    } finally {
      client.close();
    }
    await victim.restart();
    expect((await call(victim.url, '/v2/crdt/get', { ...room, editorId: 'rest-0' }, apiKeyHeaders(credentials()))).status).toBe(200);
  });
});
