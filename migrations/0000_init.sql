CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`project_id` text,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`secret_hash` text NOT NULL,
	`permissions` text NOT NULL,
	`user_id` text,
	`user_handle` text,
	`expires_at` text,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_secret_hash_unique` ON `api_keys` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_project` ON `api_keys` (`project_id`);--> statement-breakpoint
CREATE TABLE `glossary_terms` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`term` text NOT NULL,
	`preferred` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `glossary_project_term` ON `glossary_terms` (`project_id`,`term`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`project_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`state` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`project_id` text NOT NULL,
	`service_type` text NOT NULL,
	`status` text NOT NULL,
	`priority` text NOT NULL,
	`customer_job_ref` text,
	`user_search` text NOT NULL,
	`created_by_label` text NOT NULL,
	`input_search` text NOT NULL,
	`data` text NOT NULL,
	`version` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_project_created` ON `jobs` (`project_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `jobs_project_status` ON `jobs` (`project_id`,`status`);--> statement-breakpoint
CREATE INDEX `jobs_project_ref` ON `jobs` (`project_id`,`customer_job_ref`);--> statement-breakpoint
CREATE TABLE `platform_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`document` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`webhook_url` text,
	`webhook_secret_enc` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_workspace_name` ON `projects` (`workspace_id`,`name`);--> statement-breakpoint
CREATE TABLE `runner_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`step_index` integer NOT NULL,
	`handler` text NOT NULL,
	`lane` text NOT NULL,
	`lane_rank` integer NOT NULL,
	`state` text NOT NULL,
	`lease_token` text,
	`lease_until` text,
	`runner_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runner_tasks_job_attempt_step` ON `runner_tasks` (`job_id`,`attempt`,`step_index`);--> statement-breakpoint
CREATE INDEX `runner_tasks_claim` ON `runner_tasks` (`state`,`handler`,`lane_rank`,`created_at`);--> statement-breakpoint
CREATE TABLE `storage_connections` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`endpoint` text NOT NULL,
	`region` text NOT NULL,
	`force_path_style` integer NOT NULL,
	`buckets` text NOT NULL,
	`access_key_id` text NOT NULL,
	`secret_access_key_enc` text NOT NULL,
	`default_output_prefix` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `storage_connections_project` ON `storage_connections` (`project_id`);--> statement-breakpoint
CREATE TABLE `transcript_layers` (
	`transcript_id` text NOT NULL,
	`layer` text NOT NULL,
	`part` integer NOT NULL,
	`data` text NOT NULL,
	PRIMARY KEY(`transcript_id`, `layer`, `part`)
);
--> statement-breakpoint
CREATE TABLE `transcripts` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`job_id` text NOT NULL,
	`status` text NOT NULL,
	`language` text,
	`duration_sec` real,
	`engine` text,
	`model` text,
	`revision` integer DEFAULT 0 NOT NULL,
	`segment_count` integer DEFAULT 0 NOT NULL,
	`thumbnails` text DEFAULT '[]' NOT NULL,
	`metadata` text,
	`translation` text DEFAULT '{}' NOT NULL,
	`output_keys` text,
	`bucket` text,
	`connection_id` text,
	`source_key` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `transcripts_project` ON `transcripts` (`project_id`);--> statement-breakpoint
CREATE TABLE `usage` (
	`workspace_id` text NOT NULL,
	`period` text NOT NULL,
	`meter` text NOT NULL,
	`used` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`workspace_id`, `period`, `meter`)
);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`project_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event` text NOT NULL,
	`url` text NOT NULL,
	`attempt` integer NOT NULL,
	`outcome` text NOT NULL,
	`response_status` integer,
	`error_message` text,
	`duration_ms` integer NOT NULL,
	`next_retry_at` text,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_job` ON `webhook_deliveries` (`job_id`,`at`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_attempt` ON `webhook_deliveries` (`event_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`plan` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspaces_name_unique` ON `workspaces` (`name`);