import type { AnyOperation } from '../http/operation.ts';
import askAi from './rewriter/ask-ai.ts';
import agentsCreate from './agents/create.ts';
import agentsGet from './agents/get.ts';
import agentsList from './agents/list.ts';
import agentsUpdate from './agents/update.ts';
import agentsDelete from './agents/delete.ts';
import executionRun from './agents/execution/run.ts';
import executionGet from './agents/execution/get.ts';
import executionList from './agents/execution/list.ts';
import definitionsCreate from './workflow/definitions/create.ts';
import definitionsGet from './workflow/definitions/get.ts';
import definitionsUpdate from './workflow/definitions/update.ts';
import definitionsDelete from './workflow/definitions/delete.ts';
import definitionsList from './workflow/definitions/list.ts';
import memorySuggest from './memory/suggest.ts';
import judgmentsQuery from './memory/judgments/query.ts';
import activitiesAdd from './activities/add.ts';
import activitiesDelete from './activities/delete.ts';
import activitiesGet from './activities/get.ts';
import activitiesUpdate from './activities/update.ts';
import annotationsAdd from './commentannotations/add.ts';
import commentsAdd from './commentannotations/comments/add.ts';
import commentsDelete from './commentannotations/comments/delete.ts';
import commentsGet from './commentannotations/comments/get.ts';
import commentsUpdate from './commentannotations/comments/update.ts';
import annotationsCount from './commentannotations/count/get.ts';
import annotationsDelete from './commentannotations/delete.ts';
import annotationsGet from './commentannotations/get.ts';
import annotationsRead from './commentannotations/read/update.ts';
import annotationsUpdate from './commentannotations/update.ts';
import reactionsAdd from './reactions/add.ts';
import reactionsDelete from './reactions/delete.ts';
import reactionsGet from './reactions/get.ts';
import recordingsAdd from './recordings/add.ts';
import recordingsDelete from './recordings/delete.ts';
import recordingsGet from './recordings/get.ts';
import generateToken from './auth/generate_token.ts';
import generateSignature from './auth/generate_signature.ts';
import legacyTokenGet from './auth/token/get.ts';
import crdtAdd from './crdt/add.ts';
import crdtDelete from './crdt/delete.ts';
import crdtGet from './crdt/get.ts';
import crdtUpdate from './crdt/update.ts';
import permissionsAdd from './auth/permissions/add.ts';
import permissionsGet from './auth/permissions/get.ts';
import permissionsRemove from './auth/permissions/remove.ts';
import organizationsDisable from './organizations/access/disablestate/update.ts';
import organizationsAdd from './organizations/add.ts';
import organizationsDelete from './organizations/delete.ts';
import documentsAccess from './organizations/documents/access/update.ts';
import documentsDisable from './organizations/documents/access/disablestate/update.ts';
import documentsAdd from './organizations/documents/add.ts';
import documentsDelete from './organizations/documents/delete.ts';
import documentsGet from './organizations/documents/get.ts';
import documentsMigrate from './organizations/documents/migrate.ts';
import documentsMigrateStatus from './organizations/documents/migrate/status.ts';
import documentsMove from './organizations/documents/move.ts';
import documentsUpdate from './organizations/documents/update.ts';
import foldersAccess from './organizations/folders/access/update.ts';
import foldersAdd from './organizations/folders/add.ts';
import foldersDelete from './organizations/folders/delete.ts';
import foldersGet from './organizations/folders/get.ts';
import foldersUpdate from './organizations/folders/update.ts';
import organizationsGet from './organizations/get.ts';
import organizationsUpdate from './organizations/update.ts';
import userGroupsAdd from './organizations/usergroups/add.ts';
import groupUsersAdd from './organizations/usergroups/users/add.ts';
import groupUsersDelete from './organizations/usergroups/users/delete.ts';
import notificationsAdd from './notifications/add.ts';
import notificationConfigGet from './notifications/config/get.ts';
import notificationConfigSet from './notifications/config/set.ts';
import notificationsDelete from './notifications/delete.ts';
import notificationsGet from './notifications/get.ts';
import notificationsUpdate from './notifications/update.ts';
import ping from './ping.ts';
import usersAdd from './users/add.ts';
import userDataDelete from './users/data/delete.ts';
import userDataDeleteStatus from './users/data/delete/status.ts';
import userDataGet from './users/data/get.ts';
import usersDelete from './users/delete.ts';
import usersUpdate from './users/update.ts';
import apiKeyConfigGet from './workspace/apikeyconfig/get.ts';
import apiKeyConfigUpdate from './workspace/apikeyconfig/update.ts';
import emailConfigGet from './workspace/emailconfig/get.ts';
import emailConfigUpdate from './workspace/emailconfig/update.ts';
import workspaceNotificationConfigGet from './workspace/notificationconfig/get.ts';
import workspaceNotificationConfigUpdate from './workspace/notificationconfig/update.ts';
import activityConfigGet from './workspace/activityconfig/get.ts';
import activityConfigUpdate from './workspace/activityconfig/update.ts';
import permissionProviderConfigGet from './workspace/permissionproviderconfig/get.ts';
import permissionProviderConfigUpdate from './workspace/permissionproviderconfig/update.ts';
import domainsAdd from './workspace/domains/add.ts';
import domainsDelete from './workspace/domains/delete.ts';
import domainsGet from './workspace/domains/get.ts';
import apiKeyCreate from './workspace/apikey/create.ts';
import apiKeyUpdate from './workspace/apikey/update.ts';
import apiKeysGet from './workspace/apikeys/get.ts';
import authTokenReset from './workspace/authtoken/reset.ts';
import workspaceAuthTokenRotate from './workspace/workspaceauthtoken/rotate.ts';
import authTokensGet from './workspace/authtokens/get.ts';
import workspaceCreate from './workspace/create.ts';
import sendLoginLink from './workspace/email/send-login-link.ts';
import emailStatus from './workspace/email/status.ts';
import workspaceGet from './workspace/get.ts';

