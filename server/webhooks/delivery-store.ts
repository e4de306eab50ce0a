// Where the server's start (index.ts) and AppContext (context.ts) find webhooks.db's read connection: it moved to
// the storage layer (db/repos/webhook-deliveries.ts); this name stays until they import it from there.
export { openDeliveryStore, type DeliveryDb, type DeliveryStore } from '../db/repos/webhook-deliveries.ts';
