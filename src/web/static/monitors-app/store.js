// The dashboard's state, as signals, and the actions that change it. createStore() makes one per page
// (the App holds it and hands it down through context): nothing here lives at module level, and a
// component redraws when a signal it read changes, so no action calls a redraw by hand.
import { ApiError, api, storedKey, storeKey } from '/assets/api.js';
import { batch, signal } from '/assets/vendor/signals.js';
import { captureResult, relativeTime } from '/assets/monitors-app/format.js';

const REFRESH_MS = 10_000;
const RUN_POLL_MS = 1_000;
const RUN_POLL_LIMIT_MS = 5 * 60_000;
const NOTICE_MS = 12_000;
const CAPTURES_PAGE = 20;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const enc = encodeURIComponent;

/** The history of one monitor: its captures, the one selected, how it is viewed, and its images. */
function createHistory(monitor) {
  return {
    monitorId: monitor.id,
    captures: signal([]),
    nextCursor: signal(null),
    selectedId: signal(null),
    view: signal('current'),
    regionIndex: signal(null),
    lastRunAt: monitor.lastRunAt ?? null,
    /** blob: URLs by "captureId/which" of the selected capture, so the views and the crops share a fetch. */
    images: new Map(),
    /** Bumped when the images are let go: a load started before must not show its result. */
    imageGeneration: signal(0),
  };
}

