CREATE TABLE `agent_executions` (
	`api_key_id` text NOT NULL,
	`id` text NOT NULL,
	`agent_id` text NOT NULL,
	`agent_name` text NOT NULL,
	`agent_version` integer NOT NULL,
	`organization_id` text,
	`document_id` text,
	`editor_id` text,
	`status` text NOT NULL,
	`message` text NOT NULL,
	`trigger` text NOT NULL,
	`llm_model` text NOT NULL,
	`input` text,
	`ran_by` text,
	`started_at` integer NOT NULL,
	`completed_at` integer,
	`duration_ms` integer,
	`token_usage` text,
	`findings` text,
	PRIMARY KEY(`api_key_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_executions_started` ON `agent_executions` (`api_key_id`,`started_at`,`id`);--> statement-breakpoint
CREATE INDEX `agent_executions_running` ON `agent_executions` (`status`) WHERE "agent_executions"."status" = 'running';--> statement-breakpoint
CREATE TABLE `agents` (
	`api_key_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`version` integer NOT NULL,
	`model` text NOT NULL,
	`instructions` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agents_created` ON `agents` (`api_key_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `judgments` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`api_key_id` text NOT NULL,
	`organization_id` text,
	`document_id` text,
	`decision` text NOT NULL,
	`reviewer_id` text NOT NULL,
	`reviewer_name` text,
	`subject` text NOT NULL,
	`reasoning` text,
	`scope_terms` text NOT NULL,
	`source` text NOT NULL,
	`source_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `judgments_id_unique` ON `judgments` (`id`);--> statement-breakpoint
CREATE INDEX `judgments_scope` ON `judgments` (`api_key_id`,`organization_id`,`document_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `judgments_created` ON `judgments` (`api_key_id`,`created_at`,`seq`);--> statement-breakpoint
CREATE TABLE `workflow_definitions` (
	`api_key_id` text NOT NULL,
	`definition_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`version` integer NOT NULL,
	`scope_level` text NOT NULL,
	`organization_id` text,
	`document_id` text,
	`body` text NOT NULL,
	`webhook_secret_enc` text,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `definition_id`),
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Full-text index of judgments (hand-written: drizzle-kit does not model FTS5). External content: the text lives
-- once, in `judgments`; the triggers keep the index in step with inserts, deletes and updates. `scope_terms`
-- holds one term per scope (API key, organization, document), so a scoped search is an AND in the index.
CREATE VIRTUAL TABLE `judgments_fts` USING fts5(subject, reasoning, scope_terms, content='judgments', content_rowid='seq', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `judgments_fts_insert` AFTER INSERT ON `judgments` BEGIN
  INSERT INTO judgments_fts(rowid, subject, reasoning, scope_terms) VALUES (new.seq, new.subject, new.reasoning, new.scope_terms);
END;
--> statement-breakpoint
CREATE TRIGGER `judgments_fts_delete` AFTER DELETE ON `judgments` BEGIN
  INSERT INTO judgments_fts(judgments_fts, rowid, subject, reasoning, scope_terms) VALUES ('delete', old.seq, old.subject, old.reasoning, old.scope_terms);
END;
--> statement-breakpoint
CREATE TRIGGER `judgments_fts_update` AFTER UPDATE OF subject, reasoning, scope_terms ON `judgments` BEGIN
  INSERT INTO judgments_fts(judgments_fts, rowid, subject, reasoning, scope_terms) VALUES ('delete', old.seq, old.subject, old.reasoning, old.scope_terms);
  INSERT INTO judgments_fts(rowid, subject, reasoning, scope_terms) VALUES (new.seq, new.subject, new.reasoning, new.scope_terms);
END;
