// The customer web application of the sandbox: every path under /app/ is served here —
// the pages ManualAction links open (paying rent or deposit, adding or replacing a card,
// confirming an extension) and the API-key settings page. Pages change state only through
// the transitions of rules.ts (payRentInvoice, placeDepositHold, saveCard, extendCheckout)
// inside ctx.store.transact. This version serves no page yet: every path answers 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from './context.js';

export async function handlePage(req: IncomingMessage, res: ServerResponse, _ctx: SandboxContext): Promise<void> {
  const body = `<!doctype html><title>Not found</title><p>No page at ${escapeHtml(req.url ?? '/')}</p>\n`;
  res.writeHead(404, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
