-- Custom SQL (drizzle-kit generate --custom): drizzle's schema has no virtual tables.
-- BM25 over catalog chunk text, the sparse half of catalog search, the same in production (D1) and locally.
-- External content: the text lives once, in catalog_chunks; triggers keep the index in step.
CREATE VIRTUAL TABLE `catalog_chunks_fts` USING fts5(`text`, content='catalog_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `catalog_chunks_fts_insert` AFTER INSERT ON `catalog_chunks` BEGIN
  INSERT INTO `catalog_chunks_fts`(rowid, `text`) VALUES (new.`id`, new.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `catalog_chunks_fts_delete` AFTER DELETE ON `catalog_chunks` BEGIN
  INSERT INTO `catalog_chunks_fts`(`catalog_chunks_fts`, rowid, `text`) VALUES ('delete', old.`id`, old.`text`);
END;
