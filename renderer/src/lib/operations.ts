// The operations the UI's pages call by name, each with its input type from the operation's own schema in
// shared/schemas (z.input: what a caller may send). `import type` only: nothing of zod reaches the bundle.
import type { z } from 'zod';
import type {
  apiKeyConfigUpdateInput,
  apiKeyCreateInput,
  apiKeyRef,
  apiKeysGetInput,
  apiKeyUpdateInput,
  authTokenResetInput,
  domainsInput,
  emailConfigUpdateInput,
} from '../../../shared/schemas/apikey.ts';
import type { annotationsGetInput } from '../../../shared/schemas/comments.ts';
import type { userDataGetInput } from '../../../shared/schemas/feed.ts';
import type { recordingsGetInput } from '../../../shared/schemas/recordings.ts';
import type {
  advancedWebhookConfigUpdateInput,
  attemptsListInput,
  endpointCreateInput,
  endpointRecoverInput,
  endpointRef,
  endpointsGetInput,
  endpointUpdateInput,
  messageReplayInput,
  secretRotateInput,
} from '../../../shared/schemas/webhooks.ts';

type In<S extends z.ZodType> = z.input<S>;
type Nothing = Record<string, never>;

export interface OperationInputs {
  '/v2/workspace/get': Nothing;
  '/v2/workspace/apikeys/get': In<typeof apiKeysGetInput>;
  '/v2/workspace/apikey/create': In<typeof apiKeyCreateInput>;
  '/v2/workspace/apikey/update': In<typeof apiKeyUpdateInput>;
  '/v2/workspace/authtokens/get': In<typeof apiKeyRef>;
  '/v2/workspace/authtoken/reset': In<typeof authTokenResetInput>;
  '/v2/workspace/workspaceauthtoken/rotate': Nothing;
  '/v2/workspace/apikeyconfig/get': Nothing;
  '/v2/workspace/apikeyconfig/update': In<typeof apiKeyConfigUpdateInput>;
  '/v2/workspace/emailconfig/get': Nothing;
  '/v2/workspace/permissionproviderconfig/get': Nothing;
  '/v2/workspace/emailconfig/update': In<typeof emailConfigUpdateInput>;
  '/v2/workspace/domains/get': Nothing;
  '/v2/workspace/domains/add': In<typeof domainsInput>;
  '/v2/workspace/domains/delete': In<typeof domainsInput>;
  '/v2/workspace/advancedwebhookconfig/get': Nothing;
  '/v2/workspace/advancedwebhookconfig/update': In<typeof advancedWebhookConfigUpdateInput>;
  '/v2/workspace/advancedwebhook/endpoints/create': In<typeof endpointCreateInput>;
  '/v2/workspace/advancedwebhook/endpoints/get': In<typeof endpointsGetInput>;
  '/v2/workspace/advancedwebhook/endpoints/update': In<typeof endpointUpdateInput>;
  '/v2/workspace/advancedwebhook/endpoints/delete': In<typeof endpointRef>;
  '/v2/workspace/advancedwebhook/endpoints/recover': In<typeof endpointRecoverInput>;
  '/v2/workspace/advancedwebhook/endpoints/secret/get': In<typeof endpointRef>;
  '/v2/workspace/advancedwebhook/endpoints/secret/rotate': In<typeof secretRotateInput>;
  '/v2/workspace/advancedwebhook/attempts/list': In<typeof attemptsListInput>;
  '/v2/workspace/advancedwebhook/messages/replay': In<typeof messageReplayInput>;
  '/v2/commentannotations/get': In<typeof annotationsGetInput>;
  '/v2/recordings/get': In<typeof recordingsGetInput>;
  '/v2/users/data/get': In<typeof userDataGetInput>;
}

export type OperationPath = keyof OperationInputs;
