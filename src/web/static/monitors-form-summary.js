// The line above the form's Advanced part: every option set away from its API default, a few words each
// ("Set (3): 1 ignore region, hide 2 elements, wait 500 ms."), so a set option is never hidden by the
// closed part. It reads the fields, so it follows them as they are typed.
import { regionCount } from '/assets/monitors-form-regions.js';
import { $, h } from '/assets/monitors-util.js';

/** The API's defaults of the options with one: a value equal to it is shown as the default (an empty field). */
export const DEFAULTS = {
  colorScheme: 'light',
  reducedMotion: 'reduce',
  javaScriptEnabled: true,
  waitUntil: 'load',
  delay: 0,
  timeout: 30_000,
  headersScope: 'origin',
  scrollPage: false,
  omitBackground: false,
  animations: 'disabled',
  caret: 'hide',
};

const lines = (id) =>
  $(id)
    .value.split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
const blockBoxes = () => [...document.querySelectorAll('#f-a-block input[name="block"]')];

/** The set options in a few words each, in the line above the part; returns them. */
export function summarize() {
  const set = [];
  const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  const regions = regionCount();
  if (regions) set.push(count(regions, 'ignore region'));
  const hide = lines('f-a-hide').length;
  if (hide) set.push(`hide ${count(hide, 'element')}`);
  if ($('f-a-selector').value.trim()) set.push('one element only');
  if (['f-a-clip-x', 'f-a-clip-y', 'f-a-clip-w', 'f-a-clip-h'].some((id) => $(id).value.trim())) set.push('a clip');
  if ($('f-a-css').value.trim()) set.push('extra CSS');
  if ($('f-a-js').value.trim()) set.push('extra script');
  if ($('f-a-animations').value !== DEFAULTS.animations) set.push('animations allowed');
  if ($('f-a-caret').value !== DEFAULTS.caret) set.push('caret shown');
  if ($('f-a-omitbg').checked) set.push('transparent background');
  if ($('f-a-scroll').checked) set.push('scroll first');
  if ($('f-a-waituntil').value !== DEFAULTS.waitUntil) set.push(`ready at ${$('f-a-waituntil').value}`);
  const delay = $('f-a-delay').value.trim();
  if (delay && Number(delay) !== 0) set.push(`wait ${delay} ms`);
  if ($('f-a-waitsel').value.trim()) set.push(`wait for ${$('f-a-waitsel').value.trim()}`);
  if ($('f-a-waitfn').value.trim()) set.push('wait for a script');
  const timeout = $('f-a-timeout').value.trim();
  if (timeout && Number(timeout) !== DEFAULTS.timeout) set.push(`time limit ${timeout} ms`);
  if ($('f-a-failhttp').value === 'false') set.push('HTTP errors captured');
  if ($('f-a-failhttp').value === 'true') set.push('HTTP errors fail');
  if ($('f-a-device').value.trim()) set.push(`device ${$('f-a-device').value.trim()}`);
  if ($('f-a-scale').value.trim()) set.push(`pixel ratio ${$('f-a-scale').value.trim()}`);
  if ($('f-a-ua').value.trim()) set.push('user agent');
  if ($('f-a-locale').value.trim()) set.push(`locale ${$('f-a-locale').value.trim()}`);
  if ($('f-a-tz').value.trim()) set.push(`page time zone ${$('f-a-tz').value.trim()}`);
  if ($('f-a-scheme').value !== DEFAULTS.colorScheme) set.push(`${$('f-a-scheme').value} scheme`);
  if ($('f-a-motion').value !== DEFAULTS.reducedMotion) set.push('motion not reduced');
  if ($('f-a-media').value) set.push(`${$('f-a-media').value} media`);
  if (!$('f-a-js-on').checked) set.push('JavaScript off');
  const blocked = blockBoxes().filter((box) => box.checked).length;
  if (blocked) set.push(`${count(blocked, 'resource type')} blocked`);
  const headers = lines('f-a-headers').length;
  if (headers) set.push(count(headers, 'header'));
  if ($('f-a-hscope').value !== DEFAULTS.headersScope) set.push('headers to every request');
  if ($('f-a-cookies').value.trim()) set.push('cookies');
  if ($('f-a-user').value || $('f-a-pass').value) set.push('basic auth');
  if ($('f-a-includeaa').checked) set.push('strict comparison');
  $('f-advanced-summary').replaceChildren(
    ...(set.length
      ? [h('strong', {}, `Set (${set.length}): `), set.join(', '), '.']
      : ['None set: the defaults apply.']),
  );
  return set;
}

// The line follows the fields as they change (a drawn region calls summarize() itself).
$('f-advanced').addEventListener('input', summarize);
$('f-advanced').addEventListener('change', summarize);
