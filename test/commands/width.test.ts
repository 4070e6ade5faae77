// Issue 36: on a terminal 60 or 80 columns wide, no line of any command's output passes
// the width. Prose folds at spaces; a real command (backticked, or a whole command line on
// its own) is kept unbroken, and alone on its line when it is wider than the terminal (so
// it copies whole), as a URL is. "a carrental sandbox runs on port …" is prose, not a
// command: it folds. A journey on the embedded sandbox meets the usual outputs: tables,
// details, quotes, links and their notes, `status` with its `next:` lines, a cancel, errors.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { FakeOut, TestHome } from '../helpers/cli.js';

const day = (ahead: number) => `${new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10)}T10:00`;
const FROM = day(50);
const TO = day(53);

async function onTerminal(home: TestHome, columns: number, args: string[]): Promise<{ code: number; text: string }> {
  const stdout = Object.assign(new FakeOut(true), { columns, rows: 1000 });
  const stderr = Object.assign(new FakeOut(true), { columns });
  const stdin = new PassThrough() as unknown as InStream;
  (stdin as unknown as PassThrough).end();
  const code = await runCli(['--sandbox', ...args], { io: { stdin, stdout, stderr }, env: home.env({ NO_COLOR: '1', COLUMNS: String(columns) }) });
  // as the terminal shows it: a progress line is overwritten (\r, erase line) by what follows
  const shown = (t: string) => t.split('\n').map((line) => line.slice(line.lastIndexOf('\r') + 1).replace(/\u001b\[2K/g, '')).join('\n');
  return { code, text: `${shown(stdout.text())}${shown(stderr.text())}` };
}

/** A line that may pass the width: a URL alone, or one command alone (it must copy whole). */
function mayPass(line: string): boolean {
  const t = line.trim();
  return /^https?:\/\/\S+$/.test(t) || /^`carrental [^`]*`[.,;:)]*$/.test(t) || /^carrental [^`]*$/.test(t);
}

describe.each([60, 80])('at %i columns', (columns) => {
  it('no line passes the width, except a URL or a command alone on its line', async () => {
    const home = new TestHome();
    try {
      const run = (...args: string[]) => onTerminal(home, columns, args);
      const seen: Array<{ args: string; text: string }> = [];
      const record = async (...args: string[]) => {
        const r = await run(...args);
        seen.push({ args: args.join(' '), text: r.text });
        return r;
      };
      const cars = await onTerminal(home, columns, ['cars', '--city', 'la', '--from', FROM, '--to', TO, '--json', 'car_alias,is_available', '--limit', '30']);
      // stdout only: stderr may hold the embedded sandbox's notes
      cars.text = cars.text.slice(0, cars.text.lastIndexOf('}') + 1);
      const alias = (JSON.parse(cars.text) as { cars: Array<{ car_alias: string; is_available: boolean }> }).cars.find((c) => c.is_available)!.car_alias;
      await record('cars', '--city', 'la', '--from', FROM, '--to', TO, '--limit', '5');
      await record('car', alias);
      await record('quote', alias, '--from', FROM, '--to', TO, '--protection', 'standard');
      const made = await record('reserve', alias, '--from', FROM, '--to', TO, '-y');
      expect(made.code, made.text).toBe(0);
      const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(made.text)![0];
      await record('reserve', alias, '--from', FROM, '--to', TO, '-y', '--new');
      await record('trips');
      await record('trips', uuid);
      await record('status');
      const link = await record('pay-link', uuid);
      if (process.env.SHOW) console.log(link.text);
      await record('invoices', uuid);
      await record('profile');
      await record('verification');
      await record('cards');
      await record('card-link');
      await record('cancel', uuid, '-y');
      await record('trips', uuid);
      await record('car', 'no-such-car');
      await record('doctor');
      const over = seen.flatMap(({ args, text }) =>
        text
          .split('\n')
          .filter((line) => line.length > columns && !mayPass(line))
          .map((line) => `${args}: ${line} (${line.length})`),
      );
      expect(over).toEqual([]);
    } finally {
      home.cleanup();
    }
  }, 120_000);
});
