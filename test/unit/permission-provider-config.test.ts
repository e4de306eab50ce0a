import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigFile } from '../../server/config-file.ts';
import { configFromEnvAndArgs, resolveConfig } from '../../server/config.ts';

// The permission provider mode's two settings (README, Configuration): env and config file, defaults and bounds.
describe('permission provider settings', () => {
  it('default to a 5 s timeout and a 60 s cache', () => {
    const config = resolveConfig();
    expect(config.permissionProviderTimeoutMs).toBe(5_000);
    expect(config.permissionProviderCacheMs).toBe(60_000);
  });

  it('come from PERMISSION_PROVIDER_TIMEOUT_MS and PERMISSION_PROVIDER_CACHE_MS, refused when not whole or out of bounds', () => {
    const config = resolveConfig(configFromEnvAndArgs({ PERMISSION_PROVIDER_TIMEOUT_MS: '250', PERMISSION_PROVIDER_CACHE_MS: '0' }, {}));
    expect(config.permissionProviderTimeoutMs).toBe(250);
    expect(config.permissionProviderCacheMs).toBe(0);
    expect(() => configFromEnvAndArgs({ PERMISSION_PROVIDER_TIMEOUT_MS: 'soon' }, {})).toThrow(/PERMISSION_PROVIDER_TIMEOUT_MS/);
    expect(() => resolveConfig(configFromEnvAndArgs({ PERMISSION_PROVIDER_TIMEOUT_MS: '600000' }, {}))).toThrow(/permissionProviderTimeoutMs/);
  });

  it('come from the config file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-pp-config-'));
    try {
      const file = join(dir, 'hearth.config.json');
      writeFileSync(file, JSON.stringify({ permissionProviderTimeoutMs: 1500, permissionProviderCacheMs: 10_000 }));
      expect(readConfigFile(file)).toMatchObject({ permissionProviderTimeoutMs: 1500, permissionProviderCacheMs: 10_000 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