export function createStore() {
  const s = {
    key: signal(storedKey()),
    /** The view shown (monitors-app/route.js follows the URL's hash): 'monitors' or 'channels'. */
    view: signal('monitors'),
    keyError: signal(null),
    pageError: signal(null),
    /** The passing message shown after an action. */
    shownNotice: signal(null),
    /** The monitors in list order; null until loaded (or after signing out). */
    monitors: signal(null),
    listUpdated: signal(''),
    /** Bumped each time the list is loaded: the history and its deliveries follow it. */
    listVersion: signal(0),
    running: signal(new Set()),
    /** The form: null when closed, else { id (null: create), monitor, serial }. */
    form: signal(null),
    history: signal(null),
    /** The monitor a Delete asks about, and the button to give the focus back to. */
    deleting: signal(null),
    /** The key's tags ({tag, monitors}, from GET /api/tags) and the one the list is filtered by ('' : none). */
    tags: signal([]),
    tagFilter: signal(''),
    /** The bulk action a confirm dialog asks about: { action, tag, opener }. */
    bulkAsking: signal(null),
    /** Selectors of the element to focus once the page has redrawn: the first that matches. */
    focus: signal(null),
  };
  let noticeTimer;
  let listLoading = null;
  let formSerial = 0;

  const call = (method, path, body) => api(method, path, { key: s.key.value, body });
  const json = async (method, path, body) => (await call(method, path, body)).json();
  const monitor = (id) => s.monitors.value?.find((m) => m.id === id) ?? null;
  const setMonitor = (m) => {
    const list = s.monitors.value ?? [];
    s.monitors.value = list.some((x) => x.id === m.id) ? list.map((x) => (x.id === m.id ? m : x)) : [...list, m];
  };

  function notice(message, kind = 'ok') {
    clearTimeout(noticeTimer);
    s.shownNotice.value = { kind, message };
    noticeTimer = setTimeout(() => (s.shownNotice.value = null), NOTICE_MS);
  }

  function showSignedOut() {
    batch(() => {
      s.form.value = null;
      closeHistory(false);
      s.monitors.value = null;
    });
  }

  /** Every API error not handled where it happened; a 401 is the key's business. */
  function handleError(err, context) {
    if (err instanceof ApiError && err.status === 401) {
      s.keyError.value = {
        kind: 'error',
        message: s.key.value
          ? 'This API key was refused: the key is unknown or revoked. Paste a valid key, or forget this one.'
          : 'An API key is needed to see monitors: paste one above.',
        hidden: err.message ? ` (${err.message})` : null,
      };
      return showSignedOut();
    }
    const words = err instanceof ApiError ? err.explanation : String(err?.message ?? err);
    s.pageError.value = { kind: 'error', message: context ? `${context}: ${words}` : words };
  }

  /** Loads every page of the list (nextCursor followed). */
  function loadList() {
    listLoading ??= (async () => {
      try {
        const all = [];
        let cursor = null;
        do {
          const page = await json('GET', `/api/monitors?limit=100${cursor ? `&cursor=${enc(cursor)}` : ''}`);
          all.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor);
        const { tags } = await json('GET', '/api/tags');
        batch(() => {
          s.tags.value = tags;
          // A filter by a tag no monitor carries any more shows the whole list.
          if (!tags.some((t) => t.tag.toLowerCase() === s.tagFilter.value.toLowerCase())) s.tagFilter.value = '';
          s.monitors.value = all;
          s.keyError.value = null;
          s.listUpdated.value = `Updated ${new Date().toLocaleTimeString()}; refreshed every 10 s while this page is visible.`;
          s.listVersion.value++;
        });
        await followHistory();
      } catch (err) {
        handleError(err, 'The monitors could not be loaded');
      } finally {
        listLoading = null;
      }
    })();
    return listLoading;
  }

  async function showSignedIn() {
    s.pageError.value = null;
    if (s.monitors.value === null) s.monitors.value = [];
    await loadList();
  }

  /** Checks the key against the API first; a refused one is not saved. Returns false when it was refused. */
  async function saveKey(key) {
    const before = s.key.value;
    s.key.value = key;
    try {
      await call('GET', '/api/monitors?limit=1');
    } catch (err) {
      s.key.value = before;
      if (err instanceof ApiError && err.status === 401) {
        s.keyError.value = {
          kind: 'error',
          message: 'This API key was refused: the key is unknown or revoked. It was not saved.',
        };
        showSignedOut();
        return false;
      }
      handleError(err, 'The key could not be checked');
      return true;
    }
    storeKey(key);
    s.keyError.value = null;
    notice('Key saved in this browser.');
    await showSignedIn();
    return true;
  }

  function forgetKey() {
    storeKey('');
    batch(() => {
      s.key.value = '';
      showSignedOut();
      s.keyError.value = null;
      s.pageError.value = null;
    });
    notice('The key was removed from this browser.');
  }

  async function togglePause(id) {
    const m = monitor(id);
    if (!m) return;
    try {
      const updated = await json('PATCH', `/api/monitors/${enc(id)}`, { paused: !m.paused });
      setMonitor(updated);
      notice(
        updated.paused
          ? `“${updated.name}” is paused: no scheduled captures until it is resumed.`
          : `“${updated.name}” is resumed; next run ${updated.nextRunAt ? relativeTime(updated.nextRunAt) : 'soon'}.`,
      );
    } catch (err) {
      handleError(err, `“${m.name}” could not be ${m.paused ? 'resumed' : 'paused'}`);
    }
  }

  /** DELETE …/login: the monitor's saved login is forgotten; its next capture runs the steps. */
  async function forgetLogin(id) {
    const m = monitor(id);
    if (!m) return;
    try {
      await call('DELETE', `/api/monitors/${enc(id)}/login`);
      setMonitor(await json('GET', `/api/monitors/${enc(id)}`));
      notice(`The saved login of “${m.name}” is forgotten: its next capture runs the steps.`);
      s.focus.value = ['#history-run'];
    } catch (err) {
      handleError(err, `The saved login of “${m.name}” could not be forgotten`);
    }
  }

  const setRunning = (id, on) => {
    const next = new Set(s.running.value);
    if (on) next.add(id);
    else next.delete(id);
    s.running.value = next;
  };

  async function newestCapture(id) {
    return (await json('GET', `/api/monitors/${enc(id)}/captures?limit=1`)).items[0] ?? null;
  }

  /** POST …/run, then poll the captures until a new one is there. */
  async function runNow(id) {
    const m = monitor(id);
    if (!m || s.running.value.has(id)) return;
    setRunning(id, true);
    try {
      const before = (await newestCapture(id))?.id ?? null;
      const run = await json('POST', `/api/monitors/${enc(id)}/run`);
      notice(
        run.alreadyPending
          ? `A capture of “${m.name}” was already queued; waiting for it…`
          : `Capture of “${m.name}” queued; waiting for it…`,
        'warn',
      );
      const deadline = Date.now() + RUN_POLL_LIMIT_MS;
      let capture = null;
      while (Date.now() < deadline) {
        await sleep(RUN_POLL_MS);
        if (!monitor(id) || !s.key.value) return; // deleted or signed out meanwhile
        const newest = await newestCapture(id);
        if (newest && newest.id !== before) {
          capture = newest;
          break;
        }
      }
      if (!capture) {
        notice(`The capture of “${m.name}” is taking long; it will show up in the history when done.`, 'warn');
        return;
      }
      notice(
        capture.status === 'failed'
          ? `The capture of “${m.name}” failed: ${(capture.error?.message ?? 'unknown error').replace(/\.$/, '')}.`
          : `New capture of “${m.name}”: ${captureResult(capture)}.`,
        capture.status === 'failed' ? 'error' : 'ok',
      );
      if (s.history.value?.monitorId === id) await loadCaptures({ select: capture.id });
    } catch (err) {
      handleError(err, `“${m.name}” could not be captured`);
    } finally {
      setRunning(id, false);
      if (monitor(id)) await loadList();
    }
  }

  /** POST /api/monitors/bulk for the filtered tag; delete asks first (askBulk). */
  async function bulk(action, tag = s.tagFilter.value) {
    if (!tag) return;
    try {
      const out = await json('POST', '/api/monitors/bulk', { action, tag });
      const verb = { pause: 'paused', resume: 'resumed', run: 'queued for a capture', delete: 'deleted' }[action];
      const failed = out.failed.length ? `; ${out.failed.length} failed: ${out.failed[0].error.message}` : '';
      notice(
        `${out.done.length} of ${out.matched} monitors tagged “${tag}” ${verb}${failed}.`,
        failed ? 'error' : 'ok',
      );
      await loadList();
    } catch (err) {
      handleError(err, `The monitors tagged “${tag}” could not be ${action === 'run' ? 'run' : `${action}d`}`);
    }
  }

  function askBulk(action, opener) {
    if (s.tagFilter.value) s.bulkAsking.value = { action, tag: s.tagFilter.value, opener };
  }

  async function answerBulk(answer) {
    const asked = s.bulkAsking.value;
    s.bulkAsking.value = null;
    if (!asked) return;
    if (answer !== 'confirm') {
      asked.opener?.focus();
      return;
    }
    await bulk(asked.action, asked.tag);
  }

  function askDelete(id, opener) {
    if (monitor(id)) s.deleting.value = { id, opener };
  }

  /** The dialog closed: delete when that was the answer, else give the focus back. */
  async function answerDelete(answer) {
    const target = s.deleting.value;
    s.deleting.value = null;
    const m = target && monitor(target.id);
    if (!m) return;
    if (answer !== 'delete') {
      target.opener?.focus();
      return;
    }
    try {
      await call('DELETE', `/api/monitors/${enc(target.id)}`);
      batch(() => {
        s.monitors.value = s.monitors.value.filter((x) => x.id !== target.id);
        if (s.history.value?.monitorId === target.id) closeHistory(false);
        if (s.form.value?.id === target.id) s.form.value = null;
      });
      notice(`“${m.name}” and its captures were deleted.`);
      s.focus.value = ['#monitor-rows button[data-action="history"]', '#new-monitor'];
    } catch (err) {
      handleError(err, `“${m.name}” could not be deleted`);
    }
  }

  // ------------------------------------------------------------------------------------ the form

  function openCreate() {
    s.form.value = { id: null, monitor: null, serial: ++formSerial };
  }

  async function openEdit(id) {
    let m = monitor(id);
    try {
      m = await json('GET', `/api/monitors/${enc(id)}`);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 401 || err.status === 404)
        return handleError(err, 'The monitor could not be opened');
    }
    if (m) s.form.value = { id, monitor: m, serial: ++formSerial };
  }

  function closeForm(refocus = true) {
    const editing = s.form.value?.id;
    s.form.value = null;
    if (refocus)
      s.focus.value = [
        ...(editing ? [`#monitor-rows button[data-action="edit"][data-id="${CSS.escape(editing)}"]`] : []),
        '#new-monitor',
      ];
  }

  /** Saves the form's body; throws the API's error for the form to show. */
  async function saveMonitor(editing, body) {
    const saved = editing
      ? await json('PATCH', `/api/monitors/${enc(editing)}`, body)
      : await json('POST', '/api/monitors', body);
    closeForm(false);
    await loadList();
    if (!monitor(saved.id)) setMonitor(saved);
    notice(
      editing
        ? `“${saved.name}” was saved.`
        : `“${saved.name}” was created; ${saved.nextRunAt ? `first scheduled capture ${relativeTime(saved.nextRunAt)}` : 'it is paused'}. Use Run now to capture it at once.`,
    );
    s.focus.value = [
      `#monitor-rows tr[data-id="${CSS.escape(saved.id)}"] ${editing ? 'button[data-action="edit"]' : 'a.name'}`,
    ];
    const hist = s.history.value;
    if (hist?.monitorId === saved.id) await loadCaptures({ select: hist.selectedId.value });
  }

  // ------------------------------------------------------------------------------------ the history

  function clearImages(hist) {
    if (!hist) return;
    hist.imageGeneration.value++;
    for (const entry of hist.images.values())
      entry.then(
        (url) => url && URL.revokeObjectURL(url),
        () => {},
      );
    hist.images.clear();
  }

  /** The image of a capture (`image`) or its diff (`diff`), fetched with the key, as a blob: URL. */
  function imageUrl(hist, captureId, which) {
    const cacheKey = `${captureId}/${which}`;
    if (!hist.images.has(cacheKey)) {
      const loading = (async () => {
        const res = await call('GET', `/api/captures/${enc(captureId)}/${which}`);
        return URL.createObjectURL(await res.blob());
      })();
      hist.images.set(cacheKey, loading);
      loading.catch(() => hist.images.delete(cacheKey)); // a failed load may be tried again
    }
    return hist.images.get(cacheKey);
  }

  /** `select`: a capture to show (a link to it); else the one shown before, else the newest. */
  function openHistory(id, select = null) {
    const m = monitor(id);
    if (!m) return;
    if (s.history.value?.monitorId !== id) {
      clearImages(s.history.value);
      s.history.value = createHistory(m);
    }
    return loadCaptures({ select: select ?? s.history.value.selectedId.value });
  }

  function closeHistory(refocus = true) {
    const hist = s.history.value;
    clearImages(hist);
    s.history.value = null;
    if (refocus && hist)
      s.focus.value = [`#monitor-rows button[data-action="history"][data-id="${CSS.escape(hist.monitorId)}"]`];
  }

  /** The history follows the list: when the monitor ran since (a scheduled capture), its first page reloads. */
  async function followHistory() {
    const hist = s.history.value;
    if (!hist) return;
    const m = monitor(hist.monitorId);
    if (!m) return closeHistory(false);
    if ((m.lastRunAt ?? null) !== hist.lastRunAt && !s.running.value.has(m.id))
      await loadCaptures({ select: hist.selectedId.value });
  }

  function selectCapture(hist, id) {
    if (hist.selectedId.value === id) return;
    batch(() => {
      clearImages(hist);
      hist.regionIndex.value = null;
      hist.selectedId.value = id;
    });
  }

  /** Reloads the first page of captures (or, with more, appends the next page). */
  async function loadCaptures({ select = null, more = false } = {}) {
    const hist = s.history.value;
    if (!hist) return;
    try {
      const cursor = more ? hist.nextCursor.value : null;
      const page = await json(
        'GET',
        `/api/monitors/${enc(hist.monitorId)}/captures?limit=${CAPTURES_PAGE}${cursor ? `&cursor=${enc(cursor)}` : ''}`,
      );
      if (s.history.value !== hist) return;
      batch(() => {
        // A reload shows the first page again (newest first); older pages come back with Load more.
        const captures = more ? [...hist.captures.value, ...page.items] : page.items;
        hist.captures.value = captures;
        hist.nextCursor.value = page.nextCursor;
        hist.lastRunAt = monitor(hist.monitorId)?.lastRunAt ?? hist.lastRunAt;
        const target =
          (select && captures.find((c) => c.id === select)) ??
          captures.find((c) => c.id === hist.selectedId.value) ??
          captures[0];
        if (target) selectCapture(hist, target.id);
      });
    } catch (err) {
      handleError(err, 'The captures could not be loaded');
    }
  }

  /** Live enough: the list is reloaded every 10 s while the page is visible, and at once when it shows again. */
  function startRefresh() {
    const refresh = () => {
      if (document.visibilityState === 'visible' && s.key.value && s.monitors.value !== null) loadList();
    };
    const timer = setInterval(refresh, REFRESH_MS);
    document.addEventListener('visibilitychange', refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', refresh);
    };
  }

  return {
    ...s,
    call,
    json,
    monitor,
    notice,
    handleError,
    loadList,
    showSignedIn,
    saveKey,
    forgetKey,
    togglePause,
    forgetLogin,
    runNow,
    askDelete,
    bulk,
    askBulk,
    answerBulk,
    answerDelete,
    openCreate,
    openEdit,
    closeForm,
    saveMonitor,
    openHistory,
    closeHistory,
    loadCaptures,
    selectCapture,
    imageUrl,
    startRefresh,
  };
}
