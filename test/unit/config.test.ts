import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, configSchema } from '../../src/config.js';
import { describeSettings, envName, loadConfig } from '../../src/config-load.js';
import { projectRoot } from '../../src/project-root.js';

// The defaults docs/configuration.md and the settings' descriptions promise. Settings added later
// are covered by the schema-driven checks below (every leaf present, default.json equal to the schema).
const DOCUMENTED_DEFAULTS = {
  port: 3000,
  host: '0.0.0.0',
  dataDir: './data',
  chromiumPath: '',
  logLevel: 'info',
  shutdownGraceMs: 30_000,
  limits: { maxBodyBytes: 8 * 1024 * 1024, maxTimeoutMs: 120_000, maxFullPageHeight: 16_384 },
  render: { concurrency: Math.max(2, availableParallelism()), queueSize: 100, restartAfter: 500, pageMaxUses: 100 },
};

function expectDefaults(cfg: unknown): void {
  expect(cfg).toMatchObject(DOCUMENTED_DEFAULTS);
  // Same settings as the schema declares: nothing missing, nothing extra.
  expect(leafPaths(cfg as Record<string, unknown>).sort()).toEqual(
    leafPaths(configSchema.parse({}) as unknown as Record<string, unknown>).sort(),
  );
}

/** Every leaf path of a plain JSON object, e.g. "limits.maxBodyBytes". */
function leafPaths(obj: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? leafPaths(v as Record<string, unknown>, `${prefix}${k}.`)
      : [`${prefix}${k}`],
  );
}

function expectConfigError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

