// The examples of README.md and of docs/ (how they are run, and the conventions for authors
// of the pages: test/readme/examples.ts): the reader of console blocks, and every page but
// the longest, which have a file each (PAGES_OF_THEIR_OWN).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { describeExamples, examplesOf, extractExamples, PAGES_OF_THEIR_OWN } from './examples.js';
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

const examples = new Map(PAGES.map((page) => [page, examplesOf(page)]));

describe('the pages to run', () => {
  it('are the README and the manual, and both have examples', () => {
    expect(PAGES[0]).toBe('README.md');
    expect(PAGES).toContain('docs/getting-started.md');
    expect(examples.get('README.md')!.some((e) => e.expectedCode === 0)).toBe(true);
    expect(PAGES.filter((p) => p.startsWith('docs/')).some((p) => examples.get(p)!.length > 0)).toBe(true);
  });

  it('include the pages that have a file of their own, with examples', () => {
    for (const page of PAGES_OF_THEIR_OWN) expect(examples.get(page)?.length, page).toBeGreaterThan(0);
  });

  if ([...examples.values()].flat().some((e) => /\|\s*jq\b/.test(e.command))) {
    it('jq is installed for the `| jq` examples (.ci/run installs it)', () => {
      expect(spawnSync('jq', ['--version']).status).toBe(0);
    });
  }
});

describeExamples(PAGES.filter((page) => !PAGES_OF_THEIR_OWN.includes(page)));
