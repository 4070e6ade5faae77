// Server strings are untrusted: an escape sequence in a car name must not repaint the
// user's terminal, and a bidirectional override must not make text read differently from
// what it is. Strip ANSI sequences (7- and 8-bit), every C0/C1 control character and the
// bidi controls. The same goes for what the user typed when an error message echoes it.

// eslint-disable-next-line no-control-regex
const ANSI_RE = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
/** Bidi embeddings, overrides and isolates, and the invisible direction marks (ALM, LRM, RLM). */
const BIDI_RE = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_WITH_NEWLINE_RE = /[\u0000-\u001f\u007f-\u009f]/g;
/** The Unicode line and paragraph separators: line breaks to some readers, nothing to others. */
const SEPARATOR_RE = /[\u2028\u2029]/g;

/** For a table cell or a one-line value: no control characters at all (newlines become spaces). */
export function clean(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value).replace(ANSI_RE, '').replace(BIDI_RE, '').replace(/[\r\n\t\u2028\u2029]+/g, ' ').replace(CONTROL_WITH_NEWLINE_RE, '');
}

/** For multi-line text such as a description: keeps newlines and tabs, drops the rest. */
export function cleanText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value).replace(ANSI_RE, '').replace(BIDI_RE, '').replace(/\r\n?/g, '\n').replace(SEPARATOR_RE, '\n').replace(CONTROL_RE, '');
}

// eslint-disable-next-line no-control-regex
const UNSAFE_CHAR_RE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * For --debug traces, which must show what arrived: every control, bidi and separator
 * character becomes a visible `\u001b`-style escape, so the trace is one terminal-safe line
 * that still says exactly which bytes the server sent.
 */
export function visible(value: string): string {
  return value.replace(UNSAFE_CHAR_RE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
