ALTER TABLE `comment_annotations` ADD `suggestion` text;--> statement-breakpoint
ALTER TABLE `comments` ADD `extra` text;