// Cutting one large Yjs update into small ones that apply in order to the same result (issue 42). yjs 13 applies an
// update in one synchronous transaction, in time linear in its structs: one client's sync message of 30,000 nested
// XML elements (313 KB) held the event loop 90–170 ms on this machine, three at once 380 ms. Cut here (in the Yjs
// worker thread, yjs-worker.ts), the slices are applied on the event loop one per turn, with other work between.
import * as encoding from 'lib0/encoding';
import * as Y from 'yjs';

type Struct = Y.Item | Y.GC | Y.Skip;

/** The structs a struct needs before it (its left and right origin and its parent, when other structs). */
function dependencies(struct: Struct): Y.ID[] {
  if (!(struct instanceof Y.Item)) return [];
  const deps: Y.ID[] = [];
  if (struct.origin) deps.push(struct.origin);
  if (struct.rightOrigin) deps.push(struct.rightOrigin);
  if (struct.parent instanceof Y.ID) deps.push(struct.parent);
  return deps;
}

/**
 * The update's structs cut into updates of at most `maxStructs` structs each, in an order where every struct comes
 * after the structs of the update it depends on (so that each slice integrates at once instead of waiting in Yjs's
 * pending set), then its delete set alone. An update of at most `maxStructs` structs comes back as it is. Throws
 * what Yjs throws for an update it cannot read.
 */
export function sliceUpdate(update: Uint8Array, maxStructs: number): Uint8Array[] {
  const { structs, ds } = Y.decodeUpdate(update);
  if (structs.length <= maxStructs) return [update];
  const byClient = new Map<number, Struct[]>();
  for (const struct of structs as Struct[]) {
    const list = byClient.get(struct.id.client);
    if (list) list.push(struct);
    else byClient.set(struct.id.client, [struct]);
  }
  for (const list of byClient.values()) list.sort((a, b) => a.id.clock - b.id.clock);
  const next = new Map<number, number>(); // per client: the index of its next struct to emit
  for (const client of byClient.keys()) next.set(client, 0);
  /** The clock up to which a client's structs of this update are emitted. */
  const emittedTo = (client: number) => {
    const list = byClient.get(client) as Struct[];
    const i = next.get(client) as number;
    return i < list.length ? (list[i] as Struct).id.clock : Number.POSITIVE_INFINITY;
  };
  const order: Struct[] = [];
  // Depth-first over clients, as Yjs's own integration walks them: a struct whose dependency is a later struct of
  // another client of this update first emits that client up to it. A client already on the stack (a cycle, which
  // only a corrupted update has) is not waited for: Yjs decides about such structs as it would have.
  const onStack = new Set<number>();
  for (const start of byClient.keys()) {
    const stack: number[] = [start];
    onStack.add(start);
    while (stack.length > 0) {
      const client = stack[stack.length - 1] as number;
      const list = byClient.get(client) as Struct[];
      const i = next.get(client) as number;
      if (i >= list.length) {
        stack.pop();
        onStack.delete(client);
        continue;
      }
      const struct = list[i] as Struct;
      let waitFor: number | undefined;
      for (const dep of dependencies(struct)) {
        if (dep.client !== client && byClient.has(dep.client) && !onStack.has(dep.client) && emittedTo(dep.client) <= dep.clock) {
          waitFor = dep.client;
          break;
        }
      }
      if (waitFor !== undefined) {
        stack.push(waitFor);
        onStack.add(waitFor);
        continue;
      }
      order.push(struct);
      next.set(client, i + 1);
      // emitted far enough for the struct that waited: back to it
      if (stack.length > 1) {
        const waiting = byClient.get(stack[stack.length - 2] as number) as Struct[];
        const waitingStruct = waiting[next.get(stack[stack.length - 2] as number) as number];
        if (waitingStruct && dependencies(waitingStruct).every((dep) => dep.client !== client || emittedTo(client) > dep.clock)) {
          stack.pop();
          onStack.delete(client);
        }
      }
    }
  }
  const slices: Uint8Array[] = [];
  for (let from = 0; from < order.length; from += maxStructs) slices.push(encodeStructs(order.slice(from, from + maxStructs)));
  // the deletions last, when every struct they name is there: the update with none of its structs
  if (ds.clients.size > 0) slices.push(Y.diffUpdate(update, Y.encodeStateVectorFromUpdate(update)));
  return slices;
}

/** An update (format v1) of structs that run in clock order per client, with no deletions. */
function encodeStructs(structs: Struct[]): Uint8Array {
  const runs = new Map<number, Struct[]>();
  for (const struct of structs) {
    const run = runs.get(struct.id.client);
    if (run) run.push(struct);
    else runs.set(struct.id.client, [struct]);
  }
  const encoder = new Y.UpdateEncoderV1();
  encoding.writeVarUint(encoder.restEncoder, runs.size);
  for (const [client, run] of runs) {
    encoding.writeVarUint(encoder.restEncoder, run.length);
    encoder.writeClient(client);
    encoding.writeVarUint(encoder.restEncoder, (run[0] as Struct).id.clock);
    for (const struct of run) struct.write(encoder, 0);
  }
  encoding.writeVarUint(encoder.restEncoder, 0); // an empty delete set
  return encoder.toUint8Array();
}
