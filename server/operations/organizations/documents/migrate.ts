import { documentsMigrateInput } from '../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../http/operation.ts';
import { startMigration } from '../../../services/migrations.ts';

export default defineOperation({
  path: '/v2/organizations/documents/migrate',
  auth: 'apiKey',
  summary: 'Starts a background job that moves a document and all its data to a new document id; poll migrate/status.',
  input: documentsMigrateInput,
  async handler(input, ctx) {
    const job = await startMigration(ctx.app, ctx.scope, input);
    return { message: 'Document migration started successfully.', data: { migrationId: job.id } };
  },
});
