CREATE TABLE `catalog_chunks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chunk_id` text NOT NULL,
	`project_id` text NOT NULL,
	`text_source_id` text NOT NULL,
	`generation` text NOT NULL,
	`position` integer NOT NULL,
	`start` real NOT NULL,
	`end` real NOT NULL,
	`segment_ids` text NOT NULL,
	`text` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `catalog_chunks_chunk_id_unique` ON `catalog_chunks` (`chunk_id`);--> statement-breakpoint
CREATE INDEX `catalog_chunks_source` ON `catalog_chunks` (`project_id`,`text_source_id`,`generation`);--> statement-breakpoint
CREATE TABLE `catalog_entries` (
	`project_id` text NOT NULL,
	`text_source_id` text NOT NULL,
	`generation` text NOT NULL,
	`job_id` text NOT NULL,
	`chunk_count` integer NOT NULL,
	`segment_count` integer NOT NULL,
	`transcript_revision` integer NOT NULL,
	`language` text,
	`dense_engine` text NOT NULL,
	`dense_model` text NOT NULL,
	`dimensions` integer NOT NULL,
	`sparse_engine` text NOT NULL,
	`indexed_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `text_source_id`)
);
--> statement-breakpoint
CREATE TABLE `catalog_vectors` (
	`chunk_row_id` integer PRIMARY KEY NOT NULL,
	`collection` text NOT NULL,
	`text_source_id` text NOT NULL,
	`model` text NOT NULL,
	`vector` blob NOT NULL
);
--> statement-breakpoint
CREATE INDEX `catalog_vectors_collection` ON `catalog_vectors` (`collection`,`model`);--> statement-breakpoint
CREATE TABLE `summarizations` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`job_id` text NOT NULL,
	`text_source_id` text NOT NULL,
	`status` text NOT NULL,
	`config` text NOT NULL,
	`result` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `summarizations_project` ON `summarizations` (`project_id`);--> statement-breakpoint
CREATE INDEX `summarizations_text_source` ON `summarizations` (`text_source_id`);