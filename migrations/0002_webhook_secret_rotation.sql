ALTER TABLE `projects` ADD `webhook_secret_previous_enc` text;--> statement-breakpoint
ALTER TABLE `projects` ADD `webhook_secret_previous_until` text;