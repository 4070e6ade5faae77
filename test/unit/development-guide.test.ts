// docs/development.md is a guide, not a log (issue 37): at most 300 lines, and nothing in it
// contradicts the code. Every repository path it names exists, every `npm run` script is in
// package.json, every `carrental ...` command it shows is declared, every test it names is
// a file (a recipe's "what fails if a step is missed" must be there to fail).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, type CommandSpec } from '../../src/cmdkit/command-specs.js';
import { ROOT } from '../helpers/bin.js';

const GUIDE = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
const SCRIPTS = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts);

const PATH = /(?<![\w./<-])((?:src|test|scripts|bench|bin|docs|completions|\.ci)\/[\w./<>-]*|(?:package\.json|vitest\.config\.ts|stryker\.config\.mjs|README\.md))/g;

/** The repository paths a text names (`src/x/y.ts`, `test/unit/`), placeholders (`<name>`) and globs left out. */
export function pathsIn(text: string): string[] {
  return [...new Set([...text.matchAll(PATH)].map(([, p]) => p.replace(/[.,:;)]+$/, '')))].filter((p) => !/[<>*]/.test(p));
}

/** What of a text does not exist: missing paths, unknown npm scripts, undeclared carrental commands. */
// a path without an extension names a module as an import does: the file (`.ts`) or the folder
export function contradictions(text: string, exists = (path: string) => existsSync(join(ROOT, path)) || existsSync(join(ROOT, `${path}.ts`))): string[] {
  const missing = pathsIn(text).filter((p) => !exists(p));
  const scripts = [...text.matchAll(/npm run ([\w:-]+)/g)].map(([, s]) => s).filter((s) => !SCRIPTS.includes(s));
  const names = (specs: CommandSpec[]): string[] => specs.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
  const commands = [...text.matchAll(/`carrental((?: [a-z][\w-]*)+)/g)]
    .map(([, words]) => words.trim().split(' '))
    .filter((words) => {
      // a command and, where it has them, a subcommand; what follows is arguments
      const top = COMMANDS.find((c) => names([c]).includes(words[0]));
      if (!top) return true;
      return !!top.subcommands && words[1] !== undefined && !top.subcommands.some((s) => names([s]).includes(words[1]));
    })
    .map((words) => `carrental ${words.join(' ')}`);
  return [...missing.map((p) => `no such path: ${p}`), ...scripts.map((s) => `no npm script: ${s}`), ...commands.map((c) => `no such command: ${c}`)];
}

describe('docs/development.md', () => {
  it('is at most 300 lines', () => {
    expect(GUIDE.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('names only paths, scripts and commands that exist', () => {
    expect(pathsIn(GUIDE).length).toBeGreaterThan(40);
    expect(contradictions(GUIDE)).toEqual([]);
  });

  it('has the four recipes, each naming the test that catches a missed step', () => {
    const recipes = GUIDE.split('\n### ').slice(1);
    expect(recipes.map((r) => r.split('\n')[0])).toEqual(['A new API operation', 'A new command', 'A new MCP tool', 'A new sandbox rule']);
    for (const recipe of recipes) expect(pathsIn(recipe).filter((p) => /\.test\.ts$/.test(p)).length, recipe.split('\n')[0]).toBeGreaterThan(0);
  });

  it('catches a path, a script and a command that do not exist, and leaves placeholders alone', () => {
    const text = 'See `src/cli/nosuch.ts`, `test/unit/layers.test.ts`, `src/commands/<name>.ts`; run `npm run nosuch` and `npm run build`; `carrental cars --json`, `carrental nosuch`, `carrental sandbox nosuch`, `carrental sandbox serve`.';
    expect(contradictions(text)).toEqual(['no such path: src/cli/nosuch.ts', 'no npm script: nosuch', 'no such command: carrental nosuch', 'no such command: carrental sandbox nosuch']);
  });
});
