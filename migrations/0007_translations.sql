CREATE TABLE `translations` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`job_id` text NOT NULL,
	`text_source_id` text NOT NULL,
	`status` text NOT NULL,
	`source_language` text NOT NULL,
	`target_language` text NOT NULL,
	`language_key` text NOT NULL,
	`source_layer` text NOT NULL,
	`translation_backend` text NOT NULL,
	`model` text NOT NULL,
	`segment_count` integer DEFAULT 0 NOT NULL,
	`duration_sec` real,
	`transcript_revision` integer,
	`output_keys` text NOT NULL,
	`glossary` text,
	`timing` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text
);
--> statement-breakpoint
CREATE INDEX `translations_project` ON `translations` (`project_id`);--> statement-breakpoint
CREATE INDEX `translations_text_source` ON `translations` (`text_source_id`,`language_key`);