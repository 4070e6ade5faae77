// HTML for the sandbox's customer pages: escaping, the layout with its small stylesheet,
// and the formatting of money, car-local dates and cards as the customer reads them.
// Plain server-rendered documents: no script, so the CSP forbids every script.
import { CITY_TIME_ZONES, type City } from '../../api/enums.js';
import { formatCents } from '../../render/money.js';
import type { CardRec, CustomerRec } from '../state.js';

/** A fragment of HTML that is already safe; everything else is escaped when interpolated. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export const raw = (value: string) => new Html(value);

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** Tagged template: interpolated values are escaped unless they are Html (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0];
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new Html(out);
}

export const money = (cents: number) => formatCents(cents);

/** `2026-12-01T10:00` in la -> `2026-12-01 10:00 America/Los_Angeles` (never converted). */
export function localTime(value: string, city: City): string {
  return `${value.replace('T', ' ')} ${CITY_TIME_ZONES[city]}`;
}

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover' };

export function cardLabel(card: Pick<CardRec, 'card_brand' | 'last4'>): string {
  return `${BRANDS[card.card_brand] ?? card.card_brand} •••• ${card.last4}`;
}

export function cardExpiry(card: Pick<CardRec, 'exp_month' | 'exp_year'>): string {
  return `${String(card.exp_month).padStart(2, '0')}/${card.exp_year}`;
}

const STYLE = `
:root{color-scheme:light;--ink:#1c2430;--muted:#5d6b7e;--line:#dde3ea;--bg:#f4f6f9;--brand:#1f5fbf;--brand-ink:#fff;--ok:#1c7c46;--warn:#9a6200;--err:#b3261e}
*{box-sizing:border-box}
a{color:var(--brand)}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
header{background:#fff;border-bottom:1px solid var(--line)}
header .bar{max-width:44rem;margin:0 auto;padding:.75rem 1.25rem;display:flex;gap:1rem;align-items:center}
header .logo{font-weight:700;color:var(--ink);text-decoration:none}
header .badge{font-size:.7rem;font-weight:700;letter-spacing:.06em;background:#fff3cd;color:var(--warn);border:1px solid #f0d58c;border-radius:999px;padding:.05rem .5rem}
header nav{margin-left:auto;display:flex;gap:1rem;align-items:center;font-size:.9rem}
header nav a{color:var(--muted);text-decoration:none}
header nav form{margin:0}
main{max-width:44rem;margin:1.5rem auto;padding:0 1.25rem}
.card{background:#fff;border:1px solid var(--line);border-radius:12px;padding:1.25rem 1.5rem;margin-bottom:1rem}
h1{font-size:1.45rem;margin:0 0 .75rem}
h2{font-size:1.05rem;margin:1.25rem 0 .5rem}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.9rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1.25rem;margin:.75rem 0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0}
table{width:100%;border-collapse:collapse;margin:.5rem 0}
th,td{text-align:left;padding:.4rem .25rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600}
td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
tr.total td{font-weight:700;border-bottom:none}
.due{margin:1rem 0 0;color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;font-weight:600}
.amount{font-size:2rem;font-weight:700;font-variant-numeric:tabular-nums;margin:0 0 .25rem}
.notice{border-radius:8px;padding:.75rem 1rem;margin:.75rem 0;border:1px solid var(--line);background:#f8fafc}
.notice.ok{border-color:#b7dfc6;background:#eef8f1}
.notice.warn{border-color:#f0d58c;background:#fff8e6}
.notice.error{border-color:#f1b8b4;background:#fdf0ef}
.actions{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap;margin-top:1rem}
button,.button{font:inherit;font-weight:600;border-radius:8px;padding:.6rem 1.1rem;border:1px solid var(--brand);background:var(--brand);color:var(--brand-ink);cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:var(--brand)}
button.link{background:none;border:none;color:var(--muted);padding:0;font-weight:400;text-decoration:underline}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input,select{font:inherit;padding:.5rem .6rem;border:1px solid #c3ccd7;border-radius:8px;background:#fff;width:100%}
.row{display:flex;gap:.75rem}
.row>div{flex:1}
.choices{display:grid;gap:.5rem;margin:.75rem 0}
.choice{display:flex;gap:.75rem;align-items:flex-start;border:1px solid var(--line);border-radius:10px;padding:.6rem .8rem;font-weight:400;margin:0;cursor:pointer}
.choice input{width:auto;margin-top:.3rem}
.choice strong{display:block}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.88em;background:#eef1f5;border-radius:4px;padding:.05rem .3rem;word-break:break-all}
ul.plain{list-style:none;padding:0;margin:.5rem 0}
ul.plain li{padding:.45rem 0;border-bottom:1px solid var(--line)}
.status{font-size:.8rem;font-weight:600;border-radius:999px;padding:.05rem .55rem;background:#eef1f5;color:var(--muted)}
.status.ok{background:#e3f4e9;color:var(--ok)}
.status.warn{background:#fff1cc;color:var(--warn)}
.status.err{background:#fde3e1;color:var(--err)}
footer{max-width:44rem;margin:2rem auto;padding:0 1.25rem;color:var(--muted);font-size:.8rem}
`;

export interface LayoutOptions {
  title: string;
  customer?: CustomerRec | null;
  /** The session's CSRF token, for the log-out form. */
  csrf?: string;
  body: Html;
}

export function layout(opts: LayoutOptions): string {
  const who = opts.customer
    ? html`<nav><a href="/app/">Trips</a><a href="/app/billing/cards">Card</a><a href="/app/settings/api-keys">API keys</a>
<form method="post" action="/app/logout"><input type="hidden" name="csrf" value="${opts.csrf ?? ''}"><button class="link" type="submit">Log out ${opts.customer.first_name}</button></form></nav>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title)} · Carrental sandbox</title>
<style>${STYLE}</style>
</head>
<body>
<header><div class="bar"><a class="logo" href="/app/">Carrental</a><span class="badge">SANDBOX</span>${render(who)}</div></header>
<main>
${opts.body.value}
</main>
<footer>This is the carrental sandbox: no real card is charged, no real car is booked.</footer>
</body>
</html>
`;
}
