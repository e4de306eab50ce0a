CREATE INDEX `documents_name` ON `documents` (`api_key_id`,`organization_id`,name COLLATE NOCASE,`id`);--> statement-breakpoint
CREATE INDEX `documents_updated` ON `documents` (`api_key_id`,`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `documents_folder_name` ON `documents` (`api_key_id`,`organization_id`,`folder_id`,name COLLATE NOCASE,`id`);--> statement-breakpoint
CREATE INDEX `documents_folder_updated` ON `documents` (`api_key_id`,`organization_id`,`folder_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `mail_outbox_workspace` ON `mail_outbox` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `mail_outbox_key` ON `mail_outbox` (`api_key_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_time` ON `notifications` (`api_key_id`,`organization_id`,`timestamp`,`id`);--> statement-breakpoint
CREATE INDEX `organizations_name` ON `organizations` (`api_key_id`,name COLLATE NOCASE,`id`);--> statement-breakpoint
CREATE INDEX `organizations_updated` ON `organizations` (`api_key_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `users_name` ON `users` (`api_key_id`,(CASE WHEN name IS NULL THEN '' ELSE name END) COLLATE NOCASE,`id`);