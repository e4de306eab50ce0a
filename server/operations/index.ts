import type { AnyOperation } from '../http/operation.ts';
import ping from './ping.ts';
import apiKeyConfigGet from './workspace/apikeyconfig/get.ts';
import apiKeyConfigUpdate from './workspace/apikeyconfig/update.ts';
import apiKeyCreate from './workspace/apikey/create.ts';
import apiKeyUpdate from './workspace/apikey/update.ts';
import apiKeysGet from './workspace/apikeys/get.ts';
import authTokenReset from './workspace/authtoken/reset.ts';
import authTokensGet from './workspace/authtokens/get.ts';
import workspaceCreate from './workspace/create.ts';
import sendLoginLink from './workspace/email/send-login-link.ts';
import emailStatus from './workspace/email/status.ts';
import workspaceGet from './workspace/get.ts';

/** Every operation Hearth serves. Routing, /openapi.json and the registry test all read this one list. */
export const operations: readonly AnyOperation[] = [
  ping,
  workspaceCreate,
  workspaceGet,
  apiKeyCreate,
  apiKeyUpdate,
  apiKeysGet,
  authTokensGet,
  authTokenReset,
  apiKeyConfigGet,
  apiKeyConfigUpdate,
  sendLoginLink,
  emailStatus,
] as AnyOperation[];
