// htm bound to Preact: components are written as tagged templates, which the browser runs as they are
// (no build step, and no eval, so the pages keep script-src 'self').
import { h } from '/assets/vendor/preact.js';
import htm from '/assets/vendor/htm.js';

export const html = htm.bind(h);
