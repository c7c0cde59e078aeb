CREATE TABLE `rate_limits` (
	`key` text PRIMARY KEY NOT NULL,
	`attempts` integer NOT NULL,
	`blocked_until` integer NOT NULL,
	`last_attempt_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`free_attempts` integer NOT NULL,
	`base_delay_ms` integer NOT NULL,
	`max_delay_ms` integer NOT NULL,
	`window_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rate_limits_expires` ON `rate_limits` (`expires_at`);--> statement-breakpoint
ALTER TABLE `user_invitations` ADD `revoked_at` text;--> statement-breakpoint
CREATE INDEX `user_invitations_invited_by` ON `user_invitations` (`invited_by_user_id`);