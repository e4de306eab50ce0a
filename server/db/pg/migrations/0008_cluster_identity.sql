CREATE TABLE "cluster_identity" (
	"id" smallint PRIMARY KEY NOT NULL,
	"cluster_id" text NOT NULL,
	"created_at" bigint NOT NULL
);
