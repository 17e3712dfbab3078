// One outline over the image shown (the single view, or the slider's box), put on a region or a text
// change while it is pointed at or focused.
import { $, h } from '/assets/monitors-util.js';

const outline = h('div', { id: 'region-outline', class: 'region-outline', hidden: true, 'aria-hidden': 'true' });

/** Outlines `box` (capture pixels) on the image shown, scaled as the image is. */
export function showOutline(box) {
  const slider = !$('compare').hidden;
  const host = slider ? $('compare-box') : $('single');
  const img = slider ? $('compare-prev') : $('single-img');
  if (!box || !img.naturalWidth || host.hidden) return hideOutline();
  if (outline.parentElement !== host) host.append(outline);
  const scale = img.clientWidth / img.naturalWidth;
  Object.assign(outline.style, {
    left: `${img.offsetLeft + box.x * scale}px`,
    top: `${img.offsetTop + box.y * scale}px`,
    width: `${Math.max(box.width * scale, 2)}px`,
    height: `${Math.max(box.height * scale, 2)}px`,
  });
  outline.hidden = false;
}

export function hideOutline() {
  outline.hidden = true;
}
