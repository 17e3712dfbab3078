// Podman for the container tests (test/containers/): the images they run, built once per machine and cached,
// and the commands they run them with. No registry is reachable, so the base image (the official
// node:20-bookworm-slim's stand-in) and a PostgreSQL 15 image are built here from Debian's packages
// (test/containers/images/), then the project's Containerfile on top of that base.
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../..');
const IMAGES_DIR = join(REPO, 'test/containers/images');
export const BASE_IMAGE = 'localhost/pagewatch-test-base:bookworm';
export const POSTGRES_IMAGE = 'localhost/pagewatch-test-postgres:15';
export const PAGEWATCH_IMAGE = 'localhost/pagewatch:test';
/** The base's root file system, kept between runs on this machine (podman's image store keeps the rest). */
const CACHE_DIR = '/var/cache/pagewatch-test';

// runc and cgroupfs: this machine has no systemd for podman's defaults (crun, systemd cgroups). The
// ulimits stay under the host's hard limits (nofile 20000), which podman's defaults exceed.
const CONTAINERS_CONF = `[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
[containers]
default_ulimits = ["nofile=16384:16384", "nproc=8192:8192"]
`;

let confPath: string | undefined;
/** The environment every podman (and podman-compose) command here runs with. */
export function podmanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  if (!confPath) {
    confPath = join(
      tmpdir(),
      `pagewatch-containers-${createHash('sha256').update(CONTAINERS_CONF).digest('hex').slice(0, 12)}.conf`,
    );
    writeFileSync(confPath, CONTAINERS_CONF);
  }
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PAGEWATCH_')));
  return { ...env, CONTAINERS_CONF: confPath, ...extra };
}

/** Why the container tests cannot run here, or undefined. */
export function podmanMissing(): string | undefined {
  if (spawnSync('podman', ['--version']).error) return 'podman is not installed';
  if (process.geteuid?.() !== 0) return 'not root (the tests run rootful podman)';
  return undefined;
}

export interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

/** A command, its output collected; fails with its output unless `allowFailure`. */
export function run(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; allowFailure?: boolean } = {},
): Promise<Run> {
  return new Promise((done, fail) => {
    execFile(
      cmd,
      args,
      { env: opts.env ?? podmanEnv(), cwd: opts.cwd ?? REPO, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        if (err && !opts.allowFailure)
          fail(new Error(`${cmd} ${args.join(' ')} → ${err.message}\n${stderr.slice(-4000)}\n${stdout.slice(-2000)}`));
        else done({ stdout, stderr, code });
      },
    );
  });
}

export const podman = (args: string[], opts: Parameters<typeof run>[2] = {}) => run('podman', args, opts);

const hashOf = (...parts: (string | Buffer)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 16);
};

async function imageLabel(image: string, label: string): Promise<string | undefined> {
  const res = await podman(['image', 'inspect', '--format', `{{index .Labels "${label}"}}`, image], {
    allowFailure: true,
  });
  return res.code === 0 ? res.stdout.trim() : undefined;
}

/**
 * The base image: debootstrap's bookworm from this host's mirror plus this host's Node 20 (base.sh). Keyed by
 * the recipe, the host's node and its apt sources; rebuilt only when one of them changes.
 */
export async function ensureBaseImage(log: (msg: string) => void): Promise<void> {
  const node = readFileSync(process.execPath);
  const sources = ['/etc/apt/sources.list', '/etc/apt/sources.list.d/debian.sources']
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f, 'utf8'));
  const key = hashOf(readFileSync(join(IMAGES_DIR, 'base.sh')), node, ...sources);
  if ((await imageLabel(BASE_IMAGE, 'pagewatch.recipe')) === key) return log(`base image ${BASE_IMAGE}: cached`);
  mkdirSync(CACHE_DIR, { recursive: true });
  const tar = join(CACHE_DIR, `base-${key}.tar`);
  if (!existsSync(tar)) {
    log(`base image: debootstrap bookworm (${tar})`);
    await run('bash', [join(IMAGES_DIR, 'base.sh'), `${tar}.partial`], { timeoutMs: 20 * 60_000 });
    renameSync(`${tar}.partial`, tar);
  }
  log(`base image: importing ${tar}`);
  await podman(['import', '--change', `LABEL pagewatch.recipe=${key}`, '--change', 'CMD ["node"]', tar, BASE_IMAGE], {
    timeoutMs: 10 * 60_000,
  });
}

