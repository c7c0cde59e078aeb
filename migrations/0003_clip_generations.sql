CREATE TABLE `clip_generations` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`job_id` text NOT NULL,
	`text_source_id` text NOT NULL,
	`status` text NOT NULL,
	`options` text NOT NULL,
	`output_prefix` text NOT NULL,
	`result` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `clip_generations_project` ON `clip_generations` (`project_id`);--> statement-breakpoint
CREATE INDEX `clip_generations_text_source` ON `clip_generations` (`text_source_id`);