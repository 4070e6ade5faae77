// The few terminal styles carrental uses. Six SGR pairs do not need chalk, whose
// colour-support detection costs several milliseconds of every start-up; whether colour is
// on is decided once, in resolveGlobals (--no-color, NO_COLOR, FORCE_COLOR, a TTY).

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

const ON: Style = { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) };
const same = (text: string) => text;
const OFF: Style = { bold: same, dim: same, red: same, green: same, yellow: same, cyan: same };

export function makeStyle(enabled: boolean): Style {
  return enabled ? ON : OFF;
}
