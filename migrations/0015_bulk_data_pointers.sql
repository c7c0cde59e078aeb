ALTER TABLE `clip_generations` ADD `result_key` text;--> statement-breakpoint
ALTER TABLE `clip_generations` ADD `clip_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `dubbings` ADD `result_key` text;--> statement-breakpoint
ALTER TABLE `summarizations` ADD `result_key` text;--> statement-breakpoint
ALTER TABLE `transcripts` ADD `thumbnail_runs` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `transcripts` ADD `metadata_key` text;--> statement-breakpoint
ALTER TABLE `transcripts` ADD `layers` text;