CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`project_id` text,
	`action` text NOT NULL,
	`subject_type` text NOT NULL,
	`subject_id` text NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text,
	`actor_label` text NOT NULL,
	`state` text NOT NULL,
	`details` text NOT NULL,
	`pending` text,
	`created_at` text NOT NULL,
	`completed_at` text
);
--> statement-breakpoint
CREATE INDEX `audit_events_workspace` ON `audit_events` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_events_state` ON `audit_events` (`state`,`created_at`);--> statement-breakpoint
ALTER TABLE `projects` ADD `deletion_started_at` text;