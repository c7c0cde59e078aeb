CREATE TABLE `presets` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`steps` text NOT NULL,
	`webhook_url` text,
	`user_metadata` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `presets_project_name` ON `presets` (`project_id`,`name`);--> statement-breakpoint
CREATE TABLE `workflow_jobs` (
	`job_id` text PRIMARY KEY NOT NULL,
	`workflow_id` text NOT NULL,
	`step_id` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `workflow_jobs_workflow` ON `workflow_jobs` (`workflow_id`);--> statement-breakpoint
CREATE TABLE `workflows` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`preset_id` text,
	`status` text NOT NULL,
	`trigger_key` text,
	`data` text NOT NULL,
	`version` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `workflows_project` ON `workflows` (`project_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `workflows_trigger` ON `workflows` (`trigger_key`);--> statement-breakpoint
ALTER TABLE `storage_connections` ADD `triggers` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `storage_connections` ADD `event_secret_enc` text;