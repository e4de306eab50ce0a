-- Leases on queued work (issue 31): until when the instance that took a job or a mail holds it; past that, another
-- instance of the cluster may take it over. Null: not taken (or taken before leases, recovered at start).
ALTER TABLE `document_migrations` ADD `lease_until` integer;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `lease_until` integer;--> statement-breakpoint
ALTER TABLE `user_data_jobs` ADD `lease_until` integer;
