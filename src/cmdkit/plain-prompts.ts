// The prompts of the accessible mode (CARRENTAL_ACCESSIBLE=1, TERM=dumb), after gh's
// accessible prompter: every question is a line of text and every answer a typed line
// (a number from a numbered list, or text), read in the terminal's own line mode. No arrow
// keys, no raw mode, nothing redrawn or erased: a screen reader reads each line once, in
// order, and a terminal that cannot move the cursor shows the same.
import { createInterface } from 'node:readline';
import type { Context } from '../session/context.js';
import { CliError } from '../errors.js';
import type { Choice, Prompter } from './reserve-prompts.js';

/** A list longer than this asks for words to narrow it before it is read out. */
export const LIST_AT_MOST = 20;

export function plainPrompter(ctx: Context): Prompter {
  const out = ctx.globals.json ? ctx.io.stderr : ctx.io.stdout;
  const say = (text: string) => out.write(`${text}\n`);
  const lines: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let ended = false;
  let reader: ReturnType<typeof createInterface> | undefined;

  /** The next typed line; one reader for the whole command, so lines typed ahead are kept. */
  const ask = (question: string): Promise<string> => {
    out.write(question);
    if (!reader) {
      // terminal: false: readline neither echoes nor redraws; the terminal's line mode does
      reader = createInterface({ input: ctx.io.stdin, terminal: false });
      reader.on('line', (line) => (waiting ? waiting(line) : lines.push(line)));
      reader.on('close', () => {
        ended = true;
        waiting?.(undefined);
      });
      ctx.onCleanup(() => reader?.close());
    }
    if (lines.length) return Promise.resolve(lines.shift()!);
    if (ended) return Promise.reject(noAnswer());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        waiting = undefined;
        reject(new CliError('interrupted', 'interrupted'));
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      waiting = (line) => {
        waiting = undefined;
        ctx.signal.removeEventListener('abort', onAbort);
        if (line === undefined) reject(noAnswer());
        else resolve(line);
      };
    });
  };

  const list = <T>(choices: Choice<T>[]) => choices.forEach((c, i) => say(`  ${i + 1}. ${c.name}`));
  const pickNumber = (text: string, count: number) => {
    const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
    return n >= 1 && n <= count ? n - 1 : undefined;
  };

  const prompter: Prompter = {
    async select<T>(message: string, choices: Choice<T>[], defaultValue?: T) {
      const d = choices.findIndex((c) => c.value === defaultValue);
      say(`${message}:`);
      list(choices);
      for (;;) {
        const answer = (await ask(`Type a number from 1 to ${choices.length}${d >= 0 ? `, or press Enter for ${d + 1}` : ''}: `)).trim();
        if (answer === '' && d >= 0) return choices[d].value;
        const i = pickNumber(answer, choices.length);
        if (i !== undefined) return choices[i].value;
        say(`"${answer}" is not a number from 1 to ${choices.length}.`);
      }
    },

    async search<T>(message: string, choices: Choice<T>[]) {
      say(`${message}:`);
      let shown = choices;
      for (;;) {
        if (shown.length <= LIST_AT_MOST) {
          list(shown);
          const answer = (await ask(`Type a number from 1 to ${shown.length}, or words to search all ${choices.length}: `)).trim();
          const i = pickNumber(answer, shown.length);
          if (i !== undefined) return shown[i].value;
          if (answer === '') continue;
          shown = narrow(choices, answer, say) ?? shown;
        } else {
          const answer = (await ask(`${shown.length} to choose from: type words to narrow the list (a name, a make, a seat count): `)).trim();
          if (answer !== '') shown = narrow(choices, answer, say) ?? shown;
        }
      }
    },

    async input(message, opts = {}) {
      for (;;) {
        const typed = await ask(`${message}${opts.defaultValue !== undefined ? ` [Enter for ${opts.defaultValue}]` : ''}: `);
        const value = typed.trim() === '' && opts.defaultValue !== undefined ? opts.defaultValue : typed;
        const verdict = opts.validate ? opts.validate(value) : true;
        if (verdict === true) return value;
        say(verdict);
      }
    },

    async checkbox<T>(message: string, choices: Choice<T>[]) {
      say(`${message.replace(/ \(space to select, enter to continue\)$/, '')}:`);
      list(choices);
      for (;;) {
        const answer = (await ask('Type the numbers you want, separated by spaces or commas, or press Enter for none: ')).trim();
        if (answer === '') return [];
        const picked = answer.split(/[\s,]+/).map((w) => pickNumber(w, choices.length));
        if (picked.every((i) => i !== undefined)) return [...new Set(picked as number[])].sort((a, b) => a - b).map((i) => choices[i].value);
        say(`"${answer}": type numbers from 1 to ${choices.length}.`);
      }
    },

    async confirm(message, defaultValue) {
      for (;;) {
        const answer = (await ask(`${message} Type yes or no${defaultValue ? ' (Enter for yes)' : ' (Enter for no)'}: `)).trim().toLowerCase();
        if (answer === '') return defaultValue;
        if (answer === 'y' || answer === 'yes') return true;
        if (answer === 'n' || answer === 'no') return false;
        say(`"${answer}": type yes or no.`);
      }
    },
  };
  return prompter;
}