describe('loadConfig', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pagewatch-config-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const writeJson = (name: string, value: unknown) => writeFileSync(join(dir, name), JSON.stringify(value));

  it('gives the documented defaults with an empty config dir and no env', () => {
    expectDefaults(loadConfig({ configDir: dir, env: {} }));
  });

  it('reads default.json from the config dir', () => {
    writeJson('default.json', { port: 1234, limits: { maxTimeoutMs: 5000 } });
    const cfg = loadConfig({ configDir: dir, env: {} });
    expect(cfg.port).toBe(1234);
    expect(cfg.limits.maxTimeoutMs).toBe(5000);
    // Siblings of a partially given section keep their defaults.
    expect(cfg.limits.maxBodyBytes).toBe(8 * 1024 * 1024);
    expect(cfg.render.queueSize).toBe(100);
  });

  it('applies PAGEWATCH_* environment variables (numbers parsed, strings kept)', () => {
    writeJson('default.json', { port: 1234, dataDir: './from-file' });
    const cfg = loadConfig({
      configDir: dir,
      env: { PAGEWATCH_PORT: '4000', PAGEWATCH_RENDER_QUEUE_SIZE: '5', PAGEWATCH_DATA_DIR: '/x' },
    });
    expect(cfg.port).toBe(4000);
    expect(cfg.render.queueSize).toBe(5);
    expect(cfg.dataDir).toBe('/x');
    expect(cfg.limits.maxBodyBytes).toBe(8 * 1024 * 1024);
  });

  it('ignores environment variables that are not settings', () => {
    const cfg = loadConfig({ configDir: dir, env: { PAGEWATCH_NOT_A_SETTING: '1', PATH: '/bin', PORT: '9' } });
    expectDefaults(cfg);
  });

  it('PAGEWATCH_ENV=prod loads prod.json over default.json, and env vars over both', () => {
    writeJson('default.json', {
      port: 1111,
      host: '127.0.0.1',
      limits: { maxTimeoutMs: 5000, maxFullPageHeight: 200 },
    });
    writeJson('prod.json', { port: 2222, limits: { maxTimeoutMs: 60_000 } });
    const cfg = loadConfig({ configDir: dir, env: { PAGEWATCH_ENV: 'prod' } });
    expect(cfg.port).toBe(2222);
    expect(cfg.host).toBe('127.0.0.1'); // from default.json, untouched by prod.json
    expect(cfg.limits.maxTimeoutMs).toBe(60_000);
    expect(cfg.limits.maxFullPageHeight).toBe(200); // deep merge, not a section replace

    const withEnv = loadConfig({ configDir: dir, env: { PAGEWATCH_ENV: 'prod', PAGEWATCH_PORT: '3333' } });
    expect(withEnv.port).toBe(3333);

    // Without PAGEWATCH_ENV, prod.json is not read.
    expect(loadConfig({ configDir: dir, env: {} }).port).toBe(1111);
  });

  it('overrides win over files and env', () => {
    writeJson('default.json', { port: 1111 });
    const cfg = loadConfig({
      configDir: dir,
      env: { PAGEWATCH_PORT: '2222' },
      overrides: { port: 3333, render: { queueSize: 7 } },
    });
    expect(cfg.port).toBe(3333);
    expect(cfg.render.queueSize).toBe(7);
    expect(cfg.render.restartAfter).toBe(500);
  });

  it('an invalid env value throws ConfigError naming the setting and its env var', () => {
    const err = expectConfigError(() => loadConfig({ configDir: dir, env: { PAGEWATCH_RENDER_CONCURRENCY: 'abc' } }));
    expect(err.message).toContain('render.concurrency');
    expect(err.message).toContain('PAGEWATCH_RENDER_CONCURRENCY');
  });

  it('an out-of-range value throws ConfigError naming the setting and its env var', () => {
    writeJson('default.json', { limits: { maxBodyBytes: 10 } });
    const err = expectConfigError(() => loadConfig({ configDir: dir, env: {} }));
    expect(err.message).toContain('limits.maxBodyBytes');
    expect(err.message).toContain('PAGEWATCH_LIMITS_MAX_BODY_BYTES');

    const port = expectConfigError(() =>
      loadConfig({ configDir: dir, env: {}, overrides: { limits: {}, port: 70000 } }),
    );
    expect(port.message).toContain('PAGEWATCH_PORT');
  });

  it('an unknown key in a json file throws ConfigError naming the key', () => {
    writeJson('default.json', { prot: 3000 });
    const top = expectConfigError(() => loadConfig({ configDir: dir, env: {} }));
    expect(top.message).toContain('prot');

    writeJson('default.json', { render: { concurency: 4 } });
    const nested = expectConfigError(() => loadConfig({ configDir: dir, env: {} }));
    expect(nested.message).toContain('concurency');
    expect(nested.message).toContain('render');
  });

  it('an unknown nested key is reported by its full path, without pointing at an env var that does not exist', () => {
    writeJson('default.json', { render: { concurency: 4 } });
    const err = expectConfigError(() => loadConfig({ configDir: dir, env: {} }));
    expect(err.message).toContain('render.concurency');
    // PAGEWATCH_RENDER is not a setting; telling the operator to look at it is misleading.
    expect(err.message).not.toMatch(/PAGEWATCH_RENDER\b(?!_)/);
  });

  it('a config file that is not JSON throws ConfigError naming the file', () => {
    writeFileSync(join(dir, 'default.json'), '{ "port": 3000, }');
    const err = expectConfigError(() => loadConfig({ configDir: dir, env: {} }));
    expect(err.message).toContain(join(dir, 'default.json'));
  });

  it('render.concurrency 0 becomes the number of cores, at least 2; other values are kept', () => {
    const auto = loadConfig({ configDir: dir, env: { PAGEWATCH_RENDER_CONCURRENCY: '0' } });
    expect(auto.render.concurrency).toBe(Math.max(2, availableParallelism()));
    expect(auto.render.concurrency).toBeGreaterThanOrEqual(2);
    expect(loadConfig({ configDir: dir, env: { PAGEWATCH_RENDER_CONCURRENCY: '1' } }).render.concurrency).toBe(1);
    expect(loadConfig({ configDir: dir, env: { PAGEWATCH_RENDER_CONCURRENCY: '7' } }).render.concurrency).toBe(7);
  });

  it('the result is deeply frozen', () => {
    const cfg = loadConfig({ configDir: dir, env: {} });
    expect(Object.isFrozen(cfg)).toBe(true);
    expect(Object.isFrozen(cfg.limits)).toBe(true);
    expect(Object.isFrozen(cfg.render)).toBe(true);
    expect(() => {
      (cfg as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (cfg.render as { queueSize: number }).queueSize = 1;
    }).toThrow(TypeError);
    expect(cfg.port).toBe(3000);
    expect(cfg.render.queueSize).toBe(100);
  });

  it('loads the repo config without error when no configDir is given', () => {
    const cfg = loadConfig({ env: {} });
    expectDefaults(cfg);
  });
});

