ALTER TABLE `projects` ADD `data_policy` text;--> statement-breakpoint
ALTER TABLE `transcripts` ADD `redaction` text;