/**
 * hearth.config.json: the settings of the runtime contract (DESIGN §1) in a file, for teams that keep their
 * backend's settings next to their code. Keys mirror the environment variables and flags; precedence is
 * flags > env > file > defaults. The file is validated strictly at start: an unknown key (a typo) is an error
 * naming it, never silently ignored.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { configFromEnvAndArgs, LOG_FORMATS, LOG_LEVELS, type ConfigOverrides } from './config.ts';

export const CONFIG_FILE_NAME = 'hearth.config.json';

const configFileSchema = z.strictObject({
  /** Lets an editor validate the file; ignored by Hearth. */
  $schema: z.string().optional(),
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().min(1).optional(),
  /** Relative to the config file's folder. */
  dataDir: z.string().min(1).optional(),
  /** Relative to the config file's folder. */
  masterKeyFile: z.string().min(1).optional(),
  headerBrand: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'may contain only a-z, 0-9 and -')
    .optional(),
  logLevel: z.enum(LOG_LEVELS).optional(),
  logFormat: z.enum(LOG_FORMATS).optional(),
  smtpUrl: z.string().min(1).optional(),
  mailFrom: z.string().min(1).optional(),
  loginLinkAllowedHosts: z.array(z.string().min(1)).optional(),
  publicUrl: z.string().min(1).optional(),
  allowedHosts: z.array(z.string().min(1)).optional(),
  outboundPrivate: z.enum(['allow', 'deny']).optional(),
  aiTimeoutMs: z.number().int().positive().optional(),
  permissionProviderTimeoutMs: z.number().int().positive().max(120_000).optional(),
  permissionProviderCacheMs: z.number().int().nonnegative().optional(),
  responseCacheMb: z.number().min(0).max(4096).optional(),
  crdtHistoryUpdates: z.number().int().min(0).max(100_000).optional(),
  webhookRetryScheduleMs: z.array(z.number().int().nonnegative()).min(1).max(20).optional(),
  /** Connection limits and timeouts (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, MAX_CONNECTIONS_PER_ADDRESS, …). */
  connections: z
    .strictObject({
      firstByteTimeoutMs: z.number().int().positive().optional(),
      headersTimeoutMs: z.number().int().positive().optional(),
      requestTimeoutMs: z.number().int().positive().optional(),
      maxPerAddress: z.number().int().positive().optional(),
      maxWebsocketsPerAddress: z.number().int().positive().optional(),
    })
    .optional(),
});
export type ConfigFile = z.infer<typeof configFileSchema>;

/** The keys a config file may hold, for messages and docs. */
export const CONFIG_FILE_KEYS = Object.keys(configFileSchema.shape);

/** A config file that cannot be used: unreadable, not JSON, an unknown key or a bad value. */
export class ConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

/**
 * Which config file applies: `--config FILE`, else `HEARTH_CONFIG`, else `hearth.config.json` in `cwd` when
 * there is one. A file named explicitly must exist; the implicit one is optional.
 */
export function locateConfigFile(options: { flag?: string | undefined; env: NodeJS.ProcessEnv; cwd: string }): string | undefined {
  const named = options.flag ?? (options.env.HEARTH_CONFIG || undefined);
  if (named !== undefined) {
    const path = resolve(options.cwd, named);
    if (!existsSync(path)) throw new ConfigFileError(`Config file ${path} does not exist`);
    return path;
  }
  const implicit = resolve(options.cwd, CONFIG_FILE_NAME);
  return existsSync(implicit) ? implicit : undefined;
}

