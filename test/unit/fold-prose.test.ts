// Prose on a terminal is folded at spaces to its width, so nothing wraps in the middle of a
// word; a command in it is never split, so it still copies whole into a shell.
import { describe, expect, it } from 'vitest';
import { foldProse } from '../../src/render/table.js';

describe('foldProse', () => {
  it('folds at spaces, no line wider than the width; a line that fits is left alone', () => {
    const note = 'note: amounts keep the sign of the billing ledger as the API records it (a charge against the customer can be negative); discounts are negative line items.';
    const folded = foldProse(note, 60);
    expect(folded.length).toBeGreaterThan(1);
    for (const line of folded) expect(line.length).toBeLessThanOrEqual(60);
    expect(folded.join(' ')).toBe(note);
    expect(foldProse('short line', 60)).toEqual(['short line']);
    expect(foldProse('one\ntwo', 60)).toEqual(['one', 'two']);
  });

  it('keeps a backticked command and a bare command tail in one piece', () => {
    const next = 'next: the customer pays on the page from `carrental --sandbox pay-link 0b4852a1-1b05-42e2-9d0f-e74bf9033781`; then re-read.';
    const folded = foldProse(next, 60);
    expect(folded).toContain('`carrental --sandbox pay-link 0b4852a1-1b05-42e2-9d0f-e74bf9033781`;');
    const same = "the same without prompts: carrental reserve bmw-x5-1018 --from '2026-11-02 10:00' --days 3";
    expect(foldProse(same, 60)).toEqual(['the same without prompts:', "carrental reserve bmw-x5-1018 --from '2026-11-02 10:00' --days 3"]);
    expect(foldProse('something needs you: run it again and then check with carrental doctor', 60)).toEqual(['something needs you: run it again and then check with', 'carrental doctor']);
  });

  it('keeps the indentation of the first line', () => {
    expect(foldProse('    a b c d e f g h i j k l m n o p', 12)[0]).toMatch(/^ {4}a b c/);
  });

  it('folds the word carrental inside a sentence like any other (issue 36: pay-link\'s note broke after "a")', () => {
    const note = 'The sandbox serves this page only while a carrental sandbox runs on port 4780: keep `carrental sandbox serve` running in another terminal (or use --wait) before opening it.';
    for (const width of [60, 80]) {
      const folded = foldProse(note, width);
      for (const line of folded) expect(line.length, line).toBeLessThanOrEqual(width);
      expect(folded.join(' ')).toBe(note);
      expect(folded[0]).toMatch(/a carrental sandbox|a carrental$|while a$/.source ? /^The sandbox serves this page only while a/ : /x/);
      expect(folded[0].length).toBeGreaterThan(width - 15);
    }
  });

  it('a command after a label or alone on its line stays whole; one inside a sentence is prose', () => {
    expect(foldProse('next: carrental --sandbox pay-link 0b4852a1-1b05-42e2-9d0f-e74bf9033781 --type deposit', 60)).toEqual([
      'next:',
      'carrental --sandbox pay-link 0b4852a1-1b05-42e2-9d0f-e74bf9033781 --type deposit',
    ]);
    expect(foldProse('when a carrental process holds the lock and the other carrental waits for it to finish its write', 40).every((l) => l.length <= 40)).toBe(true);
  });
});

