CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`api_key_id` text NOT NULL,
	`event_id` text NOT NULL,
	`target` text NOT NULL,
	`url` text NOT NULL,
	`trigger` text NOT NULL,
	`status` text NOT NULL,
	`response_status_code` integer,
	`response` text NOT NULL,
	`duration_ms` integer NOT NULL,
	`timestamp` integer NOT NULL,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_event` ON `webhook_attempts` (`api_key_id`,`event_id`,`timestamp`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_target` ON `webhook_attempts` (`api_key_id`,`target`,`timestamp`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_configs` (
	`api_key_id` text PRIMARY KEY NOT NULL,
	`is_enabled` integer NOT NULL,
	`encrypt_data` integer NOT NULL,
	`encode_data` integer NOT NULL,
	`public_key` text NOT NULL,
	`enable_data_protection` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`api_key_id` text NOT NULL,
	`event_id` text NOT NULL,
	`target` text NOT NULL,
	`url` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`next_trigger` text DEFAULT 'scheduled' NOT NULL,
	`last_attempt_at` integer,
	`last_status_code` integer,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`event_id`, `target`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `webhook_events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`next_attempt_at`) WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_target` ON `webhook_deliveries` (`api_key_id`,`target`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`api_key_id` text NOT NULL,
	`url` text NOT NULL,
	`description` text NOT NULL,
	`filter_types` text,
	`channels` text,
	`disabled` integer NOT NULL,
	`disabled_reason` text,
	`rate_limit` integer,
	`uid` text,
	`metadata` text NOT NULL,
	`secret_enc` text NOT NULL,
	`previous_secret_enc` text,
	`previous_secret_expires_at` integer,
	`failing_since` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_key` ON `webhook_endpoints` (`api_key_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_endpoints_uid` ON `webhook_endpoints` (`api_key_id`,`uid`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`api_key_id` text NOT NULL,
	`type` text NOT NULL,
	`organization_id` text,
	`document_id` text,
	`payload` text,
	`basic_payload` text,
	`dedupe_key` text,
	`available_at` integer NOT NULL,
	`dispatched_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_events_pending` ON `webhook_events` (`available_at`) WHERE "webhook_events"."dispatched_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_events_dedupe` ON `webhook_events` (`api_key_id`,`dedupe_key`) WHERE "webhook_events"."dispatched_at" IS NULL AND "webhook_events"."dedupe_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_events_key` ON `webhook_events` (`api_key_id`,`created_at`);