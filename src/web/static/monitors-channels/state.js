// The channels view's state and actions: the key's channels (GET /api/channels), the form, the channel
// a Delete asks about, and each channel's last "Send test" followed until its delivery settles. Made once
// per page next to the dashboard's store (whose call, notice and handleError it uses).
import { ApiError } from '/assets/api.js';
import { batch, signal } from '/assets/vendor/signals.js';
import { relativeTime } from '/assets/monitors-app/format.js';

const enc = encodeURIComponent;
/** A test delivery is looked at again when due, but at least this often and at most this often. */
const POLL_MIN_MS = 1_000;
const POLL_MAX_MS = 30_000;
/** How long a test is followed before the view says it is still under way. */
const FOLLOW_LIMIT_MS = 5 * 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A channel type in words. */
export const TYPE_WORDS = {
  email: 'Email',
  slack: 'Slack',
  discord: 'Discord',
  teams: 'Microsoft Teams',
  ntfy: 'ntfy',
  webhook: 'JSON webhook',
};

/** A test delivery's outcome in words: { kind, message, settled }. */
export function testOutcome(d, name) {
  const answer = d.lastResponseStatus ? `the receiver answered HTTP ${d.lastResponseStatus}` : d.lastError;
  if (d.status === 'succeeded')
    return { kind: 'ok', settled: true, message: `Test message to “${name}” delivered${answer ? `: ${answer}` : ''}.` };
  if (d.status === 'failed')
    return {
      kind: 'error',
      settled: true,
      message: `Test message to “${name}” not delivered: ${answer ?? 'no reason given'}.`,
    };
  if (!d.attempts) return { kind: 'info', settled: false, message: `Sending a test message to “${name}”…` };
  const when = d.nextAttemptAt ? ` It is tried again ${relativeTime(d.nextAttemptAt)}.` : '';
  return {
    kind: 'warn',
    settled: false,
    message: `Test message to “${name}” not delivered yet: ${answer ?? 'no answer'}.${when}`,
  };
}

