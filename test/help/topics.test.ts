// `carrental help <topic>` prints a section of the manual (docs/) as terminal text, read from
// the same files the manual is, so the two cannot drift; the topics exist in the pages, say
// what the code does (every exit code, every environment variable), are listed by
// `carrental help` and offered by completion. What the built CLI does with them (it reads
// the docs/ it ships with, and says so when they are missing) is topics.e2e.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCompletion, SHELLS } from '../../src/cmdkit/completion-gen.js';
import { HELP_TOPICS } from '../../src/cmdkit/help-topics.js';
import { topicText } from '../../src/commands/help.js';
import { EXIT_CODES } from '../../src/errors.js';
import { renderMarkdown, section } from '../../src/render/markdown.js';
import { ROOT } from '../helpers/bin.js';
import { runCommand } from '../helpers/cli.js';

const page = (name: string) => readFileSync(join(ROOT, 'docs', name), 'utf8');
const topic = (name: string) => HELP_TOPICS.find((t) => t.name === name)!;

describe('the help topics', () => {
  it('are at least environment, exit-codes, formatting and idempotency', () => {
    expect(HELP_TOPICS.map((t) => t.name)).toEqual(expect.arrayContaining(['environment', 'exit-codes', 'formatting', 'idempotency']));
  });

  it.each(HELP_TOPICS.map((t) => [t.name, t] as const))('%s is a section of its docs/ page, printed as that section', async (_name, t) => {
    const markdown = section(page(t.page), t.anchor);
    expect(markdown, `docs/${t.page} has no heading with the anchor #${t.anchor}`).toBeDefined();
    const r = await runCommand(['help', t.name]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(await topicText(t));
    // its heading first, then every line of its code blocks and every row of its tables
    expect(r.stdout.split('\n')[0]).toBe(renderMarkdown(markdown!.split('\n')[0]).split('\n')[0]);
    const lines = markdown!.split('\n');
    for (const [i, line] of lines.entries()) {
      // a two-column table prints as records: its header row is not repeated
      if (/^\|\s*-+/.test(lines[i + 1] ?? '')) continue;
      const cell = /^\|\s*`?([^|`]+?)`?\s*\|/.exec(line)?.[1];
      if (cell && !/^-+$/.test(cell)) expect(r.stdout).toContain(cell.replace(/\\/g, ''));
    }
    for (const line of renderMarkdown(markdown!).split('\n').filter((l) => l.startsWith('    $ '))) expect(r.stdout).toContain(line);
    expect(r.stdout).toContain(`docs/${t.page}#${t.anchor}`);
  });

  it('exit-codes has a row for every exit code the CLI uses', async () => {
    const text = await topicText(topic('exit-codes'));
    for (const code of [0, ...Object.values(EXIT_CODES)]) expect(text).toMatch(new RegExp(`^${code} +\\S`, 'm'));
  });

  it('environment names every CARRENTAL_ variable the code reads', async () => {
    const text = await topicText(topic('environment'));
    const read = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.(ts|cjs)$/.test(entry.name)) for (const m of readFileSync(path, 'utf8').matchAll(/\bCARRENTAL_[A-Z_]*[A-Z]\b/g)) read.add(m[0]);
      }
    };
    walk(join(ROOT, 'src'));
    // a shell variable in a help example, not one carrental reads
    read.delete('CARRENTAL_KEY');
    expect(read.size).toBeGreaterThan(10);
    for (const name of read) expect(text, `${name} is read in src/ but not in docs/configuration.md#environment-variables`).toContain(name);
  });

  it('formatting and idempotency cover what their names promise', async () => {
    const formatting = await topicText(topic('formatting'));
    for (const word of ['--json', '--json <fields>', '--jq', 'stdout', 'stderr', 'tab-separated']) expect(formatting).toContain(word);
    const idempotency = await topicText(topic('idempotency'));
    for (const word of ['Idempotency-Key', 'journal', 'carrental pending', 'exit 6']) expect(idempotency).toContain(word);
  });

  it('fits a terminal of 60 columns, except code blocks and words longer than that', async () => {
    for (const t of HELP_TOPICS) {
      const text = await topicText(t, 60);
      const markdown = section(page(t.page), t.anchor)!;
      // code blocks keep their lines: they are meant to be copied
      const code = new Set(renderMarkdown(markdown, { width: 60 }).split('\n').filter((l) => l.startsWith('    ')));
      for (const line of text.split('\n')) if (!code.has(line) && line.length > 60 && /\s\S+\s/.test(line.trim())) expect.fail(`${t.name}: ${line}`);
    }
  });
});

describe('carrental help', () => {
  it('lists the commands and every topic with its summary, as --help does', async () => {
    const help = await runCommand(['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Help topics (carrental help <topic>):');
    for (const t of HELP_TOPICS) expect(help.stdout).toMatch(new RegExp(`\\n  ${t.name} +${t.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`));
    expect(help.stdout).toContain('\n  reserve ');
    expect((await runCommand(['--help'])).stdout).toBe(help.stdout);
  });

  it('help <command> is still the command’s own help', async () => {
    expect((await runCommand(['help', 'reserve'])).stdout).toBe((await runCommand(['reserve', '--help'])).stdout);
    expect((await runCommand(['help', 'sandbox'])).stdout).toBe((await runCommand(['sandbox', '--help'])).stdout);
  });

  it('an unknown topic is a usage error that lists the topics, with nothing on stdout', async () => {
    const r = await runCommand(['help', 'exit-code']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown help topic "exit-code"');
    for (const t of HELP_TOPICS) expect(r.stderr).toContain(t.name);
  });

  it('a typo gets the nearest topic or command as the hint', async () => {
    const cases: Array<[string, string]> = [['exit-code', 'exit-codes'], ['enviroment', 'environment'], ['formating', 'formatting'], ['idempotncy', 'idempotency']];
    for (const [typed, meant] of cases) {
      const r = await runCommand(['help', typed]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`hint: did you mean \`carrental help ${meant}\`?`);
    }
    expect((await runCommand(['help', 'zzzzzz'])).stderr).toContain('hint: `carrental help` lists the commands and topics');
  });

  it.each(SHELLS)('%s completion offers the topics and the commands after `help`, and `help` once', (shell) => {
    const script = generateCompletion(shell);
    for (const t of HELP_TOPICS) expect(script).toContain(t.name);
    // the line that completes the argument of `help`
    const line = script.split('\n').find((l) => l.includes('carrental help') && l.includes('exit-codes') && /\breserve\b/.test(l));
    expect(line, 'no completion of `help <TAB>` with commands and topics').toBeDefined();
    for (const t of HELP_TOPICS) expect(line).toContain(t.name);
    expect(script.split('\n').filter((l) => /-a 'help'|\bhelp:help for|'help' /.test(l)).length).toBeLessThanOrEqual(2);
  });
});
