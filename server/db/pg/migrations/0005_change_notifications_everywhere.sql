-- Change notifications on every table the server reads (hand-written, as 0002): a write by any other process (another
-- instance, a CLI command, an import) reaches every instance's change stamp once it commits, so that its response
-- cache drops what it kept, as SQLite's data_version does for another connection's commit to hearth.db. The
-- delivery tables stay silent, as webhooks.db is outside hearth.db's data_version on SQLite: the delivery worker's
-- attempts change no answer the cache keeps. A table added later gets its trigger in its own migration
-- (test/pg/engine.test.ts checks that every table but those two has one). One notification per table and
-- transaction at most: PostgreSQL folds equal payloads of one transaction.
CREATE TRIGGER "activities_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "activities" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "agent_executions_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "agent_executions" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "agents_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "agents" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "api_key_secrets_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "api_key_secrets" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "comment_annotations_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "comment_annotations" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "comment_reads_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "comment_reads" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "comments_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "comments" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "crdt_documents_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "crdt_documents" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "crdt_updates_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "crdt_updates" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "document_migrations_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "document_migrations" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "documents_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "documents" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "folders_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "folders" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "judgments_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "judgments" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "login_links_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "login_links" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "mail_outbox_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "mail_outbox" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "master_key_check_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "master_key_check" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "memberships_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "memberships" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "notification_configs_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "notification_configs" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "notification_recipients_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "notification_recipients" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "notifications_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "notifications" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "organizations_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "organizations" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "reactions_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "reactions" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "recording_attachments_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "recording_attachments" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "recordings_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "recordings" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "user_data_jobs_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "user_data_jobs" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "user_group_members_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "user_group_members" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "user_groups_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "user_groups" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "users_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "users" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "webhook_configs_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "webhook_configs" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "webhook_endpoints_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "webhook_endpoints" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "webhook_events_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "webhook_events" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "workflow_definitions_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "workflow_definitions" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