/**
 * `podman build`; its layer cache makes a build with nothing changed take seconds. `--jobs 2` builds the
 * Containerfile's stages at once (the compile, tsc and the runtime stage's apt-get): a cold build in about
 * half the time. The `docker` format keeps HEALTHCHECK.
 */
async function build(image: string, file: string, context: string, args: string[] = []): Promise<void> {
  await podman(['build', '--format', 'docker', '--jobs', '2', ...args, '-t', image, '-f', file, context], {
    timeoutMs: 30 * 60_000,
  });
}

export const buildPostgresImage = () =>
  build(POSTGRES_IMAGE, join(IMAGES_DIR, 'postgres.Containerfile'), IMAGES_DIR, ['--build-arg', `BASE=${BASE_IMAGE}`]);

/** The project's image from its Containerfile, on the test's base. */
export const buildPagewatchImage = () =>
  build(PAGEWATCH_IMAGE, join(REPO, 'Containerfile'), REPO, ['--build-arg', `BASE=${BASE_IMAGE}`]);

/** A node script for `podman exec`: every process in the container, from its /proc, as JSON. */
const PROC_SCRIPT = `
const fs = require('fs');
const out = [];
for (const pid of fs.readdirSync('/proc').filter((e) => /^[0-9]+$/.test(e))) {
  try {
    const status = fs.readFileSync('/proc/' + pid + '/status', 'utf8');
    const field = (name) => (status.split('\\n').find((l) => l.startsWith(name + ':')) || '').split(/\\s+/)[1];
    out.push({
      pid: Number(pid),
      cmdline: fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' ').trim(),
      ppid: Number(field('PPid')),
      state: field('State'),
      uid: Number(field('Uid')),
      seccomp: Number(field('Seccomp')),
      seccompFilters: Number(field('Seccomp_filters')),
      noNewPrivs: Number(field('NoNewPrivs')),
      userNs: fs.readlinkSync('/proc/' + pid + '/ns/user'),
      pidNs: fs.readlinkSync('/proc/' + pid + '/ns/pid'),
    });
  } catch {}
}
console.log(JSON.stringify(out));
`;

export interface ContainerProcess {
  pid: number;
  cmdline: string;
  ppid: number;
  state: string;
  uid: number;
  seccomp: number;
  /** How many seccomp filters the process is under: the runtime's, plus Chromium's own in its sandbox. */
  seccompFilters: number;
  noNewPrivs: number;
  userNs: string;
  pidNs: string;
}

/** Every process in `container`, read from /proc inside it (the exec's own node process left out). */
export async function containerProcesses(container: string): Promise<ContainerProcess[]> {
  const { stdout } = await podman(['exec', container, 'node', '-e', PROC_SCRIPT]);
  return (JSON.parse(stdout) as ContainerProcess[]).filter((p) => !p.cmdline.includes('readdirSync'));
}

export const hasArg = (p: ContainerProcess, arg: string) => ` ${p.cmdline} `.includes(` ${arg} `);

/** The service's node process, and the browser it launched (its child), if any. */
export function serviceAndBrowser(procs: ContainerProcess[]): {
  service?: ContainerProcess;
  browser?: ContainerProcess;
} {
  const service = procs.find((p) => p.cmdline.startsWith('node /app/dist/src/cli.js'));
  const browser = service && procs.find((p) => p.ppid === service.pid && p.cmdline.includes('/usr/lib/chromium/'));
  return { service, browser };
}
