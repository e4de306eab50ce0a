ALTER TABLE `mail_outbox` ADD `login_link_id` text;--> statement-breakpoint
-- Mail written before this change waited as 'stored' whether or not SMTP was configured. One that a relay
-- already tried was meant to be relayed (queued); one never tried was kept while no SMTP was set, and stays
-- in the local mailbox instead of going out when SMTP is turned on later.
UPDATE `mail_outbox` SET `status` = CASE WHEN `attempts` > 0 THEN 'queued' ELSE 'kept' END WHERE `status` = 'stored';
