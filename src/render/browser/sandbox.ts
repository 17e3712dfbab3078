// Whether Chromium runs with its sandbox, and — when the sandbox cannot start — why, in words that
// name the fix. The sandbox is what keeps a renderer exploit in a hostile page inside a process
// that can see nothing: without it that code runs as the service's user.

export type SandboxSetting = 'auto' | 'on' | 'off';

export interface SandboxDecision {
  /** Launch Chromium with its sandbox (no `--no-sandbox`). */
  enabled: boolean;
  /** Said in the log at start when the sandbox is off for a reason the operator may not expect. */
  warning?: string;
}

export const RUN_UNPRIVILEGED =
  'run the service as an unprivileged user (systemd `User=`, Docker `USER`; ' +
  'see docs/security.md, "Running unprivileged")';

/** `uid` is the service's effective user id; undefined where there is none (not POSIX). */
export function decideSandbox(setting: SandboxSetting, uid: number | undefined): SandboxDecision {
  if (setting === 'off') return { enabled: false };
  if (setting === 'on' || uid !== 0) return { enabled: true };
  // Chromium refuses to start sandboxed as root, so `auto` gives the sandbox up there, loudly.
  return {
    enabled: false,
    warning:
      `Chromium runs WITHOUT its sandbox because the service runs as root (render.sandbox=auto): a renderer ` +
      `exploit in a page would run as root. To keep the sandbox, ${RUN_UNPRIVILEGED}; render.sandbox=off says ` +
      `you accept this and silences the warning`,
  };
}

/**
 * Why a sandboxed launch failed, with the fix, from Chromium's own words (Playwright puts the
 * browser's stderr in its launch error). Undefined when the failure is not about the sandbox.
 */
export function explainSandboxFailure(launchError: string, uid: number | undefined): string | undefined {
  if (uid === 0 || /Running as root without --no-sandbox/.test(launchError)) {
    return (
      `Chromium's sandbox cannot start as root and render.sandbox is on. Fix: ${RUN_UNPRIVILEGED}, or set ` +
      `render.sandbox=auto (runs without the sandbox as root, with a warning)`
    );
  }
  // Chromium's and Playwright's words for it (357670: Ubuntu's AppArmor restricting user namespaces).
  if (/No usable sandbox|sandboxing failed|crbug\.com\/357670|user namespace/i.test(launchError)) {
    return (
      "Chromium's sandbox could not start: it needs unprivileged user namespaces. Fix: enable them (sysctl " +
      'kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; on Ubuntu 23.10+ also ' +
      'kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for Chromium; in Docker, a seccomp ' +
      "profile that allows clone/unshare of user namespaces), or install Chromium's setuid chrome-sandbox helper " +
      '(Debian: the chromium-sandbox package; not usable under NoNewPrivileges), or set render.sandbox=off ' +
      'knowingly'
    );
  }
  return undefined;
}
