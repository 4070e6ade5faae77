// `carrental help <topic>` in the built CLI: it reads the docs/ shipped next to dist/, and a
// package without them says so in one line. The topics themselves are topics.test.ts.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../src/cmdkit/help-topics.js';
import { topicText } from '../../src/commands/help.js';
import { ROOT, runBin } from '../helpers/bin.js';

const topic = (name: string) => HELP_TOPICS.find((t) => t.name === name)!;

describe('the built CLI', () => {
  it('reads the topics from the docs/ it ships with', async () => {
    const r = await runBin(['help', 'idempotency']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(await topicText(topic('idempotency')));
  });
});

describe('a carrental without its manual', () => {
  it('says so in one line, exit 1, instead of crashing', () => {
    // a copy of the built package with no docs/ next to dist/
    const dir = mkdtempSync(join(tmpdir(), 'carrental-nodocs-'));
    try {
      for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
      const r = spawnSync(process.execPath, [join(dir, 'bin', 'carrental.js'), 'help', 'exit-codes'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('the manual is not installed with this carrental');
      expect(r.stderr).not.toMatch(/\n\s+at /);
      // the commands' own help does not need it
      expect(spawnSync(process.execPath, [join(dir, 'bin', 'carrental.js'), 'help', 'cars'], { encoding: 'utf8' }).status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
