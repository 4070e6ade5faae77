// `carrental help <topic>`: a section of the manual, as plain text. The section is read from
// the docs/ shipped with carrental (the package's docs/, two levels up from this module in
// src/commands/ as in dist/commands/ or dist/chunks/). `help` alone and `help <command>` are
// commander's help (src/cli/main.ts) and never load this module.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { HELP_TOPICS, type HelpTopic } from '../cmdkit/help-topics.js';
import { CliError, usageError } from '../errors.js';
import { renderMarkdown, section } from '../render/markdown.js';

export const DOCS_DIR = new URL('../../docs/', import.meta.url);

/** Tables fit this width: a terminal's, within 60..100, else 100. */
export const TOPIC_WIDTH = 100;

/** The topic's text as `carrental help <topic>` prints it. */
export async function topicText(topic: HelpTopic, width = TOPIC_WIDTH): Promise<string> {
  const file = new URL(topic.page, DOCS_DIR);
  const page = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
    // a copy of carrental packed without its manual
    throw new CliError('api', `the manual is not installed with this carrental: ${fileURLToPath(file)} is missing`, {
      hint: '`carrental <command> --help` still works; the manual is docs/ in the source repository',
    });
  });
  const markdown = section(page, topic.anchor);
  if (markdown === undefined) throw new Error(`docs/${topic.page} has no section #${topic.anchor} for the help topic ${topic.name}`);
  const body = renderMarkdown(markdown, { width, linkNote: (target) => noteFor(target, topic.page) });
  return `${body}\nManual: docs/${topic.page}#${topic.anchor}\nTopics: carrental help\n`;
}

/** A link in a topic points the terminal reader at a topic, or at the page of the manual. */
function noteFor(target: string, from: string): string | undefined {
  if (/^[a-z]+:/i.test(target)) return target;
  const [file, anchor] = target.split('#');
  const page = file === '' ? from : file.replace(/^\.\//, '');
  const topic = HELP_TOPICS.find((t) => t.page === page && t.anchor === anchor);
  if (topic) return `carrental help ${topic.name}`;
  if (!page.endsWith('.md') || page.includes('/')) return undefined;
  return `docs/${page}${anchor ? `#${anchor}` : ''}`;
}

/** Edits (insert, delete, replace, swap two neighbours) between two words. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The topic or command a typo most likely meant: the nearest within a third of its length (at least 2 edits), or a name it begins. */
export function nearestName(typed: string, names: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = name.startsWith(word) && word.length >= 3 ? 0.5 : editDistance(word, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(word.length / 3)) ? best.name : undefined;
}

export async function run(input: InputOf<'help'>, ctx: Context): Promise<number> {
  const topic = HELP_TOPICS.find((t) => t.name === input.topic);
  if (!topic) {
    // loaded only here: the command tree, for the names a typo may have meant
    const { COMMANDS } = await import('../cmdkit/command-specs.js');
    const names = [...HELP_TOPICS.map((t) => t.name), ...COMMANDS.filter((c) => !c.hidden && c.name !== 'help').map((c) => c.name)];
    const near = input.topic ? nearestName(input.topic, names) : undefined;
    throw usageError(
      `unknown help topic "${input.topic ?? ''}" (topics: ${HELP_TOPICS.map((t) => t.name).join(', ')})`,
      near ? `did you mean \`carrental help ${near}\`?` : '`carrental help` lists the commands and topics; `carrental help <command>` shows one command',
    );
  }
  const columns = ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined;
  ctx.io.stdout.write(await topicText(topic, columns ? Math.min(Math.max(columns - 1, 60), TOPIC_WIDTH) : TOPIC_WIDTH));
  return 0;
}
