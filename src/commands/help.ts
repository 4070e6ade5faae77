// `carrental help <topic>`: a section of the manual, as plain text. The section is read from
// the docs/ shipped with carrental (the package's docs/, two levels up from this module in
// src/commands/ as in dist/commands/ or dist/chunks/). `help` alone and `help <command>` are
// commander's help (src/cli/main.ts) and never load this module.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { InputOf } from '../cli/commands.js';
import type { Context } from '../cli/context.js';
import { HELP_TOPICS, type HelpTopic } from '../cli/help-topics.js';
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

export async function run(input: InputOf<'help'>, ctx: Context): Promise<number> {
  const topic = HELP_TOPICS.find((t) => t.name === input.topic);
  if (!topic) {
    throw usageError(
      `unknown help topic "${input.topic ?? ''}" (topics: ${HELP_TOPICS.map((t) => t.name).join(', ')})`,
      '`carrental help` lists the commands and topics; `carrental help <command>` shows one command',
    );
  }
  const columns = ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined;
  ctx.io.stdout.write(await topicText(topic, columns ? Math.min(Math.max(columns - 1, 60), TOPIC_WIDTH) : TOPIC_WIDTH));
  return 0;
}