/** Reads and validates a config file into config overrides (a relative dataDir resolved against the file's folder). */
export function readConfigFile(path: string): ConfigOverrides {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigFileError(`Cannot read config file ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(`Config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigFileError(`Config file ${path} must hold a JSON object`);
  const unknown = Object.keys(raw).filter((key) => !CONFIG_FILE_KEYS.includes(key));
  if (unknown.length > 0) {
    const [key] = unknown as [string];
    const guess = closestKey(key, CONFIG_FILE_KEYS);
    throw new ConfigFileError(
      `Unknown key "${key}" in config file ${path}${guess ? ` (did you mean "${guess}"?)` : ''}; the keys are ${CONFIG_FILE_KEYS.filter((k) => k !== '$schema').join(', ')}`,
    );
  }
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigFileError(`Invalid value in config file ${path}: ${issue?.path.join('.') || 'config'}: ${issue?.message}`);
  }
  const file = parsed.data;
  return {
    port: file.port,
    host: file.host,
    dataDir: file.dataDir === undefined ? undefined : resolve(dirname(path), file.dataDir),
    masterKeyFile: file.masterKeyFile === undefined ? undefined : resolve(dirname(path), file.masterKeyFile),
    headerBrand: file.headerBrand,
    logLevel: file.logLevel,
    logFormat: file.logFormat,
    smtpUrl: file.smtpUrl,
    mailFrom: file.mailFrom,
    loginLinkAllowedHosts: file.loginLinkAllowedHosts,
    publicUrl: file.publicUrl,
    allowedHosts: file.allowedHosts,
    outboundPrivate: file.outboundPrivate,
    aiTimeoutMs: file.aiTimeoutMs,
    permissionProviderTimeoutMs: file.permissionProviderTimeoutMs,
    permissionProviderCacheMs: file.permissionProviderCacheMs,
    responseCacheMb: file.responseCacheMb,
    crdtHistoryUpdates: file.crdtHistoryUpdates,
    webhooks: file.webhookRetryScheduleMs ? { retryScheduleMs: file.webhookRetryScheduleMs } : undefined,
    connections: file.connections,
  };
}

/** `higher` wins wherever it sets a value; nested groups (rateLimits, webhooks) merge key by key. */
export function mergeOverrides(lower: ConfigOverrides, higher: ConfigOverrides): ConfigOverrides {
  const defined = <T extends object>(value: T | undefined): Partial<T> =>
    Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
  return {
    ...defined(lower),
    ...defined(higher),
    rateLimits: { ...defined(lower.rateLimits), ...defined(higher.rateLimits) },
    webhooks: { ...defined(lower.webhooks), ...defined(higher.webhooks) },
    connections: { ...defined(lower.connections), ...defined(higher.connections) },
  };
}

/**
 * The configuration of the runtime contract from every source: the config file (see `locateConfigFile`),
 * the environment, the flags. Returns the overrides for `resolveConfig` and the file that was used.
 */
export function configFromAllSources(options: {
  env: NodeJS.ProcessEnv;
  cwd: string;
  args: { port?: string | undefined; host?: string | undefined; 'data-dir'?: string | undefined; config?: string | undefined };
}): { overrides: ConfigOverrides; configFile: string | undefined } {
  const configFile = locateConfigFile({ flag: options.args.config, env: options.env, cwd: options.cwd });
  const fromFile = configFile ? readConfigFile(configFile) : {};
  const fromEnvAndArgs = configFromEnvAndArgs(options.env, options.args);
  // configFromEnvAndArgs resolves nothing; a relative DATA_DIR or --data-dir is relative to the working directory.
  if (fromEnvAndArgs.dataDir !== undefined) fromEnvAndArgs.dataDir = resolve(options.cwd, fromEnvAndArgs.dataDir);
  return { overrides: mergeOverrides(fromFile, fromEnvAndArgs), configFile };
}

/** The known key a typo most likely meant (same up to case, _ and -, a prefix, or a small edit distance), for "did you mean". */
function closestKey(typo: string, keys: string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  const plain = (text: string) => text.toLowerCase().replace(/[_-]/g, '');
  for (const key of keys) {
    if (plain(typo).startsWith(plain(key)) || plain(key).startsWith(plain(typo))) return key;
    const distance = editDistance(plain(typo), plain(key));
    if (!best || distance < best.distance) best = { key, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(best.key.length / 3)) ? best.key : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
