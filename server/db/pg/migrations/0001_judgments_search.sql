-- Full-text index of judgments (hand-written: drizzle-kit does not model text search), PostgreSQL's counterpart of
-- SQLite's judgments_fts (FTS5, porter stemming over subject, reasoning and the scope terms): one GIN index on the
-- English tsvector of the same three columns, which `@@ to_tsquery('english', …)` searches and ts_rank orders.
CREATE INDEX "judgments_search" ON "judgments" USING gin (to_tsvector('english', "subject" || ' ' || coalesce("reasoning", '') || ' ' || "scope_terms"));
