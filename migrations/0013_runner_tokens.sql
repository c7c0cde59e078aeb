CREATE TABLE `runner_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`secret_hash` text NOT NULL,
	`lanes` text,
	`workspaces` text,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runner_tokens_secret_hash_unique` ON `runner_tokens` (`secret_hash`);--> statement-breakpoint
ALTER TABLE `runner_tasks` ADD `runner_token_id` text;