ALTER TABLE `clip_generations` ADD `transcript_revision` integer;--> statement-breakpoint
ALTER TABLE `dubbings` ADD `transcript_revision` integer;--> statement-breakpoint
ALTER TABLE `transcripts` ADD `output_keys_revision` integer DEFAULT 1 NOT NULL;