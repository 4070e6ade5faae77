// The built CLI, with a stdout that refuses the result after a booking: a closed pipe
// (`carrental reserve … | false`) and a full disk (/dev/full). The booking must be named on
// stderr, exit 7, and nothing left pending: the launcher's quiet exit on EPIPE (right for
// `cars | head`) must not swallow it. The same for a cancellation: exit 7 naming the
// reservation, cancelled, its journal entry completed. Only the command whose stdout fails
// is spawned; what sets it up and reads the outcome after runs in-process, on the same home
// (the same embedded sandbox state and journal).
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/bin.js';
import { runCommand, TestHome } from '../helpers/cli.js';

let home: TestHome;
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

const UUID = /reserved ([0-9a-f-]{36}), but printing the result failed/;

/** `carrental --sandbox <argv>` in-process, in the test's home: its stdout, trimmed. */
async function sandbox(argv: string[]): Promise<string> {
  const r = await runCommand(['--sandbox', ...argv], { env: home.env() });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

function spawnWith(stdout: 'closed-pipe' | number, argv: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], { env: home.env(), stdio: ['ignore', stdout === 'closed-pipe' ? 'pipe' : stdout, 'pipe'] });
    // the reader goes away before anything is written
    if (stdout === 'closed-pipe') child.stdout!.destroy();
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

async function anAlias(): Promise<string> {
  return sandbox(['cars', '--city', 'la', '--limit', '1', '--jq', '.cars[0].car_alias']);
}

async function pending(): Promise<string> {
  return sandbox(['pending', '--json']);
}

describe('reserve with a stdout that fails', () => {
  it('a closed pipe: exit 7, the uuid on stderr, nothing pending', async () => {
    const alias = await anAlias();
    const r = await spawnWith('closed-pipe', ['--sandbox', 'reserve', alias, '--from', '+10d 10:00', '--days', '2', '-y']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(UUID);
    expect(JSON.parse(await pending())).toEqual([]);
  });

  it('a full disk (/dev/full): exit 7, the uuid on stderr', async () => {
    const alias = await anAlias();
    const fd = openSync('/dev/full', 'w');
    try {
      const r = await spawnWith(fd, ['--sandbox', 'reserve', alias, '--from', '+12d 10:00', '--days', '2', '-y', '--json']);
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toMatch(UUID);
      expect(r.stderr).toContain('ENOSPC');
    } finally {
      closeSync(fd);
    }
  });
});


/** A fresh reservation in the embedded sandbox of the test's home. */
async function reserved(from: string): Promise<string> {
  const alias = await sandbox(['cars', '--city', 'la', '--limit', '1', '--jq', '.cars[0].car_alias']);
  const uuid = await sandbox(['reserve', alias, '--from', from, '--days', '2', '-y', '--jq', '.uuid']);
  expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
  return uuid;
}

async function expectCancelledAndNothingPending(uuid: string) {
  expect(JSON.parse(await sandbox(['pending', '--json']))).toEqual([]);
  expect(await sandbox(['trips', uuid, '--jq', '.status'])).toBe('cancelled');
}

describe('cancel with a stdout that fails', () => {
  it('a closed pipe: exit 7 naming the reservation, cancelled, nothing pending', async () => {
    const uuid = await reserved('+10d 10:00');
    const r = await spawnWith('closed-pipe', ['--sandbox', 'cancel', uuid, '-y']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain(`error: cancelled reservation ${uuid}, but printing the result failed`);
    await expectCancelledAndNothingPending(uuid);
  });

  it('a full disk (/dev/full) with --json: exit 7 naming the reservation, cancelled, nothing pending', async () => {
    const uuid = await reserved('+12d 10:00');
    const fd = openSync('/dev/full', 'w');
    try {
      const r = await spawnWith(fd, ['--sandbox', 'cancel', uuid, '-y', '--json']);
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toContain(`cancelled reservation ${uuid}, but printing the result failed`);
      expect(r.stderr).toContain('ENOSPC');
    } finally {
      closeSync(fd);
    }
    await expectCancelledAndNothingPending(uuid);
  });
});