/** The choices whose name holds every typed word; undefined (and a message) when none does. */
function narrow<T>(choices: Choice<T>[], typed: string, say: (text: string) => void): Choice<T>[] | undefined {
  const words = typed.toLowerCase().split(/\s+/);
  const found = choices.filter((c) => words.every((w) => c.name.toLowerCase().includes(w)));
  if (found.length === 0) {
    say(`Nothing matches "${typed}".`);
    return undefined;
  }
  say(`${found.length} match "${typed}":`);
  return found;
}

function noAnswer(): CliError {
  return new CliError('usage', 'no answer: the input ended before the question was answered', { hint: 'give the missing values as options (see --help)' });
}

/**
 * A secret (the API key) in the accessible mode: the question as a line, the answer typed
 * without echo and without a mask redrawn per key (what inquirer's password prompt does),
 * then one line that says how many characters were read. Raw mode only turns the echo off;
 * Enter ends it, Backspace removes a character, Ctrl-C is interrupted, Ctrl-D ends the input.
 */
export async function readSecret(ctx: Context, message: string): Promise<string> {
  const { stdin, stderr } = ctx.io;
  if (stdin.readableEnded) throw noAnswer();
  stderr.write(`${message} (typing is not shown; press Enter when done): `);
  stdin.setRawMode?.(true);
  try {
    const typed = await new Promise<string>((resolve, reject) => {
      let text = '';
      const finish = (fn: () => void) => {
        stdin.off('data', onData);
        stdin.off('end', onEnd);
        ctx.signal.removeEventListener('abort', onAbort);
        fn();
      };
      const onData = (chunk: Buffer | string) => {
        const chars = [...chunk.toString()];
        for (const [i, ch] of chars.entries()) {
          if (ch === '\r' || ch === '\n' || ch === '\u0004') {
            // what was typed after Enter (a paste of several lines) is left for the next question
            const rest = chars.slice(i + 1).join('').replace(/^\n/, '');
            return finish(() => {
              // paused first: a flowing stream would hand the rest to no one
              stdin.pause();
              if (rest) stdin.unshift(Buffer.from(rest));
              resolve(text);
            });
          }
          if (ch === '\u0003') return finish(() => reject(new CliError('interrupted', 'interrupted')));
          if (ch === '\u007f' || ch === '\b') text = [...text].slice(0, -1).join('');
          else if (ch >= ' ') text += ch;
        }
      };
      const onEnd = () => finish(() => (text ? resolve(text) : reject(noAnswer())));
      const onAbort = () => finish(() => reject(new CliError('interrupted', 'interrupted')));
      stdin.on('data', onData);
      stdin.on('end', onEnd);
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      stdin.resume();
    });
    stderr.write(`\n${typed.length} characters read.\n`);
    return typed;
  } finally {
    stdin.setRawMode?.(false);
    stdin.pause();
  }
}
