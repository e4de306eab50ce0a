CREATE TABLE `master_key_check` (
	`id` integer PRIMARY KEY NOT NULL,
	`fingerprint` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL
);
