// The help topics: sections of the manual (docs/) that `carrental help <topic>` prints in the
// terminal. Only their names and summaries are here, for `--help` and completion; the text
// is read from the shipped docs/ page when a topic is asked for (src/commands/help.ts), so
// the terminal and the manual never disagree.
export interface HelpTopic {
  name: string;
  summary: string;
  /** The page under docs/ and the anchor of its section (as in a link: `scripting.md#exit-codes`). */
  page: string;
  anchor: string;
}

export const HELP_TOPICS: readonly HelpTopic[] = [
  { name: 'environment', summary: 'environment variables carrental reads', page: 'configuration.md', anchor: 'environment-variables' },
  { name: 'exit-codes', summary: 'what each exit status means, and when a rerun is safe', page: 'scripting.md', anchor: 'exit-codes' },
  { name: 'files', summary: 'the files carrental writes and where they live', page: 'configuration.md', anchor: 'files-carrental-writes' },
  {
    name: 'formatting',
    summary: 'output on a terminal and in a pipe; --json, fields and --jq',
    page: 'scripting.md',
    anchor: 'output-and-formatting---json-fields-and---jq',
  },
  { name: 'idempotency', summary: 'why rerunning reserve or cancel is safe', page: 'reliability.md', anchor: 'idempotency' },
];