import advancedWebhookConfigGet from './workspace/advancedwebhookconfig/get.ts';
import advancedWebhookConfigUpdate from './workspace/advancedwebhookconfig/update.ts';
import webhookAttemptsList from './workspace/advancedwebhook/attempts/list.ts';
import webhookEndpointsCreate from './workspace/advancedwebhook/endpoints/create.ts';
import webhookEndpointsDelete from './workspace/advancedwebhook/endpoints/delete.ts';
import webhookEndpointsGet from './workspace/advancedwebhook/endpoints/get.ts';
import webhookEndpointsRecover from './workspace/advancedwebhook/endpoints/recover.ts';
import webhookSecretGet from './workspace/advancedwebhook/endpoints/secret/get.ts';
import webhookSecretRotate from './workspace/advancedwebhook/endpoints/secret/rotate.ts';
import webhookEndpointsUpdate from './workspace/advancedwebhook/endpoints/update.ts';
import webhookMessagesReplay from './workspace/advancedwebhook/messages/replay.ts';
import webhookConfigGet from './workspace/webhookconfig/get.ts';
import webhookConfigUpdate from './workspace/webhookconfig/update.ts';
/** Every operation Hearth serves. Routing, /openapi.json and the registry test all read this one list. */
export const operations: readonly AnyOperation[] = [
  ping,
  // workspace administration
  workspaceCreate,
  workspaceGet,
  apiKeyCreate,
  apiKeyUpdate,
  apiKeysGet,
  authTokensGet,
  authTokenReset,
  workspaceAuthTokenRotate,
  apiKeyConfigGet,
  apiKeyConfigUpdate,
  emailConfigGet,
  emailConfigUpdate,
  workspaceNotificationConfigGet,
  workspaceNotificationConfigUpdate,
  activityConfigGet,
  activityConfigUpdate,
  permissionProviderConfigGet,
  permissionProviderConfigUpdate,
  domainsGet,
  domainsAdd,
  domainsDelete,
  sendLoginLink,
  emailStatus,
  // AI: ask-AI, agents and executions, workflow definitions, decision memory
  askAi,
  agentsCreate,
  agentsGet,
  agentsList,
  agentsUpdate,
  agentsDelete,
  executionRun,
  executionGet,
  executionList,
  definitionsCreate,
  definitionsGet,
  definitionsUpdate,
  definitionsDelete,
  definitionsList,
  memorySuggest,
  judgmentsQuery,
  // webhooks
  advancedWebhookConfigUpdate,
  advancedWebhookConfigGet,
  webhookEndpointsCreate,
  webhookEndpointsGet,
  webhookEndpointsUpdate,
  webhookEndpointsDelete,
  webhookSecretGet,
  webhookSecretRotate,
  webhookEndpointsRecover,
  webhookAttemptsList,
  webhookMessagesReplay,
  webhookConfigGet,
  webhookConfigUpdate,
  // the access model
  usersAdd,
  usersUpdate,
  usersDelete,
  organizationsAdd,
  organizationsGet,
  organizationsUpdate,
  organizationsDelete,
  organizationsDisable,
  foldersAdd,
  foldersGet,
  foldersUpdate,
  foldersDelete,
  foldersAccess,
  documentsAdd,
  documentsGet,
  documentsUpdate,
  documentsDelete,
  documentsMove,
  documentsAccess,
  documentsDisable,
  documentsMigrate,
  documentsMigrateStatus,
  userGroupsAdd,
  groupUsersAdd,
  groupUsersDelete,
  permissionsAdd,
  permissionsRemove,
  permissionsGet,
  generateToken,
  generateSignature,
  legacyTokenGet,
  // the feed
  notificationsAdd,
  notificationsGet,
  notificationsDelete,
  notificationsUpdate,
  notificationConfigGet,
  notificationConfigSet,
  activitiesAdd,
  activitiesGet,
  activitiesUpdate,
  activitiesDelete,
  annotationsAdd,
  annotationsGet,
  annotationsUpdate,
  annotationsDelete,
  annotationsCount,
  annotationsRead,
  commentsAdd,
  commentsGet,
  commentsUpdate,
  commentsDelete,
  reactionsAdd,
  reactionsGet,
  reactionsDelete,
  recordingsAdd,
  recordingsGet,
  recordingsDelete,
  userDataGet,
  userDataDelete,
  userDataDeleteStatus,
  // collaborative documents
  crdtAdd,
  crdtUpdate,
  crdtGet,
  crdtDelete,
] as AnyOperation[];
