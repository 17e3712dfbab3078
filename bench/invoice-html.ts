/**
 * A deterministic, self-contained invoice-like page (~5 KB): inline CSS,
 * a heading, a 40-row line-item table and totals. No external resources,
 * so rendering cost is pure layout/paint/capture.
 */

const ROWS = 40;

interface Line {
  sku: string;
  description: string;
  qty: number;
  unitCents: number;
}

function lines(): Line[] {
  const out: Line[] = [];
  for (let i = 1; i <= ROWS; i++) {
    out.push({
      sku: `SKU-${String(1000 + i * 7)}`,
      description: `Service item ${i}`,
      qty: (i % 5) + 1,
      unitCents: 1250 + ((i * 379) % 9000),
    });
  }
  return out;
}

const money = (cents: number): string => (cents / 100).toFixed(2);

function build(): string {
  const items = lines();
  const subtotal = items.reduce((s, l) => s + l.qty * l.unitCents, 0);
  const tax = Math.round(subtotal * 0.2);
  const rows = items
    .map(
      (l) =>
        `<tr><td>${l.sku}</td><td>${l.description}</td><td>${l.qty}</td>` +
        `<td>${money(l.unitCents)}</td><td>${money(l.qty * l.unitCents)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Invoice INV-2024-0042</title>
<style>
body{font-family:Helvetica,Arial,sans-serif;color:#222;margin:32px;font-size:12px}
h1{font-size:24px;margin:0 0 4px;color:#1a3d6d}
.meta{display:flex;justify-content:space-between;margin-bottom:16px}
table{width:100%;border-collapse:collapse}
th{background:#1a3d6d;color:#fff;text-align:left;padding:4px 6px}
td{padding:3px 6px;border-bottom:1px solid #ddd}
tr:nth-child(even) td{background:#f5f7fa}
.n,.items td:nth-child(n+3){text-align:right}
.totals{margin-top:12px;margin-left:auto;width:240px}
.totals td{border:none}
.grand td{font-weight:bold;border-top:2px solid #1a3d6d}
</style></head>
<body>
<h1>Invoice INV-2024-0042</h1>
<div class="meta"><div>Acme Widgets Ltd<br>1 Market Street<br>Springfield</div>
<div>Date: 2024-05-01<br>Due: 2024-05-31<br>Customer: Example Corp</div></div>
<table class="items"><thead><tr><th>SKU</th><th>Description</th><th class="n">Qty</th><th class="n">Unit</th><th class="n">Amount</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<table class="totals">
<tr><td>Subtotal</td><td class="n">${money(subtotal)}</td></tr>
<tr><td>VAT 20%</td><td class="n">${money(tax)}</td></tr>
<tr class="grand"><td>Total</td><td class="n">${money(subtotal + tax)}</td></tr>
</table>
</body></html>
`;
}

export const invoiceHtml: string = build();

/**
 * The same invoice with one small script (it stamps the heading), as HTML with charts or computed totals
 * has: the service unloads the page after such a render (see src/render/load/inert-html.ts), which the plain
 * invoice does not need.
 */
export const scriptedInvoiceHtml: string = invoiceHtml.replace(
  '</body>',
  `<script>document.querySelector('h1').textContent += ' (checked)';</script>\n</body>`,
);
