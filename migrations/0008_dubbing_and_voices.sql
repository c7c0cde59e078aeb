CREATE TABLE `dubbings` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`job_id` text NOT NULL,
	`transcription_id` text NOT NULL,
	`translation_id` text NOT NULL,
	`status` text NOT NULL,
	`source_language` text NOT NULL,
	`target_language` text NOT NULL,
	`language_key` text NOT NULL,
	`options` text NOT NULL,
	`output_prefix` text NOT NULL,
	`result` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text
);
--> statement-breakpoint
CREATE INDEX `dubbings_project` ON `dubbings` (`project_id`);--> statement-breakpoint
CREATE INDEX `dubbings_transcription` ON `dubbings` (`transcription_id`);--> statement-breakpoint
CREATE TABLE `voices` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`origin` text NOT NULL,
	`job_id` text NOT NULL,
	`speaker_label` text,
	`language` text NOT NULL,
	`sample` text NOT NULL,
	`kind` text,
	`engine` text,
	`model` text,
	`spec` text,
	`reference_key` text,
	`sample_speech_sec` real,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `voices_project` ON `voices` (`project_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `voices_job_speaker` ON `voices` (`job_id`,`speaker_label`);