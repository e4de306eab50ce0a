// The data of the answers many tests read, as far as they read them (one operation's answer each). A test that
// reads more of an answer describes that answer itself.
import type { z } from 'zod';
import type { authTokensAnswer, userTokenAnswer } from '../../shared/schemas/answers.ts';

/** workspace/get's data: its owner. */
export interface WorkspaceAnswer {
  owner: { email: string };
}

/** workspace/apikey/create's data. */
export interface ApiKeyAnswer {
  apiKey: string;
}

/** workspace/authtokens/get's data. */
export type AuthTokensAnswer = z.infer<typeof authTokensAnswer>;

/** auth/generate_token's data: the signed user token. */
export type UserTokenAnswer = z.infer<typeof userTokenAnswer>;
