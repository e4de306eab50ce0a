// The hosted service's per-key service switches beyond mail and webhooks (reference §3.1): notificationconfig,
// activityconfig and permissionproviderconfig. They live in the key's settings (api_keys.settings) like the
// others; keys written before these operations existed have no value and read the defaults of apikeys.ts.
import { currentTime } from '../clock.ts';
import type { z } from 'zod';
import type { activityConfigUpdateInput, notificationConfigUpdateInput, permissionProviderConfigUpdateInput } from '../../shared/schemas/apikey.ts';
import type { TenantScope } from '../db/scope.ts';
import type { Config } from '../config.ts';
import { invalid } from '../errors.ts';
import { checkOutboundTargets } from './outbound-targets.ts';
import { forgetProviderDecisions } from './permission-provider.ts';
import {
  activityServiceOf,
  DEFAULT_NOTIFICATION_TRIGGERS,
  deleteSecret,
  PERMISSION_PROVIDER_SECRET,
  setSecret,
  updateSettings,
  type KeyDeps,
} from './apikeys.ts';
import type { ApiKeyRow } from './types.ts';

/**
 * /v2/workspace/notificationconfig/update: `useNotificationService` and the trigger switches (merged over the
 * stored ones). Turning the service on for a key that has no triggers yet seeds the defaults apikey/create's
 * `setDefaultNotificationTriggers` seeds, as the hosted service does on a first enable.
 */
export async function updateNotificationConfig(
  deps: Pick<KeyDeps, 'storage'>,
  scope: TenantScope,
  input: z.output<typeof notificationConfigUpdateInput>,
): Promise<ApiKeyRow> {
  if (input.useNotificationService === undefined && input.notificationServiceConfig === undefined) {
    throw invalid('At least one of useNotificationService or notificationServiceConfig must be provided');
  }
  return updateSettings(deps, scope, (settings) => {
    if (input.useNotificationService !== undefined) settings.useNotificationService = input.useNotificationService;
    const given = Object.entries(input.notificationServiceConfig?.triggers ?? {}).filter((entry): entry is [string, boolean] => entry[1] !== undefined);
    const seed = input.useNotificationService === true && settings.notificationTriggers === null ? DEFAULT_NOTIFICATION_TRIGGERS : {};
    if (given.length > 0 || Object.keys(seed).length > 0) {
      settings.notificationTriggers = { ...seed, ...settings.notificationTriggers, ...Object.fromEntries(given) };
    }
  });
}

/**
 * /v2/workspace/activityconfig/update. `enabledTime` is when the service was last turned on: stamped with the
 * time of the call that turns it on (unless given), kept while it is off.
 */
export async function updateActivityConfig(
  deps: Pick<KeyDeps, 'storage'>,
  scope: TenantScope,
  row: Pick<ApiKeyRow, 'createdAt'>,
  input: z.output<typeof activityConfigUpdateInput>,
): Promise<ApiKeyRow> {
  const { isEnabled, enabledTime } = input.activityServiceConfig;
  if (isEnabled === undefined && enabledTime === undefined) {
    throw invalid('At least one of activityServiceConfig.isEnabled or activityServiceConfig.enabledTime must be provided');
  }
  return updateSettings(deps, scope, (settings) => {
    const current = activityServiceOf({ settings, createdAt: row.createdAt });
    const turnedOn = isEnabled === true && !current.isEnabled;
    settings.activityServiceConfig = {
      isEnabled: isEnabled ?? current.isEnabled,
      enabledTime: enabledTime ?? (turnedOn ? currentTime() : current.enabledTime),
    };
  });
}

const BAD_URL = 'Please enter a valid URL';

/** An http(s) URL with a host, as given but trimmed; '' clears. */
function providerUrl(value: string): string {
  const url = value.trim();
  if (url === '') return '';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(BAD_URL);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') throw invalid(BAD_URL);
  return url;
}

/**
 * /v2/workspace/permissionproviderconfig/update: the settings of the permission provider mode
 * (services/permission-provider.ts). The auth token is encrypted with the key's other secrets.
 */
export async function updatePermissionProviderConfig(
  deps: KeyDeps & { config: Config },
  scope: TenantScope,
  input: z.output<typeof permissionProviderConfigUpdateInput>,
): Promise<ApiKeyRow> {
  if (input.usePermissionProvider === undefined && input.permissionProviderConfig === undefined) {
    throw invalid('At least one of usePermissionProvider or permissionProviderConfig must be provided');
  }
  const { permissionProviderUrl, authToken } = input.permissionProviderConfig ?? {};
  const url = permissionProviderUrl === undefined ? undefined : providerUrl(permissionProviderUrl);
  // Hearth calls it (the permission provider mode): refused early under OUTBOUND_PRIVATE=deny, as webhook targets are
  await checkOutboundTargets(deps, [['permissionProviderConfig.permissionProviderUrl', url]]);
  const row = await updateSettings(deps, scope, async (settings) => {
    if (input.usePermissionProvider !== undefined) settings.usePermissionProvider = input.usePermissionProvider;
    if (url !== undefined) settings.permissionProviderConfig = { permissionProviderUrl: url };
    if (authToken === '') await deleteSecret(deps, scope, PERMISSION_PROVIDER_SECRET);
    else if (authToken !== undefined) await setSecret(deps, scope, PERMISSION_PROVIDER_SECRET, authToken);
  });
  // decisions the former settings' provider made are not this one's
  forgetProviderDecisions(deps, scope.apiKeyId);
  return row;
}
