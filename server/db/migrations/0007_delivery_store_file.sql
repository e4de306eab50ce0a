-- Delivery state moves to its own file (DATA_DIR/webhooks.db, written by the delivery worker). The tables are
-- renamed, not dropped: the server copies their rows into webhooks.db at start, then drops them
-- (server/webhooks/delivery-store.ts moveLegacyDeliveries).
ALTER TABLE `webhook_attempts` RENAME TO `webhook_attempts_legacy`;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` RENAME TO `webhook_deliveries_legacy`;
