// The whole page's signs of a failed fetch, read at the moment of a monitor's capture: its title, how much
// visible text and how many pictures or fields it shows, whether it draws any box, which bot-check widgets
// it holds and whether a password field is in view. src/monitors/suspect.ts judges them. Like every page read, nothing the page
// answers is trusted: each field is checked for its type and bounded here, in the service.
import type { Page } from 'playwright';
import { PAGE_SIGNS_TEXT, type PageSigns } from '../../domain/page-facts.js';

/**
 * The bot-check and captcha widgets looked for, by the name a suspect capture's message gives. Each is
 * what a challenge page itself holds, not what a protected page carries everywhere: Cloudflare's
 * challenge form and orchestrate script (not its bot-detection script /jsd/, on ordinary pages too), a
 * visible reCAPTCHA or hCaptcha checkbox (not an invisible one, nor the reCAPTCHA v3 badge), Turnstile,
 * DataDome's and Imperva's captcha frames, PerimeterX's "press and hold".
 */
export const CHALLENGE_WIDGETS: readonly (readonly [name: string, selector: string])[] = [
  [
    'Cloudflare challenge',
    '#challenge-form, #challenge-stage, #challenge-running, #cf-challenge-running, .cf-browser-verification, ' +
      '[id^="cf-chl"], [class*="cf-chl"], form[action*="__cf_chl"], ' +
      'script[src*="/cdn-cgi/challenge-platform/"][src*="orchestrate"]',
  ],
  ['Cloudflare Turnstile', '.cf-turnstile, iframe[src*="challenges.cloudflare.com"]'],
  [
    'reCAPTCHA',
    '.g-recaptcha[data-sitekey]:not([data-size="invisible"]), ' +
      'iframe[src*="/recaptcha/"][src*="anchor"]:not([src*="size=invisible"])',
  ],
  ['hCaptcha', '.h-captcha[data-sitekey]:not([data-size="invisible"]), iframe[src*="hcaptcha.com"]'],
  ['DataDome', 'iframe[src*="captcha-delivery.com"], script[src*="captcha-delivery.com"]'],
  ['PerimeterX', '#px-captcha, [id^="px-captcha"]'],
  ['Imperva', 'iframe[src*="_Incapsula_Resource"]'],
];

/** Pictures and fields counted up to this: the judgment needs only "none" or "some". */
const MAX_MEDIA = 100;
/** Elements looked at for a drawn box: a page of more, with no text and no picture, is not met in practice. */
const MAX_DRAWN_LOOKED = 2000;

export async function readPageSigns(page: Page): Promise<PageSigns> {
  const read: unknown = await page.evaluate(
    ({ widgets, cloudflare, max, maxMedia, maxLooked }) => {
      const visible = (el: Element) => {
        const r = el.getBoundingClientRect();
        if (r.width < 1 || r.height < 1) return false;
        const style = getComputedStyle(el);
        return style.visibility !== 'hidden' && style.display !== 'none' && Number(style.opacity) > 0;
      };
      const answer: Record<string, unknown> = {};
      try {
        // A document without an HTML body (an XML feed, an SVG) has its text read all the same.
        const root: Element | null = document.body ?? document.documentElement;
        const read = root instanceof HTMLElement ? root.innerText : root?.textContent;
        const text = (read ?? '').replace(/\s+/g, ' ').trim();
        answer.textLength = text.length;
        answer.text = text.slice(0, max);
        answer.title = String(document.title).slice(0, max * 4);
        let media = 0;
        for (const el of document.querySelectorAll(
          'img, svg, canvas, video, iframe, object, embed, input:not([type="hidden"]), select, textarea',
        )) {
          if (media >= maxMedia) break;
          if (visible(el)) media++;
        }
        answer.media = media;
        // A page of coloured boxes (a status board, shapes drawn in CSS) shows something without text or
        // pictures; a shell whose app failed to load draws none. One drawn box is enough to know.
        const sides = ['top', 'right', 'bottom', 'left'];
        const drawn = (el: Element) => {
          const style = getComputedStyle(el);
          const colour = style.backgroundColor;
          return (
            (colour !== 'transparent' && !/^rgba\(.*,\s*0\)$/.test(colour)) ||
            style.backgroundImage !== 'none' ||
            style.boxShadow !== 'none' ||
            sides.some(
              (side) =>
                parseFloat(style.getPropertyValue(`border-${side}-width`)) > 0 &&
                !['none', 'hidden'].includes(style.getPropertyValue(`border-${side}-style`)),
            )
          );
        };
        let looked = 0;
        answer.drawn = false;
        for (const el of document.body?.querySelectorAll('*') ?? []) {
          if (looked++ >= maxLooked) break;
          if (drawn(el) && visible(el)) {
            answer.drawn = true;
            break;
          }
        }
        const found: string[] = [];
        for (const [name, selector] of widgets) if (document.querySelector(selector)) found.push(name);
        // The options object of Cloudflare's challenge script: only its challenge pages define it.
        if (!found.includes(cloudflare) && '_cf_chl_opt' in window) found.push(cloudflare);
        answer.challenges = found;
        answer.passwordField = [...document.querySelectorAll('input[type="password" i]')].some(visible);
      } catch {
        answer.unreadable = true; // the page's own script broke the reading (a redefined DOM method)
      }
      return answer;
    },
    {
      widgets: CHALLENGE_WIDGETS,
      cloudflare: CHALLENGE_WIDGETS[0]![0],
      max: PAGE_SIGNS_TEXT,
      maxMedia: MAX_MEDIA,
      maxLooked: MAX_DRAWN_LOOKED,
    },
  );
  return signsOf(read);
}

/** The page's answer, checked and bounded; an unreadable page reads as one with content (never suspect for it). */
function signsOf(read: unknown): PageSigns {
  const a = (read !== null && typeof read === 'object' ? read : {}) as Record<string, unknown>;
  const names = new Set(CHALLENGE_WIDGETS.map(([name]) => name));
  const unreadable = a.unreadable === true;
  return {
    title: collapse(a.title),
    textLength: unreadable ? Number.MAX_SAFE_INTEGER : count(a.textLength),
    text: collapse(a.text),
    media: Math.min(count(a.media), MAX_MEDIA),
    challenges: Array.isArray(a.challenges)
      ? [...new Set(a.challenges.filter((n): n is string => typeof n === 'string' && names.has(n)))]
      : [],
    passwordField: a.passwordField === true,
    drawn: unreadable || a.drawn === true,
  };
}

const count = (n: unknown): number => (typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : 0);

function collapse(text: unknown): string {
  if (typeof text !== 'string') return '';
  return text
    .slice(0, PAGE_SIGNS_TEXT * 4)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, PAGE_SIGNS_TEXT);
}
