// stryker.config.mjs mutates the MCP write path by line ranges; this keeps them on the
// functions they are meant for when src/mcp/tools/booking.ts or server.ts change.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs config without types
import config from '../../stryker.config.mjs';

const lines = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n');

describe('mutation testing config', () => {
  it('its line ranges cover exactly the reserve and cancel_reservation tools and callTool', () => {
    const ranges = ((config as { mutate: string[] }).mutate).filter((m) => m.includes(':'));
    const expected: Array<[RegExp, RegExp]> = [
      [/^ {4}async run\(args: TripArgs & \{ confirmation\?/, /^ {4}},$/],
      [/^ {4}async run\(args: \{ reservation_uuid: string; confirmation\?/, /^ {4}},$/],
      [/^async function callTool\(/, /^}$/],
    ];
    expect(ranges).toHaveLength(expected.length);
    ranges.forEach((range, i) => {
      const [, file, from, to] = /^(.+):(\d+)-(\d+)$/.exec(range)!;
      const text = lines(file);
      expect(text[Number(from) - 1], range).toMatch(expected[i][0]);
      expect(text[Number(to) - 1], range).toMatch(expected[i][1]);
      expect(text.slice(Number(from), Number(to) - 1).some((l) => expected[i][1].test(l)), range).toBe(false);
    });
  });
});
