// The `$ carrental` lines of a page's `console` blocks, read without running anything: the
// executed examples (examples.ts, which needs the build) and the in-process checks of what
// the pages name (test/sandbox/seed-day.test.ts, which must not) both read them here.

export interface Example {
  /** 1-based line of the README where the command starts. */
  line: number;
  command: string;
  expectedCode: number;
  untilInterrupt: boolean;
}

/** Extracts the `$ carrental` lines of the `console` blocks of a markdown document. */
export function extractExamples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i];
    if (fence === undefined) {
      const open = /^\s*(`{3,}|~{3,})\s*console\s*$/.exec(text);
      if (open) fence = open[1];
      continue;
    }
    if (text.trim().startsWith(fence) && text.trim().replace(/[`~]/g, '') === '') {
      fence = undefined;
      continue;
    }
    const start = /^\s*\$ (carrental\b.*)$/.exec(text);
    if (!start) continue;
    let command = start[1];
    const first = i;
    while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)}${lines[++i].trim()}`;
    const exit = /#\s*exit\s+(\d+)\s*$/.exec(command);
    examples.push({
      line: first + 1,
      command: command.trim(),
      expectedCode: exit ? Number(exit[1]) : 0,
      untilInterrupt: /#.*until ctrl-c/i.test(command),
    });
  }
  if (fence !== undefined) throw new Error('a console block is not closed');
  return examples;
}
