-- Change notifications (hand-written: drizzle-kit does not model triggers): every statement that writes a table
-- listed here tells the instances listening on `hearth_changes` which table it was, once it commits (PostgreSQL
-- delivers a transaction's notifications at its commit, one per distinct payload). The engine counts them per table
-- (engine.tableChanges), so that an instance's caches drop what another instance's write changed: today the
-- credential tables, which the credentials cache of every instance depends on.
CREATE FUNCTION "hearth_notify_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('hearth_changes', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "workspaces_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "workspaces" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "api_keys_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "api_keys" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
--> statement-breakpoint
CREATE TRIGGER "auth_tokens_changes" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "auth_tokens" FOR EACH STATEMENT EXECUTE FUNCTION "hearth_notify_change"();
