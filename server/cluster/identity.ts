// One cluster, one bus (issue 42, point 9). Instances of one PostgreSQL database talk over one Redis; an instance
// given another REDIS_URL served /readyz 200 while its live edits and access revocations never reached the others.
// Two checks, at start (the start is refused) and again on GET /readyz (not ready, with the reason):
//
// - The database's cluster id (cluster_identity, written once by the first instance) must be the one its Redis holds
//   under hearth:cluster-id. A Redis that holds none (a new cluster, or a Redis restarted without persistence or
//   flushed) is given it, and that is logged. A Redis that holds another id serves another cluster.
// - A Redis that holds no id cannot tell a flush from a wrong, empty Redis. So then (and only then) the instances running on the database
//   (named by the connection each holds its claim on: pg_stat_activity) must also be connected to this Redis (named
//   by their connections there: CLIENT LIST). One that is not is on another bus. A flush or a restart of Redis keeps
//   or restores the connections (ioredis reconnects under the same name), so it does not fail this check.
import { randomUUID } from 'node:crypto';
import type { Storage } from '../db/repos/index.ts';
import type { Logger } from '../log.ts';
import type { ClusterBus } from './bus.ts';

/** How long a /readyz answer reuses the last verdict: a load balancer probes every few seconds. */
const RECHECK_MS = 5_000;
/** An instance starting or stopping holds its claim a moment without its Redis connections: looked at again. */
const PEER_RETRIES = 3;
const PEER_RETRY_MS = 1_000;

export interface ClusterCheck {
  /** 'ok', or why this instance is not on its database's bus (checked now). */
  check(): Promise<string>;
  /** The verdict of at most RECHECK_MS ago (GET /readyz). */
  current(): Promise<string>;
}

export function createClusterCheck(storage: Pick<Storage, 'clusterIdentity'>, bus: ClusterBus, log: Logger): ClusterCheck {
  let last: { at: number; verdict: Promise<string> } | undefined;
  let lastLogged = 'ok';

  async function peersMissing(): Promise<{ missing: string[]; others: number; clusterId: string; created: boolean } | undefined> {
    for (let attempt = 1; ; attempt++) {
      const identity = await storage.clusterIdentity(randomUUID());
      if (!identity) return undefined;
      const others = identity.liveInstances.filter((id) => id !== bus.instanceId);
      const connected = await bus.connectedInstances();
      const missing = connected ? others.filter((id) => !connected.has(id)) : [];
      if (missing.length === 0 || attempt >= PEER_RETRIES) return { missing, others: others.length, clusterId: identity.clusterId, created: identity.created };
      await new Promise((resolve) => setTimeout(resolve, PEER_RETRY_MS));
    }
  }

  const anotherCluster = (held: string, clusterId: string) =>
    `this Redis serves another Hearth cluster (its cluster id is ${held}; this PostgreSQL database's is ${clusterId}): ` +
    "REDIS_URL must name the Redis of this database's cluster, and each cluster needs a Redis of its own";

  async function check(): Promise<string> {
    const identity = await storage.clusterIdentity(randomUUID());
    if (!identity) return 'ok';
    const already = await bus.heldClusterId();
    if (already !== null) return already === identity.clusterId ? 'ok' : anotherCluster(already, identity.clusterId);
    // A Redis with no id: flushed, or the wrong one. Only then are the running instances asked for: a host that died
    // keeps its claim in pg_stat_activity until TCP gives up on it (hours), and asked on every probe it would take
    // every instance of the cluster out of /readyz meanwhile.
    const found = await peersMissing();
    if (!found) return 'ok';
    const { missing, others, clusterId, created } = found;
    if (missing.length > 0)
      return (
        `${missing.length} of the ${others} other instances running on this PostgreSQL database ${missing.length === 1 ? 'is' : 'are'} not connected ` +
        `to this Redis (instance ${missing.join(', ')}): REDIS_URL must name the Redis the database's other instances use`
      );
    const { held, written } = await bus.claimClusterId(clusterId);
    if (held !== clusterId) return anotherCluster(held, clusterId);
    if (written && created) log.info('new cluster: its id written to the database and to Redis', { clusterId });
    else if (written) log.warn("Redis held no cluster id (restarted without persistence, or flushed): the database's written to it again", { clusterId });
    return 'ok';
  }

  return {
    check,
    current() {
      const now = Date.now();
      if (!last || now - last.at >= RECHECK_MS) {
        const verdict = check().catch((error: unknown) => `not checked: ${error instanceof Error ? error.message : String(error)}`);
        last = { at: now, verdict };
        void verdict.then((v) => {
          // once a change, not once a probe
          if (v !== lastLogged) {
            if (v === 'ok') log.info('cluster bus check passes again');
            else log.error('cluster bus check failed: this instance is not ready', { reason: v });
          }
          lastLogged = v;
        });
      }
      return last.verdict;
    },
  };
}
