CREATE TABLE `document_migrations` (
	`id` text PRIMARY KEY NOT NULL,
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`from_document_id` text NOT NULL,
	`to_document_id` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `document_migrations_status` ON `document_migrations` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `documents` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`folder_id` text,
	`access_type` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`) REFERENCES `organizations`(`api_key_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `documents_folder` ON `documents` (`api_key_id`,`organization_id`,`folder_id`,`id`);--> statement-breakpoint
CREATE TABLE `folders` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`parent_id` text NOT NULL,
	`ancestors` text NOT NULL,
	`path` text NOT NULL,
	`own_access_type` text,
	`inherit_access` integer NOT NULL,
	`access_type` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`) REFERENCES `organizations`(`api_key_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `folders_path` ON `folders` (`api_key_id`,`organization_id`,`path`);--> statement-breakpoint
CREATE INDEX `folders_parent` ON `folders` (`api_key_id`,`organization_id`,`parent_id`,`id`);--> statement-breakpoint
CREATE TABLE `memberships` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`level` text NOT NULL,
	`resource_id` text NOT NULL,
	`user_id` text NOT NULL,
	`access_role` text NOT NULL,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `level`, `resource_id`, `user_id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`) REFERENCES `organizations`(`api_key_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `memberships_user` ON `memberships` (`api_key_id`,`organization_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`api_key_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `user_group_members` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`group_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `group_id`, `user_id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`,`group_id`) REFERENCES `user_groups`(`api_key_id`,`organization_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `user_groups` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`) REFERENCES `organizations`(`api_key_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `users` (
	`api_key_id` text NOT NULL,
	`id` text NOT NULL,
	`internal_id` text NOT NULL,
	`name` text,
	`email` text,
	`initial` text,
	`photo_url` text,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
