// Small SVG charts for the status page, built from the figures with the DOM (no library, nothing
// inline for the CSP to refuse: colours come from status-charts.css classes). A chart is a picture for
// the eye only (aria-hidden); the table beside it is what a screen reader reads.

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 120;

function el(name, attrs = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function frame() {
  const svg = el('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: 'none', 'aria-hidden': 'true' });
  svg.classList.add('chart-svg');
  svg.append(el('line', { x1: 0, y1: HEIGHT - 0.5, x2: WIDTH, y2: HEIGHT - 0.5, class: 'axis' }));
  return svg;
}

/**
 * One column per minute, its values stacked bottom up (`series`: [key, class] in stacking order).
 * Returns the SVG and the largest column total (the scale, for the label beside it).
 */
export function stackedColumns(minutes, series, valueOf) {
  const svg = frame();
  const totals = minutes.map((m) => series.reduce((sum, [key]) => sum + valueOf(m, key), 0));
  const top = Math.max(1, ...totals);
  const step = WIDTH / minutes.length;
  minutes.forEach((m, i) => {
    let y = HEIGHT;
    for (const [key, cls] of series) {
      const v = valueOf(m, key);
      if (!v) continue;
      const h = (v / top) * (HEIGHT - 4);
      y -= h;
      svg.append(el('rect', { x: i * step + 1, y, width: Math.max(1, step - 2), height: h, class: cls }));
    }
  });
  return { svg, top };
}

/**
 * One column per minute for a pair of percentiles: p95 as a pale column, p50 as a dark one in front.
 * Minutes without a value are left empty. Returns the SVG and the scale (the largest p95).
 */
export function percentileColumns(minutes, pick) {
  const svg = frame();
  const values = minutes.map(pick);
  const top = Math.max(0, ...values.map((p) => (p ? p.p95 : 0)));
  const scale = Math.max(1, top); // all-zero waits still draw a sliver, not a division by zero
  const step = WIDTH / minutes.length;
  values.forEach((p, i) => {
    if (!p) return;
    for (const [v, cls] of [
      [p.p95, 'p95'],
      [p.p50, 'p50'],
    ]) {
      const h = Math.max(1.5, (v / scale) * (HEIGHT - 4));
      svg.append(el('rect', { x: i * step + 1, y: HEIGHT - h, width: Math.max(1, step - 2), height: h, class: cls }));
    }
  });
  return { svg, top };
}

/** A table with a caption, header cells for columns and (when `rowHeader`) for each row's first cell. */
export function table(caption, head, rows, { rowHeader = true } = {}) {
  const t = document.createElement('table');
  // Read by screen readers; the <summary> above the table is its visible title (a caption would be as
  // wide as the table, which scrolls sideways on a phone).
  const cap = t.createCaption();
  cap.className = 'sr-only';
  cap.textContent = caption;
  const headRow = t.createTHead().insertRow();
  for (const h of head) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    headRow.append(th);
  }
  const body = t.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    row.forEach((cell, i) => {
      const c = document.createElement(i === 0 && rowHeader ? 'th' : 'td');
      if (i === 0 && rowHeader) c.scope = 'row';
      c.textContent = String(cell);
      tr.append(c);
    });
  }
  return t;
}
