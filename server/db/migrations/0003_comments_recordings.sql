CREATE TABLE `comment_annotations` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`id` text NOT NULL,
	`document_id` text NOT NULL,
	`location_id` text,
	`location` text,
	`target_element` text,
	`status` text,
	`status_id` text NOT NULL,
	`priority` text,
	`assigned_to` text,
	`context` text,
	`visibility` text NOT NULL,
	`visible_to_user_ids` text,
	`comment_type` text,
	`created_by_user_id` text NOT NULL,
	`resolved_by_user_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`) REFERENCES `organizations`(`api_key_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `comment_annotations_document` ON `comment_annotations` (`api_key_id`,`organization_id`,`document_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `comment_reads` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`annotation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`read_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `annotation_id`, `user_id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`,`annotation_id`) REFERENCES `comment_annotations`(`api_key_id`,`organization_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `comments` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`annotation_id` text NOT NULL,
	`id` integer NOT NULL,
	`from_user` text NOT NULL,
	`from_user_id` text NOT NULL,
	`text` text,
	`html` text,
	`tagged_user_contacts` text,
	`mentioned_user_ids` text NOT NULL,
	`context` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `annotation_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`,`annotation_id`) REFERENCES `comment_annotations`(`api_key_id`,`organization_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `comments_user` ON `comments` (`api_key_id`,`organization_id`,`from_user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `reactions` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`id` text NOT NULL,
	`annotation_id` text NOT NULL,
	`comment_id` integer NOT NULL,
	`icon` text NOT NULL,
	`from_user` text NOT NULL,
	`from_user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`,`annotation_id`,`comment_id`) REFERENCES `comments`(`api_key_id`,`organization_id`,`annotation_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reactions_once` ON `reactions` (`api_key_id`,`organization_id`,`annotation_id`,`comment_id`,`from_user_id`,`icon`);--> statement-breakpoint
CREATE INDEX `reactions_user` ON `reactions` (`api_key_id`,`organization_id`,`from_user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `recording_attachments` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`recording_id` text NOT NULL,
	`attachment_id` integer NOT NULL,
	`version` integer NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`mime_type` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`storage_key` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `recording_id`, `attachment_id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`,`recording_id`) REFERENCES `recordings`(`api_key_id`,`organization_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `recording_attachments_storage` ON `recording_attachments` (`storage_key`);--> statement-breakpoint
CREATE TABLE `recordings` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`id` text NOT NULL,
	`document_id` text NOT NULL,
	`recording_type` text NOT NULL,
	`mode` text NOT NULL,
	`display_name` text DEFAULT '' NOT NULL,
	`duration_ms` integer NOT NULL,
	`from_user` text NOT NULL,
	`from_user_id` text NOT NULL,
	`latest_version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`) REFERENCES `organizations`(`api_key_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `recordings_document` ON `recordings` (`api_key_id`,`organization_id`,`document_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `recordings_time` ON `recordings` (`api_key_id`,`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `recordings_user` ON `recordings` (`api_key_id`,`organization_id`,`from_user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `user_data_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`api_key_id` text NOT NULL,
	`user_id` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_data_jobs_status` ON `user_data_jobs` (`status`,`created_at`);