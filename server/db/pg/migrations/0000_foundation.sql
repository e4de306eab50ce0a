CREATE TABLE "activities" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"document_id" text,
	"feature_type" text NOT NULL,
	"action_type" text NOT NULL,
	"action_user" json NOT NULL,
	"action_user_id" text NOT NULL,
	"target_entity_id" text,
	"target_sub_entity_id" text,
	"changes" json,
	"entity_data" json,
	"entity_target_data" json,
	"display_message_template" text,
	"display_message_template_data" json,
	"action_icon" text,
	"resolver" boolean DEFAULT false NOT NULL,
	"timestamp" bigint NOT NULL,
	CONSTRAINT "activities_api_key_id_organization_id_id_pk" PRIMARY KEY("api_key_id","organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "agent_executions" (
	"api_key_id" text NOT NULL,
	"id" text NOT NULL,
	"agent_id" text NOT NULL,
	"agent_name" text NOT NULL,
	"agent_version" bigint NOT NULL,
	"organization_id" text,
	"document_id" text,
	"editor_id" text,
	"status" text NOT NULL,
	"message" text NOT NULL,
	"trigger" text NOT NULL,
	"llm_model" text NOT NULL,
	"input" text,
	"ran_by" json,
	"started_at" bigint NOT NULL,
	"completed_at" bigint,
	"duration_ms" bigint,
	"token_usage" json,
	"findings" json,
	CONSTRAINT "agent_executions_api_key_id_id_pk" PRIMARY KEY("api_key_id","id")
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"api_key_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"version" bigint NOT NULL,
	"model" text NOT NULL,
	"instructions" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "agents_api_key_id_id_pk" PRIMARY KEY("api_key_id","id")
);
--> statement-breakpoint
CREATE TABLE "api_key_secrets" (
	"api_key_id" text NOT NULL,
	"name" text NOT NULL,
	"value_enc" text NOT NULL,
	"updated_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL,
	CONSTRAINT "api_key_secrets_api_key_id_name_pk" PRIMARY KEY("api_key_id","name")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"owner_email" text NOT NULL,
	"persistence_region" text,
	"realtime_region" text,
	"allowed_domains" json NOT NULL,
	"settings" json NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"disabled_at" bigint,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL,
	"updated_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "auth_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key_id" text NOT NULL,
	"name" text NOT NULL,
	"domains" json NOT NULL,
	"token_enc" text NOT NULL,
	"token_digest" text NOT NULL,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "comment_annotations" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"document_id" text NOT NULL,
	"location_id" text,
	"location" json,
	"target_element" json,
	"status" json,
	"status_id" text NOT NULL,
	"priority" json,
	"assigned_to" json,
	"context" json,
	"visibility" text NOT NULL,
	"visible_to_user_ids" json,
	"comment_type" text,
	"suggestion" json,
	"created_by_user_id" text NOT NULL,
	"resolved_by_user_id" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "comment_annotations_api_key_id_organization_id_id_pk" PRIMARY KEY("api_key_id","organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "comment_reads" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"annotation_id" text NOT NULL,
	"user_id" text NOT NULL,
	"read_at" bigint NOT NULL,
	CONSTRAINT "comment_reads_api_key_id_organization_id_annotation_id_b4177357" PRIMARY KEY("api_key_id","organization_id","annotation_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "comments" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"annotation_id" text NOT NULL,
	"id" bigint NOT NULL,
	"from_user" json NOT NULL,
	"from_user_id" text NOT NULL,
	"text" text,
	"html" text,
	"tagged_user_contacts" json,
	"mentioned_user_ids" json NOT NULL,
	"context" json,
	"extra" json,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "comments_api_key_id_organization_id_annotation_id_id_pk" PRIMARY KEY("api_key_id","organization_id","annotation_id","id")
);
--> statement-breakpoint
CREATE TABLE "crdt_documents" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"document_id" text NOT NULL,
	"editor_id" text NOT NULL,
	"type" text NOT NULL,
	"content_key" text NOT NULL,
	"infer" bigint DEFAULT 0 NOT NULL,
	"snapshot" "bytea",
	"update_count" bigint DEFAULT 0 NOT NULL,
	"last_updated_by" text,
	"compacted_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "crdt_documents_api_key_id_organization_id_document_id__5cb8a447" PRIMARY KEY("api_key_id","organization_id","document_id","editor_id")
);
--> statement-breakpoint
CREATE TABLE "crdt_updates" (
	"seq" bigint PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY (sequence name "crdt_updates_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"document_id" text NOT NULL,
	"editor_id" text NOT NULL,
	"update" "bytea" NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "document_migrations" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"from_document_id" text NOT NULL,
	"to_document_id" text NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"started_at" bigint,
	"completed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "documents" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"folder_id" text,
	"access_type" text NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"metadata" json NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "documents_api_key_id_organization_id_id_pk" PRIMARY KEY("api_key_id","organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "folders" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"parent_id" text NOT NULL,
	"ancestors" json NOT NULL,
	"path" text NOT NULL,
	"own_access_type" text,
	"inherit_access" boolean NOT NULL,
	"access_type" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "folders_api_key_id_organization_id_id_pk" PRIMARY KEY("api_key_id","organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "judgments" (
	"seq" bigint PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY (sequence name "judgments_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"id" text NOT NULL,
	"api_key_id" text NOT NULL,
	"organization_id" text,
	"document_id" text,
	"decision" text NOT NULL,
	"reviewer_id" text NOT NULL,
	"reviewer_name" text,
	"subject" text NOT NULL,
	"reasoning" text,
	"scope_terms" text NOT NULL,
	"source" text NOT NULL,
	"source_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "judgments_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "login_links" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"email" text NOT NULL,
	"token_digest" text NOT NULL,
	"continue_url" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text,
	"api_key_id" text,
	"kind" text NOT NULL,
	"to_address" text NOT NULL,
	"from_address" text,
	"from_name" text,
	"subject" text NOT NULL,
	"body_enc" text NOT NULL,
	"status" text NOT NULL,
	"login_link_id" text,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" bigint NOT NULL,
	"sent_at" bigint
);
--> statement-breakpoint
CREATE TABLE "master_key_check" (
	"id" bigint PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY (sequence name "master_key_check_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"fingerprint" text NOT NULL,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"level" text NOT NULL,
	"resource_id" text NOT NULL,
	"user_id" text NOT NULL,
	"access_role" text NOT NULL,
	"expires_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "memberships_api_key_id_organization_id_level_resource__803fdb9f" PRIMARY KEY("api_key_id","organization_id","level","resource_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "notification_configs" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"document_id" text NOT NULL,
	"user_id" text NOT NULL,
	"inbox" text NOT NULL,
	"email" text NOT NULL,
	"slack" text NOT NULL,
	"channels_set" bigint DEFAULT 7 NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "notification_configs_api_key_id_organization_id_docume_ec1796f1" PRIMARY KEY("api_key_id","organization_id","document_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "notification_recipients" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"notification_id" text NOT NULL,
	"user_id" text NOT NULL,
	"document_id" text NOT NULL,
	"timestamp" bigint NOT NULL,
	"explicit" boolean NOT NULL,
	"read_at" bigint,
	CONSTRAINT "notification_recipients_api_key_id_organization_id_not_6efe2ad2" PRIMARY KEY("api_key_id","organization_id","notification_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"document_id" text NOT NULL,
	"location_id" text,
	"source" text NOT NULL,
	"source_data" json,
	"action_user" json NOT NULL,
	"headline_template" text,
	"headline_data" json,
	"body" text,
	"resolver" boolean NOT NULL,
	"context_access" json,
	"timestamp" bigint NOT NULL,
	CONSTRAINT "notifications_api_key_id_organization_id_id_pk" PRIMARY KEY("api_key_id","organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"api_key_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"metadata" json NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "organizations_api_key_id_id_pk" PRIMARY KEY("api_key_id","id")
);
--> statement-breakpoint
CREATE TABLE "reactions" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"annotation_id" text NOT NULL,
	"comment_id" bigint NOT NULL,
	"icon" text NOT NULL,
	"from_user" json NOT NULL,
	"from_user_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "reactions_api_key_id_organization_id_id_pk" PRIMARY KEY("api_key_id","organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "recording_attachments" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"recording_id" text NOT NULL,
	"attachment_id" bigint NOT NULL,
	"version" bigint NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"mime_type" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"storage_key" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "recording_attachments_api_key_id_organization_id_recor_9af7d6d4" PRIMARY KEY("api_key_id","organization_id","recording_id","attachment_id")
);
--> statement-breakpoint
CREATE TABLE "recordings" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"document_id" text NOT NULL,
	"recording_type" text NOT NULL,
	"mode" text NOT NULL,
	"display_name" text DEFAULT '' NOT NULL,
	"duration_ms" bigint NOT NULL,
	"from_user" json NOT NULL,
	"from_user_id" text NOT NULL,
	"latest_version" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "recordings_api_key_id_organization_id_id_pk" PRIMARY KEY("api_key_id","organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "user_data_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key_id" text NOT NULL,
	"user_id" text NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"completed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "user_group_members" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"group_id" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "user_group_members_api_key_id_organization_id_group_id_720e8103" PRIMARY KEY("api_key_id","organization_id","group_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "user_groups" (
	"api_key_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "user_groups_api_key_id_organization_id_id_pk" PRIMARY KEY("api_key_id","organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"api_key_id" text NOT NULL,
	"id" text NOT NULL,
	"internal_id" text NOT NULL,
	"name" text,
	"email" text,
	"initial" text,
	"photo_url" text,
	"metadata" json NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "users_api_key_id_id_pk" PRIMARY KEY("api_key_id","id")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key_id" text NOT NULL,
	"event_id" text NOT NULL,
	"target" text NOT NULL,
	"url" text NOT NULL,
	"trigger" text NOT NULL,
	"status" text NOT NULL,
	"response_status_code" bigint,
	"response" text NOT NULL,
	"duration_ms" bigint NOT NULL,
	"timestamp" bigint NOT NULL,
	"request_headers" text,
	"response_headers" text,
	"response_headers_omitted" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_configs" (
	"api_key_id" text PRIMARY KEY NOT NULL,
	"is_enabled" boolean NOT NULL,
	"encrypt_data" boolean NOT NULL,
	"encode_data" boolean NOT NULL,
	"public_key" text NOT NULL,
	"enable_data_protection" boolean NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"api_key_id" text NOT NULL,
	"event_id" text NOT NULL,
	"target" text NOT NULL,
	"url" text NOT NULL,
	"body" text NOT NULL,
	"status" text NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint,
	"next_trigger" text DEFAULT 'scheduled' NOT NULL,
	"last_attempt_at" bigint,
	"last_status_code" bigint,
	"created_at" bigint NOT NULL,
	CONSTRAINT "webhook_deliveries_event_id_target_pk" PRIMARY KEY("event_id","target")
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key_id" text NOT NULL,
	"url" text NOT NULL,
	"description" text NOT NULL,
	"filter_types" json,
	"channels" json,
	"disabled" boolean NOT NULL,
	"disabled_reason" text,
	"rate_limit" bigint,
	"uid" text,
	"metadata" json NOT NULL,
	"secret_enc" text NOT NULL,
	"previous_secret_enc" text,
	"previous_secret_expires_at" bigint,
	"failing_since" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key_id" text NOT NULL,
	"type" text NOT NULL,
	"organization_id" text,
	"document_id" text,
	"payload" json,
	"basic_payload" json,
	"dedupe_key" text,
	"target_endpoint_id" text,
	"available_at" bigint NOT NULL,
	"dispatched_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_definitions" (
	"api_key_id" text NOT NULL,
	"definition_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"version" bigint NOT NULL,
	"scope_level" text NOT NULL,
	"organization_id" text,
	"document_id" text,
	"body" json NOT NULL,
	"webhook_secret_enc" text,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "workflow_definitions_api_key_id_definition_id_pk" PRIMARY KEY("api_key_id","definition_id")
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"owner_id" text NOT NULL,
	"owner_email" text NOT NULL,
	"owner_name" text DEFAULT '' NOT NULL,
	"owner_avatar" text DEFAULT '' NOT NULL,
	"auth_token_enc" text NOT NULL,
	"auth_token_digest" text NOT NULL,
	"plan" text DEFAULT 'free' NOT NULL,
	"self_serve_production" boolean DEFAULT false NOT NULL,
	"max_production_keys" bigint DEFAULT 0 NOT NULL,
	"email_verified" boolean DEFAULT false NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" bigint DEFAULT ((extract(epoch from clock_timestamp()) * 1000)::bigint) NOT NULL
);
--> statement-breakpoint
ALTER TABLE "activities" ADD CONSTRAINT "activities_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activities" ADD CONSTRAINT "activities_api_key_id_organization_id_organizations_ap_93804dcf" FOREIGN KEY ("api_key_id","organization_id") REFERENCES "public"."organizations"("api_key_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_executions" ADD CONSTRAINT "agent_executions_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_key_secrets" ADD CONSTRAINT "api_key_secrets_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "auth_tokens" ADD CONSTRAINT "auth_tokens_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_annotations" ADD CONSTRAINT "comment_annotations_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_annotations" ADD CONSTRAINT "comment_annotations_api_key_id_organization_id_organiz_3a6898d7" FOREIGN KEY ("api_key_id","organization_id") REFERENCES "public"."organizations"("api_key_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_reads" ADD CONSTRAINT "comment_reads_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comment_reads" ADD CONSTRAINT "comment_reads_api_key_id_organization_id_annotation_id_b90bc743" FOREIGN KEY ("api_key_id","organization_id","annotation_id") REFERENCES "public"."comment_annotations"("api_key_id","organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_api_key_id_organization_id_annotation_id_comm_d1ee5354" FOREIGN KEY ("api_key_id","organization_id","annotation_id") REFERENCES "public"."comment_annotations"("api_key_id","organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crdt_documents" ADD CONSTRAINT "crdt_documents_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crdt_updates" ADD CONSTRAINT "crdt_updates_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crdt_updates" ADD CONSTRAINT "crdt_updates_api_key_id_organization_id_document_id_ed_6597294e" FOREIGN KEY ("api_key_id","organization_id","document_id","editor_id") REFERENCES "public"."crdt_documents"("api_key_id","organization_id","document_id","editor_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "document_migrations" ADD CONSTRAINT "document_migrations_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_api_key_id_organization_id_organizations_api_1991a3af" FOREIGN KEY ("api_key_id","organization_id") REFERENCES "public"."organizations"("api_key_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "folders" ADD CONSTRAINT "folders_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "folders" ADD CONSTRAINT "folders_api_key_id_organization_id_organizations_api_k_bfed8ce6" FOREIGN KEY ("api_key_id","organization_id") REFERENCES "public"."organizations"("api_key_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "judgments" ADD CONSTRAINT "judgments_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "login_links" ADD CONSTRAINT "login_links_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_api_key_id_organization_id_organizations_a_54380a53" FOREIGN KEY ("api_key_id","organization_id") REFERENCES "public"."organizations"("api_key_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_configs" ADD CONSTRAINT "notification_configs_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_configs" ADD CONSTRAINT "notification_configs_api_key_id_organization_id_organi_b9c18483" FOREIGN KEY ("api_key_id","organization_id") REFERENCES "public"."organizations"("api_key_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_recipients" ADD CONSTRAINT "notification_recipients_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_recipients" ADD CONSTRAINT "notification_recipients_api_key_id_organization_id_not_2d9acc37" FOREIGN KEY ("api_key_id","organization_id","notification_id") REFERENCES "public"."notifications"("api_key_id","organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_api_key_id_organization_id_organizations_da4f3127" FOREIGN KEY ("api_key_id","organization_id") REFERENCES "public"."organizations"("api_key_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reactions" ADD CONSTRAINT "reactions_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reactions" ADD CONSTRAINT "reactions_api_key_id_organization_id_annotation_id_com_f4110fde" FOREIGN KEY ("api_key_id","organization_id","annotation_id","comment_id") REFERENCES "public"."comments"("api_key_id","organization_id","annotation_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recording_attachments" ADD CONSTRAINT "recording_attachments_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recording_attachments" ADD CONSTRAINT "recording_attachments_api_key_id_organization_id_recor_c5714974" FOREIGN KEY ("api_key_id","organization_id","recording_id") REFERENCES "public"."recordings"("api_key_id","organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recordings" ADD CONSTRAINT "recordings_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recordings" ADD CONSTRAINT "recordings_api_key_id_organization_id_organizations_ap_ef9c7f55" FOREIGN KEY ("api_key_id","organization_id") REFERENCES "public"."organizations"("api_key_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_data_jobs" ADD CONSTRAINT "user_data_jobs_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_group_members" ADD CONSTRAINT "user_group_members_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_group_members" ADD CONSTRAINT "user_group_members_api_key_id_organization_id_group_id_30543086" FOREIGN KEY ("api_key_id","organization_id","group_id") REFERENCES "public"."user_groups"("api_key_id","organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_api_key_id_organization_id_organizations_a_739d4921" FOREIGN KEY ("api_key_id","organization_id") REFERENCES "public"."organizations"("api_key_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_configs" ADD CONSTRAINT "webhook_configs_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_definitions" ADD CONSTRAINT "workflow_definitions_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activities_time" ON "activities" USING btree ("api_key_id","organization_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "activities_document" ON "activities" USING btree ("api_key_id","organization_id","document_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "activities_target" ON "activities" USING btree ("api_key_id","organization_id","target_entity_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "activities_user" ON "activities" USING btree ("api_key_id","organization_id","action_user_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "activities_feature" ON "activities" USING btree ("api_key_id","organization_id","feature_type","timestamp","id");--> statement-breakpoint
CREATE INDEX "agent_executions_started" ON "agent_executions" USING btree ("api_key_id","started_at","id");--> statement-breakpoint
CREATE INDEX "agent_executions_running" ON "agent_executions" USING btree ("status") WHERE "agent_executions"."status" = 'running';--> statement-breakpoint
CREATE INDEX "agents_created" ON "agents" USING btree ("api_key_id","created_at","id");--> statement-breakpoint
CREATE INDEX "api_keys_workspace_created" ON "api_keys" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "auth_tokens_digest" ON "auth_tokens" USING btree ("token_digest");--> statement-breakpoint
CREATE INDEX "auth_tokens_api_key" ON "auth_tokens" USING btree ("api_key_id","created_at");--> statement-breakpoint
CREATE INDEX "comment_annotations_document" ON "comment_annotations" USING btree ("api_key_id","organization_id","document_id","created_at","id");--> statement-breakpoint
CREATE INDEX "comment_annotations_time" ON "comment_annotations" USING btree ("api_key_id","organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "comments_user" ON "comments" USING btree ("api_key_id","organization_id","from_user_id","created_at");--> statement-breakpoint
CREATE INDEX "comments_thread_time" ON "comments" USING btree ("api_key_id","organization_id","annotation_id","created_at","id");--> statement-breakpoint
CREATE INDEX "crdt_updates_doc" ON "crdt_updates" USING btree ("api_key_id","organization_id","document_id","editor_id","seq");--> statement-breakpoint
CREATE INDEX "document_migrations_status" ON "document_migrations" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "documents_folder" ON "documents" USING btree ("api_key_id","organization_id","folder_id","id");--> statement-breakpoint
CREATE INDEX "documents_name" ON "documents" USING btree ("api_key_id","organization_id",lower("name"),"id");--> statement-breakpoint
CREATE INDEX "documents_updated" ON "documents" USING btree ("api_key_id","organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "documents_folder_name" ON "documents" USING btree ("api_key_id","organization_id","folder_id",lower("name"),"id");--> statement-breakpoint
CREATE INDEX "documents_folder_updated" ON "documents" USING btree ("api_key_id","organization_id","folder_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "folders_path" ON "folders" USING btree ("api_key_id","organization_id","path");--> statement-breakpoint
CREATE INDEX "folders_parent" ON "folders" USING btree ("api_key_id","organization_id","parent_id","id");--> statement-breakpoint
CREATE INDEX "judgments_scope" ON "judgments" USING btree ("api_key_id","organization_id","document_id","created_at");--> statement-breakpoint
CREATE INDEX "judgments_created" ON "judgments" USING btree ("api_key_id","created_at","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "login_links_digest" ON "login_links" USING btree ("token_digest");--> statement-breakpoint
CREATE INDEX "mail_outbox_created" ON "mail_outbox" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "mail_outbox_workspace" ON "mail_outbox" USING btree ("workspace_id","created_at","id");--> statement-breakpoint
CREATE INDEX "mail_outbox_key" ON "mail_outbox" USING btree ("api_key_id","created_at","id");--> statement-breakpoint
CREATE INDEX "memberships_user" ON "memberships" USING btree ("api_key_id","organization_id","user_id");--> statement-breakpoint
CREATE INDEX "notification_recipients_user" ON "notification_recipients" USING btree ("api_key_id","organization_id","user_id","timestamp","notification_id");--> statement-breakpoint
CREATE INDEX "notification_recipients_user_document" ON "notification_recipients" USING btree ("api_key_id","organization_id","user_id","document_id","timestamp","notification_id");--> statement-breakpoint
CREATE INDEX "notifications_document" ON "notifications" USING btree ("api_key_id","organization_id","document_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "notifications_time" ON "notifications" USING btree ("api_key_id","organization_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "notifications_location" ON "notifications" USING btree ("api_key_id","organization_id","document_id","location_id","timestamp","id");--> statement-breakpoint
CREATE INDEX "organizations_name" ON "organizations" USING btree ("api_key_id",lower("name"),"id");--> statement-breakpoint
CREATE INDEX "organizations_updated" ON "organizations" USING btree ("api_key_id","updated_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "reactions_once" ON "reactions" USING btree ("api_key_id","organization_id","annotation_id","comment_id","from_user_id","icon");--> statement-breakpoint
CREATE INDEX "reactions_user" ON "reactions" USING btree ("api_key_id","organization_id","from_user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "recording_attachments_storage" ON "recording_attachments" USING btree ("storage_key");--> statement-breakpoint
CREATE INDEX "recordings_document" ON "recordings" USING btree ("api_key_id","organization_id","document_id","created_at","id");--> statement-breakpoint
CREATE INDEX "recordings_time" ON "recordings" USING btree ("api_key_id","organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "recordings_user" ON "recordings" USING btree ("api_key_id","organization_id","from_user_id","created_at");--> statement-breakpoint
CREATE INDEX "user_data_jobs_status" ON "user_data_jobs" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "users_name" ON "users" USING btree ("api_key_id",lower(coalesce("name", '')),"id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_event" ON "webhook_attempts" USING btree ("api_key_id","event_id","timestamp");--> statement-breakpoint
CREATE INDEX "webhook_attempts_target" ON "webhook_attempts" USING btree ("api_key_id","target","timestamp","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_target" ON "webhook_deliveries" USING btree ("api_key_id","target","created_at");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_key" ON "webhook_endpoints" USING btree ("api_key_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_endpoints_uid" ON "webhook_endpoints" USING btree ("api_key_id","uid");--> statement-breakpoint
CREATE INDEX "webhook_events_pending" ON "webhook_events" USING btree ("available_at") WHERE "webhook_events"."dispatched_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_dedupe" ON "webhook_events" USING btree ("api_key_id","dedupe_key") WHERE "webhook_events"."dispatched_at" IS NULL AND "webhook_events"."dedupe_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_events_key" ON "webhook_events" USING btree ("api_key_id","created_at");--> statement-breakpoint
CREATE INDEX "workspaces_owner_email" ON "workspaces" USING btree ("owner_email","created_at");