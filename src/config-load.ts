// Loading the settings that config.ts declares: config/default.json → config/<PAGEWATCH_ENV>.json (if
// present) → environment variables (PAGEWATCH_ + the setting's path in UPPER_SNAKE_CASE), then validation,
// the derived defaults and a frozen result; also the settings listing (`pagewatch config`, the README).
import { readFileSync, existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { checkStorageDriver, ConfigError, configSchema, type Config } from './config.js';
import { projectRoot } from './project-root.js';

/** Every setting path (e.g. "render.queueSize"), derived from the schema so env names never drift. */
function settingPaths(schema: z.ZodObject, prefix = ''): string[] {
  return Object.entries(schema.shape).flatMap(([key, field]) => {
    const inner = unwrap(field as z.ZodType);
    return inner instanceof z.ZodObject ? settingPaths(inner, `${prefix}${key}.`) : [`${prefix}${key}`];
  });
}

function unwrap(t: z.ZodType): z.ZodType {
  let cur: z.ZodType = t;
  while (cur instanceof z.ZodDefault || cur instanceof z.ZodPrefault || cur instanceof z.ZodOptional) {
    cur = (cur as z.ZodDefault).unwrap() as z.ZodType;
  }
  return cur;
}

export function envName(path: string): string {
  return (
    'PAGEWATCH_' +
    path
      .replace(/\./g, '_')
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toUpperCase()
  );
}

/** Env values are JSON when they parse as JSON (numbers, booleans, arrays), else plain strings. */
function parseEnvValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    node[part] = typeof node[part] === 'object' && node[part] !== null ? node[part] : {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]!] = value;
}

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b)
        ? merge(b as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

export interface LoadOptions {
  configDir?: string;
  env?: NodeJS.ProcessEnv;
  overrides?: Record<string, unknown>;
}

export function loadConfig(opts: LoadOptions = {}): Readonly<Config> {
  const env = opts.env ?? process.env;
  const dir = opts.configDir ?? resolve(projectRoot(), 'config');
  let raw: Record<string, unknown> = {};
  const defaultsFile = resolve(dir, 'default.json');
  if (existsSync(defaultsFile)) raw = readJson(defaultsFile);
  const envFile = env.PAGEWATCH_ENV ? resolve(dir, `${env.PAGEWATCH_ENV}.json`) : undefined;
  if (envFile && existsSync(envFile)) raw = merge(raw, readJson(envFile));
  for (const path of settingPaths(configSchema)) {
    const value = env[envName(path)];
    if (value !== undefined) setPath(raw, path, parseEnvValue(value));
  }
  if (opts.overrides) raw = merge(raw, opts.overrides);
  return validate(raw);
}

export function validate(raw: unknown): Readonly<Config> {
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.flatMap((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => `  ${[...issue.path, key].join('.')}: unknown setting`);
      }
      const path = issue.path.join('.');
      const where = path ? `${path} (env ${envName(path)})` : 'config';
      return `  ${where}: ${issue.message}`;
    });
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  checkStorageDriver(cfg);
  if (cfg.render.concurrency === 0) cfg.render.concurrency = Math.max(2, availableParallelism());
  if (cfg.render.warmPages === 0) cfg.render.warmPages = cfg.render.concurrency + 1;
  if (cfg.monitors.diffThreads === 0) cfg.monitors.diffThreads = Math.max(1, availableParallelism() - 1);
  return deepFreeze(cfg);
}

function deepFreeze<T>(obj: T): T {
  if (obj && typeof obj === 'object') {
    for (const v of Object.values(obj)) deepFreeze(v);
    Object.freeze(obj);
  }
  return obj;
}

export function describeSettings(): { path: string; env: string; description: string; default: unknown }[] {
  const defaults = configSchema.parse({}) as Record<string, unknown>;
  return settingPaths(configSchema).map((path) => {
    let field: z.ZodType = configSchema;
    let def: unknown = defaults;
    for (const key of path.split('.')) {
      field = (unwrap(field) as z.ZodObject).shape[key] as z.ZodType;
      def = (def as Record<string, unknown>)[key];
    }
    return { path, env: envName(path), description: field.description ?? '', default: def };
  });
}
