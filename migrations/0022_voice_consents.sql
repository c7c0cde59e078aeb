CREATE TABLE `consent_phrases` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`text` text NOT NULL,
	`words` text NOT NULL,
	`speaker_name` text,
	`language` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_by` text
);
--> statement-breakpoint
CREATE TABLE `voice_consents` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`subject` text NOT NULL,
	`subject_key` text NOT NULL,
	`statement` text,
	`created_by` text NOT NULL,
	`phrase_id` text,
	`recording` text,
	`job_id` text,
	`check` text,
	`reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`revoked_at` text
);
--> statement-breakpoint
CREATE INDEX `voice_consents_project_subject` ON `voice_consents` (`project_id`,`subject_key`);--> statement-breakpoint
CREATE INDEX `voice_consents_job` ON `voice_consents` (`job_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `voice_consents_phrase` ON `voice_consents` (`phrase_id`);--> statement-breakpoint
ALTER TABLE `voices` ADD `reason` text;--> statement-breakpoint
ALTER TABLE `voices` ADD `consent` text;