describe('envName', () => {
  it('turns a setting path into PAGEWATCH_ + UPPER_SNAKE_CASE', () => {
    expect(envName('limits.maxBodyBytes')).toBe('PAGEWATCH_LIMITS_MAX_BODY_BYTES');
    expect(envName('port')).toBe('PAGEWATCH_PORT');
    expect(envName('render.queueSize')).toBe('PAGEWATCH_RENDER_QUEUE_SIZE');
    expect(envName('dataDir')).toBe('PAGEWATCH_DATA_DIR');
    expect(envName('limits.maxFullPageHeight')).toBe('PAGEWATCH_LIMITS_MAX_FULL_PAGE_HEIGHT');
  });
});

describe('describeSettings', () => {
  const defaults = configSchema.parse({}) as unknown as Record<string, unknown>;
  const settings = describeSettings();

  it('lists every leaf setting exactly once, with its env name, default and a description', () => {
    expect(settings.map((s) => s.path).sort()).toEqual(leafPaths(defaults).sort());
    for (const s of settings) {
      expect(s.env).toBe(envName(s.path));
      expect(s.description.trim().length, `${s.path} has no description`).toBeGreaterThan(5);
      const def = s.path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], defaults);
      expect(s.default, s.path).toEqual(def);
    }
  });

  it('includes the nested settings by their dotted path', () => {
    const byPath = new Map(settings.map((s) => [s.path, s]));
    expect(byPath.get('limits.maxBodyBytes')).toMatchObject({
      env: 'PAGEWATCH_LIMITS_MAX_BODY_BYTES',
      default: 8 * 1024 * 1024,
    });
    expect(byPath.get('render.concurrency')).toMatchObject({ env: 'PAGEWATCH_RENDER_CONCURRENCY', default: 0 });
    expect(byPath.has('limits')).toBe(false);
  });

  it('every listed env var really sets its setting', () => {
    // Feed each setting its own default through its env var: a wrong env name would be ignored
    // silently, so use a value that differs from the default where the setting is numeric.
    const dir = mkdtempSync(join(tmpdir(), 'pagewatch-config-'));
    try {
      for (const s of settings) {
        if (typeof s.default !== 'number') continue;
        // One more than the default, or half of it where one more is out of range (a ratio of at most 1).
        const load = (v: number) =>
          loadConfig({ configDir: dir, env: { [s.env]: String(v) } }) as unknown as Record<string, unknown>;
        let value = s.default + 1;
        let cfg: Record<string, unknown>;
        try {
          cfg = load(value);
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          value = s.default / 2;
          cfg = load(value);
        }
        const got = s.path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], cfg);
        expect(got, s.env).toBe(value);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('config/default.json in the repo', () => {
  it('equals the schema defaults exactly (the file people read never drifts)', () => {
    const file = JSON.parse(readFileSync(resolve(projectRoot(), 'config', 'default.json'), 'utf8')) as unknown;
    expect(file).toStrictEqual(configSchema.parse({}));
  });

  it('passes validation on its own', () => {
    const file = JSON.parse(readFileSync(resolve(projectRoot(), 'config', 'default.json'), 'utf8')) as unknown;
    expect(configSchema.safeParse(file).success).toBe(true);
  });
});
