// The per-request log line of the sandbox: written when asked (sandbox serve --log, or a
// terminal), and not even formatted when off; the admin request log keeps working either way.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';

afterEach(() => vi.restoreAllMocks());

describe('the request log', () => {
  it('writes one line per request when on, none when off, and /__sandbox/requests records both', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    for (const quiet of [false, true]) {
      lines.length = 0;
      const sb = await startSandbox({ quiet });
      try {
        for (let i = 0; i < 3; i++) await (await fetch(`${sb.baseUrl}/cars?limit=1`)).text();
        expect(lines.filter((l) => l.startsWith('sandbox: GET /v1/cars?limit=1 -> 200')), `quiet ${quiet}`).toHaveLength(quiet ? 0 : 3);
        const logged = (await (await fetch(`${sb.adminUrl}/requests`)).json()) as { requests: unknown[] };
        expect(logged.requests).toHaveLength(3);
      } finally {
        await sb.close();
      }
    }
  });
});
