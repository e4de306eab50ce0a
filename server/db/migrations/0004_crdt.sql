CREATE TABLE `crdt_documents` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`document_id` text NOT NULL,
	`editor_id` text NOT NULL,
	`type` text NOT NULL,
	`content_key` text NOT NULL,
	`snapshot` blob,
	`update_count` integer DEFAULT 0 NOT NULL,
	`last_updated_by` text,
	`compacted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `document_id`, `editor_id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `crdt_updates` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`document_id` text NOT NULL,
	`editor_id` text NOT NULL,
	`update` blob NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`,`document_id`,`editor_id`) REFERENCES `crdt_documents`(`api_key_id`,`organization_id`,`document_id`,`editor_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `crdt_updates_doc` ON `crdt_updates` (`api_key_id`,`organization_id`,`document_id`,`editor_id`,`seq`);