// What the example runs read, without running anything (they are run by
// examples-<clock>.e2e.test.ts; how, and the conventions for authors: ./examples.ts): the
// reader of console blocks, the pages, and the help examples as the runner rewrites them.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/bin.js';
import { extractExamples } from './extract.js';
import { PAGES } from './pages.js';

describe('extractExamples', () => {
  it('reads commands, continuations and expected exit codes from console blocks only', () => {
    const md = [
      '```sh',
      '$ carrental not-this-one',
      '```',
      '```console',
      '$ carrental cars --city la',
      'ALIAS  NAME',
      '$ carrental car nope   # exit 4',
      '$ carrental quote <alias> \\',
      '    --from 2026-12-01T10:00 --to 2026-12-04T10:00',
      '$ export X=1',
      '$ carrental sandbox serve --port 0   # runs until Ctrl-C',
      '```',
    ].join('\n');
    expect(extractExamples(md)).toEqual([
      { line: 5, command: 'carrental cars --city la', expectedCode: 0, untilInterrupt: false },
      { line: 7, command: 'carrental car nope   # exit 4', expectedCode: 4, untilInterrupt: false },
      { line: 8, command: 'carrental quote <alias> --from 2026-12-01T10:00 --to 2026-12-04T10:00', expectedCode: 0, untilInterrupt: false },
      { line: 11, command: 'carrental sandbox serve --port 0   # runs until Ctrl-C', expectedCode: 0, untilInterrupt: true },
    ]);
  });

  it('refuses an unclosed block', () => {
    expect(() => extractExamples('```console\n$ carrental cars\n')).toThrow(/not closed/);
  });
});

const examples = new Map(PAGES.map((page) => [page, extractExamples(readFileSync(join(ROOT, page), 'utf8'))]));

describe('the pages to run', () => {
  it('are the README and the manual, and both have examples', () => {
    expect(PAGES[0]).toBe('README.md');
    expect(PAGES).toContain('docs/getting-started.md');
    expect(examples.get('README.md')!.some((e) => e.expectedCode === 0)).toBe(true);
    expect(PAGES.filter((p) => p.startsWith('docs/')).some((p) => examples.get(p)!.length > 0)).toBe(true);
  });

  if ([...examples.values()].flat().some((e) => /\|\s*jq\b/.test(e.command))) {
    it('jq is installed for the `| jq` examples (.ci/run installs it)', () => {
      expect(spawnSync('jq', ['--version']).status).toBe(0);
    });
  }
});
