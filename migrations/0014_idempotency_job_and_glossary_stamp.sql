ALTER TABLE `idempotency_keys` ADD `job_id` text;--> statement-breakpoint
ALTER TABLE `transcripts` ADD `glossary_stamp` text;