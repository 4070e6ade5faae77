// Issue 27: `carrental --help` ends with a short note for AI agents pointing at `--json`,
// `--no-input` and `carrental mcp`, shown to everyone (the help path detects nothing, and an
// agent no variable reveals needs it most: src/cli/help-text.ts); and the agent variables
// docs/configuration.md lists are the ones src/cmdkit/agent.ts reads.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENT_VARIABLES } from '../../src/cmdkit/agent.js';
import { runCommand } from '../helpers/cli.js';

/** The last paragraph of a help text, its lines joined (the note may be wrapped). */
const lastParagraph = (text: string) => text.trimEnd().split(/\n\s*\n/).at(-1)!.replace(/\s+/g, ' ');

describe('the root help ends with a note for agents', () => {
  it.each([
    ['--help', ['--help']],
    ['-h', ['-h']],
    ['help', ['help']],
    // not a plain help request: commander lays this one out
    ['--no-color --help', ['--no-color', '--help']],
  ])('%s: the last paragraph names --json, --no-input and carrental mcp', async (_name, argv) => {
    const r = await runCommand(argv);
    expect(r.code).toBe(0);
    const note = lastParagraph(r.stdout);
    expect(note).toMatch(/^For AI agents/);
    expect(note).toContain('--json');
    expect(note).toContain('--no-input');
    expect(note).toContain('`carrental mcp`');
  });

  it('for everyone: a person at a terminal, a pipe and an agent get the same note', async () => {
    const person = await runCommand(['--help'], { tty: true, stdinTty: true });
    const pipe = await runCommand(['--help']);
    const agent = await runCommand(['--help'], { tty: true, stdinTty: true, env: { PATH: process.env.PATH, CLAUDECODE: '1' } });
    expect(lastParagraph(person.stdout)).toMatch(/^For AI agents/);
    expect(lastParagraph(person.stdout)).toBe(lastParagraph(pipe.stdout));
    expect(lastParagraph(agent.stdout)).toBe(lastParagraph(pipe.stdout));
  });

  it('points at what exists: the options it names are in the list above, and mcp is a command', async () => {
    const r = await runCommand(['--help']);
    const note = lastParagraph(r.stdout);
    for (const flag of note.match(/--[a-z-]+/g)!) expect(r.stdout, flag).toMatch(new RegExp(`^ {2}(-\\w, )?${flag}\\b`, 'm'));
    expect(r.stdout).toMatch(/^ {2}mcp \[options\] /m);
  });

  it('is the root help only: a command help ends with its examples', async () => {
    const r = await runCommand(['cars', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('For AI agents');
    expect(lastParagraph(r.stdout)).toMatch(/^Examples:/);
  });
});

describe('the agent variables documented', () => {
  /** The rows of the table under "Run by an AI agent" in docs/configuration.md, as [variable, value?]. */
  function documented(): Array<[string, string | undefined]> {
    const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const section = page.split(/^### Run by an AI agent$/m)[1]?.split(/^#{2,3} /m)[0];
    expect(section, 'docs/configuration.md has a section "### Run by an AI agent"').toBeDefined();
    const rows = section!.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.length).toBeGreaterThan(5);
    return rows.flatMap((row) =>
      [...row.split('|')[1].matchAll(/`([A-Z_]+)(?:=([^`]+))?`/g)].map(([, variable, value]) => [variable, value] as [string, string | undefined]),
    );
  }

  it('docs/configuration.md lists exactly the variables (and values) the code reads', () => {
    const inCode = AGENT_VARIABLES.map(([variable, , value]) => `${variable}${value === undefined ? '' : `=${value}`}`);
    const inDocs = documented().map(([variable, value]) => `${variable}${value === undefined ? '' : `=${value}`}`);
    expect([...inDocs].sort()).toEqual([...inCode].sort());
    // each once
    expect(new Set(inDocs).size).toBe(inDocs.length);
  });
});
