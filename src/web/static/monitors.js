// The monitor dashboard (/monitors): list, create, edit, pause, run now, delete, and the history of a
// monitor with previous / current / diff views and a slider compare. It uses the same public API as any
// client, with the key the user pastes (kept in localStorage by api.js).
//
// This file only starts the page; each concern has its module (served flat under /assets/):
//   monitors-util.js     state, element building, times and badges, alerts, API calls with the key
//   monitors-key.js      the key panel, and what a refused key does (handleError)
//   monitors-list.js     the list, its refresh, and the row actions (pause, run now, delete)
//   monitors-form.js     the create / edit form and its field errors
//   monitors-form-lists.js  the form's lists: ignoreText patterns, notifyWhen rules, capture steps
//   monitors-history.js  a monitor's captures, each with its verdict
//   monitors-viewer.js   the selected capture: previous / current / diff / slider views, fitted or actual size
//   monitors-images.js   the captures' images, fetched with the key as blob: URLs
//   monitors-verdict.js  a capture's verdict in words (and the list's badges for it)
//   monitors-capture-details.js  a capture's text changes and notify-when rules
//   monitors-regions.js  its changed regions, one row each, with their elements, text changes and rules
//   monitors-region-zoom.js  the selected region before and after, up close; the views moved onto it
//   monitors-outline.js  the outline of a region or text change on the image shown
//   monitors-form-errors.js   the API's problems shown beside the fields they name
//   monitors-form-advanced.js every other capture and diff option, under "Show every option"
//   monitors-form-summary.js  the line that lists the advanced options that are set
//   monitors-form-regions.js  ignore regions, typed or drawn on the latest capture
//   monitors-form-schedule.js / monitors-cron.js  schedules in words (cronstrue.min.js, vendored)
// The modules call each other's functions (the list opens the history, the history runs a capture…), so
// some imports are circular. That is safe because they only run each other's code from event handlers
// and from the start below, once every module has been evaluated; none calls another at its top level.
import { fillTimezones } from '/assets/monitors-form.js';
import { renderKeyState, showSignedIn } from '/assets/monitors-key.js';
import { $, setAlert, state } from '/assets/monitors-util.js';
// Evaluated for the listeners they register (the row actions, the viewer's buttons).
import '/assets/monitors-list.js';
import '/assets/monitors-history.js';

fillTimezones();
renderKeyState();
if (state.key) {
  showSignedIn();
} else {
  setAlert($('key-error'), 'warn', 'Paste an API key to see and manage your monitors.');
}
