CREATE TABLE `activities` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`id` text NOT NULL,
	`document_id` text,
	`feature_type` text NOT NULL,
	`action_type` text NOT NULL,
	`action_user` text NOT NULL,
	`action_user_id` text NOT NULL,
	`target_entity_id` text,
	`target_sub_entity_id` text,
	`changes` text,
	`entity_data` text,
	`entity_target_data` text,
	`display_message_template` text,
	`display_message_template_data` text,
	`action_icon` text,
	`resolver` integer DEFAULT false NOT NULL,
	`timestamp` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`) REFERENCES `organizations`(`api_key_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `activities_time` ON `activities` (`api_key_id`,`organization_id`,`timestamp`,`id`);--> statement-breakpoint
CREATE INDEX `activities_document` ON `activities` (`api_key_id`,`organization_id`,`document_id`,`timestamp`,`id`);--> statement-breakpoint
CREATE INDEX `activities_target` ON `activities` (`api_key_id`,`organization_id`,`target_entity_id`,`timestamp`,`id`);--> statement-breakpoint
CREATE INDEX `activities_user` ON `activities` (`api_key_id`,`organization_id`,`action_user_id`,`timestamp`,`id`);--> statement-breakpoint
CREATE INDEX `activities_feature` ON `activities` (`api_key_id`,`organization_id`,`feature_type`,`timestamp`,`id`);--> statement-breakpoint
CREATE TABLE `notification_configs` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`document_id` text NOT NULL,
	`user_id` text NOT NULL,
	`inbox` text NOT NULL,
	`email` text NOT NULL,
	`slack` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `document_id`, `user_id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`) REFERENCES `organizations`(`api_key_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `notification_recipients` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`notification_id` text NOT NULL,
	`user_id` text NOT NULL,
	`document_id` text NOT NULL,
	`timestamp` integer NOT NULL,
	`explicit` integer NOT NULL,
	`read_at` integer,
	PRIMARY KEY(`api_key_id`, `organization_id`, `notification_id`, `user_id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`,`notification_id`) REFERENCES `notifications`(`api_key_id`,`organization_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notification_recipients_user` ON `notification_recipients` (`api_key_id`,`organization_id`,`user_id`,`timestamp`,`notification_id`);--> statement-breakpoint
CREATE INDEX `notification_recipients_user_document` ON `notification_recipients` (`api_key_id`,`organization_id`,`user_id`,`document_id`,`timestamp`,`notification_id`);--> statement-breakpoint
CREATE TABLE `notifications` (
	`api_key_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`id` text NOT NULL,
	`document_id` text NOT NULL,
	`location_id` text,
	`source` text NOT NULL,
	`source_data` text,
	`action_user` text NOT NULL,
	`headline_template` text,
	`headline_data` text,
	`body` text,
	`resolver` integer NOT NULL,
	`context_access` text,
	`timestamp` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `organization_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`api_key_id`,`organization_id`) REFERENCES `organizations`(`api_key_id`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notifications_document` ON `notifications` (`api_key_id`,`organization_id`,`document_id`,`timestamp`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_location` ON `notifications` (`api_key_id`,`organization_id`,`document_id`,`location_id`,`timestamp`,`id`);