CREATE TABLE `job_secrets` (
	`job_id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`presigned_enc` text NOT NULL,
	`created_at` text NOT NULL
);
