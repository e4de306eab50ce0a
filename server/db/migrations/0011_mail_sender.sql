ALTER TABLE `mail_outbox` ADD `from_address` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `from_name` text;