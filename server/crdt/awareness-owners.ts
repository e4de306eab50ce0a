// Awareness (presence: cursors, names) is a map from a client id to a state that any peer may set: y-protocols
// trusts its peers. The server does not: a connection may set and remove only the client ids it introduced, so
// that no one (a read-only connection included) can overwrite or remove another client's presence.
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';

interface AwarenessEntry {
  clientId: number;
  clock: number;
  /** The state's JSON text, as sent (`null` removes the client). */
  state: string;
}

/** An awareness update's entries (y-protocols/awareness: a count, then client id, clock and state JSON for each). */
function decodeEntries(update: Uint8Array): AwarenessEntry[] {
  const decoder = decoding.createDecoder(update);
  const count = decoding.readVarUint(decoder);
  const entries: AwarenessEntry[] = [];
  for (let i = 0; i < count; i++) {
    entries.push({ clientId: decoding.readVarUint(decoder), clock: decoding.readVarUint(decoder), state: decoding.readVarString(decoder) });
  }
  return entries;
}

function encodeEntries(entries: AwarenessEntry[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, entries.length);
  for (const entry of entries) {
    encoding.writeVarUint(encoder, entry.clientId);
    encoding.writeVarUint(encoder, entry.clock);
    encoding.writeVarString(encoder, entry.state);
  }
  return encoding.toUint8Array(encoder);
}

/**
 * The part of `update` that `connection` may apply: entries of client ids it owns, and of ids no connection owns
 * (it owns those from now on, once it gives them a state), never the server's own id (`serverClientId`). `owners`
 * maps each connection of the room to the ids it owns. Null when nothing is left. Throws on a malformed update.
 */
export function ownedAwarenessUpdate(update: Uint8Array, connection: object, owners: Map<object, Set<number>>, serverClientId: number): Uint8Array | null {
  const entries = decodeEntries(update);
  const mine = owners.get(connection);
  if (!mine) return null;
  const accepted = entries.filter((entry) => {
    if (entry.clientId === serverClientId) return false;
    if (mine.has(entry.clientId)) return true;
    for (const [other, ids] of owners) if (other !== connection && ids.has(entry.clientId)) return false;
    if (entry.state !== 'null') mine.add(entry.clientId);
    return true;
  });
  if (accepted.length === 0) return null;
  return accepted.length === entries.length ? update : encodeEntries(accepted);
}