export function createChannels(store) {
  const c = {
    /** The key's channels, newest first; null until loaded. */
    list: signal(null),
    /** The service answered that it has no channels API (an older service): the view says so. */
    missing: signal(false),
    error: signal(null),
    /** The form: null when closed, else { id (null: create), channel, serial }. */
    form: signal(null),
    /** The channel a Delete asks about, and the button to give the focus back to. */
    deleting: signal(null),
    /** channel id → the outcome of its last test ({ kind, message, settled, deliveryId }). */
    tests: signal({}),
    /** The passing words of the view (announced politely). */
    status: signal(null),
  };
  let serial = 0;
  let loading = null;

  const byId = (id) => c.list.value?.find((ch) => ch.id === id) ?? null;

  /** Loads the key's channels (one load at a time; callers share it). */
  function load() {
    loading ??= (async () => {
      try {
        const { channels } = await store.json('GET', '/api/channels');
        batch(() => {
          c.list.value = channels;
          c.missing.value = false;
          c.error.value = null;
        });
      } catch (err) {
        // The list itself is never 404 on a service that has channels: this one has none.
        if (err instanceof ApiError && err.status === 404) c.missing.value = true;
        else if (err instanceof ApiError && err.status === 401) store.handleError(err);
        else
          c.error.value = {
            kind: 'error',
            message: `The channels could not be loaded: ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`,
          };
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  function clear() {
    batch(() => {
      c.list.value = null;
      c.form.value = null;
      c.deleting.value = null;
      c.tests.value = {};
      c.status.value = null;
    });
  }

  function openCreate() {
    c.form.value = { id: null, channel: null, serial: ++serial };
  }

  async function openEdit(id) {
    let channel = byId(id);
    try {
      channel = await store.json('GET', `/api/channels/${enc(id)}`);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 401 || err.status === 404)
        return store.handleError(err, 'The channel could not be opened');
    }
    if (channel) c.form.value = { id, channel, serial: ++serial };
  }

  function closeForm(refocus = true) {
    const editing = c.form.value?.id;
    c.form.value = null;
    if (refocus)
      store.focus.value = [
        ...(editing ? [`#channel-rows button[data-action="edit"][data-id="${CSS.escape(editing)}"]`] : []),
        '#new-channel',
      ];
  }

  /** Saves the form's body; throws the API's error for the form to show. */
  async function save(editing, body) {
    const saved = editing
      ? await store.json('PATCH', `/api/channels/${enc(editing)}`, body)
      : await store.json('POST', '/api/channels', body);
    closeForm(false);
    await load();
    store.notice(
      editing
        ? `“${saved.name}” was saved.`
        : `The channel “${saved.name}” was created. Send test checks that it reaches you; a monitor's form picks its channels.`,
    );
    store.focus.value = [
      `#channel-rows button[data-action="${editing ? 'edit' : 'test'}"][data-id="${CSS.escape(saved.id)}"]`,
    ];
    return saved;
  }

  function askDelete(id, opener) {
    if (byId(id)) c.deleting.value = { id, opener };
  }

  /** The dialog closed: delete when that was the answer, else give the focus back. */
  async function answerDelete(answer) {
    const target = c.deleting.value;
    c.deleting.value = null;
    const ch = target && byId(target.id);
    if (!ch) return;
    if (answer !== 'delete') {
      target.opener?.focus();
      return;
    }
    try {
      await store.call('DELETE', `/api/channels/${enc(ch.id)}`);
      batch(() => {
        c.list.value = c.list.value.filter((x) => x.id !== ch.id);
        if (c.form.value?.id === ch.id) c.form.value = null;
      });
      store.notice(`The channel “${ch.name}” was deleted; monitors that listed it no longer send to it.`);
      store.focus.value = ['#channel-rows button[data-action="test"]', '#new-channel'];
    } catch (err) {
      store.handleError(err, `“${ch.name}” could not be deleted`);
    }
  }

  const setTest = (id, outcome) => {
    c.tests.value = { ...c.tests.value, [id]: outcome };
    c.status.value = { kind: outcome.kind, message: outcome.message };
  };

  /** POST …/test, then follow its delivery (GET /api/webhook-deliveries/{id}) until it is no longer pending. */
  async function sendTest(id) {
    const ch = byId(id);
    if (!ch || c.tests.value[id]?.settled === false) return;
    let d;
    try {
      d = await store.json('POST', `/api/channels/${enc(id)}/test`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return store.handleError(err);
      return setTest(id, {
        kind: 'error',
        settled: true,
        message: `The test message to “${ch.name}” was not sent: ${err instanceof ApiError ? err.explanation : String(err?.message ?? err)}`,
      });
    }
    setTest(id, { ...testOutcome(d, ch.name), deliveryId: d.id });
    const deadline = Date.now() + FOLLOW_LIMIT_MS;
    while (d.status === 'pending' && Date.now() < deadline) {
      const due = d.nextAttemptAt ? Date.parse(d.nextAttemptAt) - Date.now() + 500 : 0;
      await sleep(Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, d.attempts ? due : POLL_MIN_MS)));
      if (!store.key.value || !byId(id)) return; // signed out or deleted meanwhile
      try {
        d = await store.json('GET', `/api/webhook-deliveries/${enc(d.id)}`);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return store.handleError(err);
        continue; // a passing failure: look again
      }
      const outcome = { ...testOutcome(d, ch.name), deliveryId: d.id };
      // Announced only when the words change: a screen reader hears each step once.
      if (outcome.message !== c.tests.value[id]?.message) setTest(id, outcome);
    }
    if (d.status === 'pending')
      setTest(id, {
        kind: 'warn',
        settled: true,
        deliveryId: d.id,
        message: `The test message to “${ch.name}” is still waiting; the delivery log of the monitor shows how it ends.`,
      });
  }

  return { ...c, byId, load, clear, openCreate, openEdit, closeForm, save, askDelete, answerDelete, sendTest };
}
