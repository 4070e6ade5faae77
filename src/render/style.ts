// The terminal styles carrental uses, from chalk. Whether colour is on is decided once,
// in resolveGlobals (--no-color, NO_COLOR, FORCE_COLOR, a TTY), and handed to chalk as a
// level, so chalk's own detection never overrides the user's flags.
import { Chalk } from 'chalk';

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export function makeStyle(enabled: boolean): Style {
  return new Chalk({ level: enabled ? 1 : 0 });
}
