import { notificationsAddInput } from '../../../shared/schemas/feed.ts';
import { defineOperation } from '../../http/operation.ts';
import { permissionProviderOf } from '../../services/apikeys.ts';
import { addNotification, notificationCandidates } from '../../services/notifications.ts';
import { providerDocumentAccess } from '../../services/permission-provider.ts';

export default defineOperation({
  path: '/v2/notifications/add',
  auth: 'apiKey',
  summary: 'Adds a notification for everyone with access to the document (notifyAll) or the named users; idempotent with notificationId.',
  input: notificationsAddInput,
  async handler(input, ctx) {
    // verifyUserPermissions in the permission provider mode: the provider decides on the candidates, asked before
    // the write (no unit of work waits on the network)
    const providerAccess =
      input.verifyUserPermissions && permissionProviderOf(ctx.apiKey.settings).usePermissionProvider
        ? await providerDocumentAccess(
            ctx.app,
            ctx.scope,
            ctx.apiKey,
            input.organizationId,
            input.documentId,
            await notificationCandidates(ctx.app, ctx.scope, input),
          )
        : null;
    const outcome = await addNotification(ctx.app, ctx.scope, ctx.apiKey, input, providerAccess ?? undefined);
    const message = outcome.created ? 'Notification added successfully.' : 'Notification already exists.';
    return { message: 'Notification added successfully.', data: { success: true, message, notificationId: outcome.id } };
  },
});
