// Started by external-servers.test.ts: starts both servers, prints where they are, and waits to be killed.
import { startPostgres, startRedis } from '../helpers/external-servers.ts';

const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
const servers = [postgres, redis].map(({ pid, port, dir }) => ({ pid, port, dir }));
process.stdout.write(`${JSON.stringify(servers)}\n`);
// the servers' pipes are released (unref'd); this timer is what keeps the process alive until the test kills it
setInterval(() => {}, 60_000);
