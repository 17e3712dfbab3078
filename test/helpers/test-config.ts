// Configuration every test service shares (the real one in service.ts, the fake-renderer app in
// fake-app.ts), in a module of its own so the fake app does not load the whole service to get it.

/**
 * The fixture servers run on loopback, which the egress policy refuses by default: test services
 * allow exactly the fixture hosts. Egress tests pass their own `egress` to turn the policy fully on.
 */
export const FIXTURE_EGRESS = { allowHosts: ['127.0.0.1', 'localhost'] };

/** The anonymous tier as wide as a key's: tests that render without one are not about its limits. */
export const RELAXED_ANONYMOUS_LIMITS = {
  anonymousConcurrencyPerIp: 1000,
  anonymousMaxTimeoutMs: 3_600_000,
  anonymousMaxPdfPages: 100_000,
};
