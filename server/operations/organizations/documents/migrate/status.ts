import { migrationStatusInput } from '../../../../../shared/schemas/access.ts';
import { defineOperation } from '../../../../http/operation.ts';
import { migrationStatus } from '../../../../services/migrations.ts';

export default defineOperation({
  path: '/v2/organizations/documents/migrate/status',
  auth: 'apiKey',
  summary: 'The state of a document migration: pending, in_progress, completed or failed (with the error).',
  input: migrationStatusInput,
  async handler(input, ctx) {
    return { message: 'Migration status retrieved successfully.', data: await migrationStatus(ctx.app, ctx.scope, input.organizationId, input.migrationId) };
  },
});
