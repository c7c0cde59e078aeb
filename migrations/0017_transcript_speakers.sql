ALTER TABLE `transcripts` ADD `speakers` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `transcripts` ADD `diarization` text;