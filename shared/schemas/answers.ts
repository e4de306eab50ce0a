import { z } from 'zod';
import { secret } from './common.ts';

// The answers that carry secrets, described as far as their secrets go (loose objects: the other fields are
// whatever the operation returns). An operation names one as its `output`; the request monitor and the admin
// views redact the marked fields of the answer by it (server/http/redact.ts).

/** workspace/create, workspace/get: the workspace's own auth token. */
export const workspaceAnswer = z.looseObject({ authToken: secret(z.string()) });

/** workspace/workspaceauthtoken/rotate: the workspace's new auth token. */
export const workspaceAuthTokenAnswer = z.looseObject({ workspaceId: z.string(), authToken: secret(z.string()) });

/** workspace/authtoken/reset: the new auth token of the key (with its name and domains). */
export const authTokenAnswer = z.looseObject({ authToken: z.looseObject({ token: secret(z.string()) }) });

/** workspace/authtokens/get: every auth token of the key. */
export const authTokensAnswer = z.looseObject({ authTokens: z.array(z.looseObject({ token: secret(z.string()) })) });

/** auth/generate_token, the legacy /v1/auth/token/get: a signed user token. */
export const userTokenAnswer = z.looseObject({ token: secret(z.string()) });

/** advancedwebhook/endpoints/secret/get and secret/rotate: the endpoint's signing secret. */
export const endpointSecretAnswer = z.looseObject({ secret: secret(z.string()) });
