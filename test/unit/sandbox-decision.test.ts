// render.sandbox → whether Chromium gets --no-sandbox, and the words for a sandbox that cannot start.
import { describe, expect, it } from 'vitest';
import { decideSandbox, explainSandboxFailure } from '../../src/render/browser/sandbox.js';

describe('decideSandbox', () => {
  it.each([
    ['auto', 1000, true, false],
    ['auto', 0, false, true], // root: no sandbox, with a warning
    ['auto', undefined, true, false],
    ['on', 0, true, false], // as asked; the launch then fails and /ready says why
    ['on', 1000, true, false],
    ['off', 0, false, false],
    ['off', 1000, false, false], // the operator's explicit choice: no warning
  ] as const)('%s as uid %s → sandbox %s, warning %s', (setting, uid, enabled, warns) => {
    const d = decideSandbox(setting, uid);
    expect(d.enabled).toBe(enabled);
    expect(Boolean(d.warning)).toBe(warns);
  });

  it('the root warning says how to run unprivileged', () => {
    expect(decideSandbox('auto', 0).warning).toMatch(/runs as root.*unprivileged user.*render\.sandbox=off/);
  });
});

describe('explainSandboxFailure', () => {
  it('as root: names running unprivileged and render.sandbox=auto', () => {
    const why = explainSandboxFailure(
      'Running as root without --no-sandbox is not supported. See https://crbug.com/638180.',
      0,
    );
    expect(why).toMatch(/cannot start as root.*unprivileged user.*render\.sandbox=auto/);
  });

  it('without user namespaces (Chromium\'s "No usable sandbox!"): names the sysctls, the setuid helper and render.sandbox=off', () => {
    const why = explainSandboxFailure(
      '[err] No usable sandbox! If this is a Debian system, please install the chromium-sandbox package',
      1000,
    );
    expect(why).toMatch(/user namespaces.*kernel\.unprivileged_userns_clone.*chrome-sandbox.*render\.sandbox=off/);
  });

  it('a failure that is not about the sandbox gets no sandbox advice', () => {
    expect(explainSandboxFailure('spawn /nonexistent/chromium ENOENT', 1000)).toBeUndefined();
  });
});
