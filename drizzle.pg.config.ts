import { defineConfig } from 'drizzle-kit';

// The PostgreSQL engine's migrations, generated from the PostgreSQL form of the one schema source
// (server/db/pg/schema.ts converts server/db/schema.ts): `npm run db:generate` makes both dialects' migrations.
export default defineConfig({
  dialect: 'postgresql',
  schema: './server/db/pg/tables.ts',
  out: './server/db/pg/migrations',
});
