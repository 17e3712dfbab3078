// The key panel: saving a key (checked against the API first), forgetting it, and what a refused key
// does to the page. Every API error not handled where it happened comes through handleError here,
// because a 401 is the key's business: the page goes back to its signed-out state.
import { ApiError, storeKey } from '/assets/api.js';
import { closeHistory } from '/assets/monitors-history.js';
import { loadList } from '/assets/monitors-list.js';
import { $, call, h, notice, pageError, setAlert, state } from '/assets/monitors-util.js';

/** The key was refused: say so where the key is, and hide what needs it. */
function unauthorized(err) {
  const sent = Boolean(state.key);
  setAlert(
    $('key-error'),
    'error',
    sent
      ? 'This API key was refused: the key is unknown or revoked. Paste a valid key, or forget this one.'
      : 'An API key is needed to see monitors: paste one above.',
    err?.message ? h('span', { class: 'sr-only' }, ` (${err.message})`) : null,
  );
  showSignedOut();
}

/** Every API error not handled where it happened. */
export function handleError(err, context) {
  if (err instanceof ApiError && err.status === 401) return unauthorized(err);
  const words = err instanceof ApiError ? err.explanation : String(err?.message ?? err);
  pageError(context ? `${context}: ${words}` : words);
}

export function renderKeyState() {
  const key = state.key;
  $('key-state').textContent = key ? `A key is saved in this browser (${key.slice(0, 12)}…).` : 'No key saved.';
  $('key-forget').disabled = !key;
  $('key-input').placeholder = key ? 'Saved — paste another key to replace it' : 'pw_live_…';
}

export function showSignedOut() {
  $('list-section').hidden = true;
  $('form-section').hidden = true;
  closeHistory(false);
  state.monitors.clear();
  state.loaded = false;
  $('monitor-rows').replaceChildren();
}

$('key-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = $('key-input').value.trim();
  if (!key) {
    setAlert($('key-error'), 'error', 'Paste an API key first.');
    $('key-input').focus();
    return;
  }
  const save = $('key-save');
  save.disabled = true;
  const before = state.key;
  state.key = key;
  try {
    await call('GET', '/api/monitors?limit=1');
  } catch (err) {
    save.disabled = false;
    if (err instanceof ApiError && err.status === 401) {
      state.key = before;
      setAlert($('key-error'), 'error', 'This API key was refused: the key is unknown or revoked. It was not saved.');
      showSignedOut();
      $('key-input').focus();
      $('key-input').select();
      return;
    }
    state.key = before;
    handleError(err, 'The key could not be checked');
    return;
  }
  save.disabled = false;
  storeKey(key);
  $('key-input').value = '';
  setAlert($('key-error'), 'error', '');
  renderKeyState();
  notice('Key saved in this browser.');
  await showSignedIn();
});

$('key-forget').addEventListener('click', () => {
  storeKey('');
  state.key = '';
  renderKeyState();
  showSignedOut();
  setAlert($('key-error'), 'error', '');
  setAlert($('page-error'), 'error', '');
  notice('The key was removed from this browser.');
  $('key-input').focus();
});

export async function showSignedIn() {
  setAlert($('page-error'), 'error', '');
  $('list-section').hidden = false;
  await loadList();
}
