// Profiles (base URL, app URL, default city, API key) in the OS config directory. The file
// is 0600 and every change is a locked read-modify-write, so two processes changing
// settings at once lose neither change; every write is whole or nothing (atomic-file.ts),
// so a full disk or a crash leaves the previous file intact.
//
// Why not conf (the stack's first choice): conf 15 writes through atomically 2, whose
// writeFileSync ignores the byte count write(2) returns, so on a nearly full disk it renames
// a truncated file over the good one; conf offers no way to plug in another writer. The
// file is small and plain JSON, so reading and writing it here takes a few lines.
// Reading is a plain JSON.parse: every command reads the config, few change it;
// proper-lockfile loads only when something is written.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, usageError } from '../errors.js';
import type { AtomicFs } from './atomic-file.js';
import { LockedFile } from './locked-file.js';
import { configDir } from './paths.js';
import { readRegularFileSync } from './regular-file.js';

export const SETTING_KEYS = ['base_url', 'app_url', 'city'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export interface ProfileData {
  base_url?: string;
  app_url?: string;
  city?: string;
  api_key?: string;
}

interface ConfigShape {
  profiles: Record<string, ProfileData>;
}

export class ConfigStore {
  readonly path: string;

  /** `fs` is for tests, which inject a short write (atomic-file.ts). */
  constructor(
    private readonly dir: string,
    private readonly fs?: AtomicFs,
  ) {
    this.path = join(dir, 'config.json');
  }

  static open(env: NodeJS.ProcessEnv): ConfigStore {
    return new ConfigStore(configDir(env));
  }

  private unreadable(err: unknown): CliError {
    return new CliError('api', `cannot read the config file ${this.path}: ${(err as Error).message}`, {
      hint: 'fix or move the file aside; carrental never overwrites a config it cannot read',
    });
  }

  private unwritable(err: unknown): CliError {
    const code = (err as NodeJS.ErrnoException).code;
    return new CliError('api', `cannot write the config file ${this.path} (${code ?? (err as Error).message}); nothing was changed`, {
      hint: code === 'ENOSPC' ? 'free some disk space and run the command again' : undefined,
      cause: err,
    });
  }

  /** The file as last written, read afresh each time (it is tiny); no file is no profiles. */
  private read(): ConfigShape {
    let text: string | undefined;
    try {
      text = readRegularFileSync(this.path, 'the config file');
    } catch (err) {
      if (err instanceof CliError) throw err;
      throw this.unreadable(err);
    }
    if (text === undefined) return { profiles: {} };
    try {
      const parsed = JSON.parse(text) as Partial<ConfigShape> | null;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
      if (parsed.profiles !== undefined && (typeof parsed.profiles !== 'object' || parsed.profiles === null || Array.isArray(parsed.profiles))) {
        throw new Error('"profiles" is not an object');
      }
      return { ...parsed, profiles: parsed.profiles ?? {} };
    } catch (err) {
      throw this.unreadable(err);
    }
  }

  exists(): boolean {
    return existsSync(this.path);
  }

  /** A warning when the file holding keys is readable by group or others. */
  permissionWarning(): string | undefined {
    try {
      const stats = statSync(this.path);
      // a FIFO or device there is reported (as not a regular file) when the file is read
      if (!stats.isFile()) return undefined;
      const mode = stats.mode & 0o777;
      if (mode & 0o077) {
        return `${this.path} is readable by other users (mode ${mode.toString(8)}); run: chmod 600 "${this.path}"`;
      }
    } catch {
      // no file yet: nothing to warn about
    }
    return undefined;
  }

  profiles(): Record<string, ProfileData> {
    return { ...this.read().profiles };
  }

  profile(name: string): ProfileData {
    return { ...(this.profiles()[name] ?? {}) };
  }

  /**
   * Applies `change` to one profile under a lock; a profile left empty is removed. The
   * file is reread inside the lock and replaced whole (other top-level keys kept), or, on
   * any failure, left exactly as it was.
   */
  async update(name: string, change: (p: ProfileData) => void): Promise<void> {
    const file = new LockedFile({
      path: this.path,
      lockPath: join(this.dir, 'config.lock'),
      what: 'the config file',
      lockWhat: 'the config lock',
      staleMs: 10_000,
      waitMs: 20_000,
      fail: (_action, err) => this.unwritable(err),
      fs: this.fs,
    });
    await file.withLock(async (held) => {
      const data = this.read(); // inside the lock; an unreadable file is never overwritten
      const profiles = { ...data.profiles };
      const p = { ...(profiles[name] ?? {}) };
      change(p);
      for (const k of Object.keys(p) as Array<keyof ProfileData>) if (p[k] === undefined) delete p[k];
      if (Object.keys(p).length) profiles[name] = p;
      else delete profiles[name];
      try {
        // Tab-indented like the conf-written files before it, so diffs stay small.
        held.write(`${JSON.stringify({ ...data, profiles }, null, '\t')}\n`);
      } catch (err) {
        throw err instanceof CliError ? err : this.unwritable(err);
      }
    });
  }
}

export function checkSettingKey(key: string): SettingKey {
  if (key === 'api_key' || key === 'key') {
    throw usageError('the API key is never set on the command line', 'run `carrental auth login` (it prompts, or reads the key from stdin with --with-key)');
  }
  if (!(SETTING_KEYS as readonly string[]).includes(key)) {
    throw usageError(`unknown setting "${key}" (known: ${SETTING_KEYS.join(', ')})`);
  }
  return key as SettingKey;
}

/** Validates a value before it is stored, so a typo fails now and not at the next request. */
export function checkSettingValue(key: SettingKey, value: string): string {
  if (key === 'city') {
    if (value !== 'la' && value !== 'miami') throw usageError(`city must be la or miami, got "${value}"`);
    return value;
  }
  if (key === 'base_url' && value === 'sandbox') return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`${key} must be an http(s) URL${key === 'base_url' ? ' or "sandbox"' : ''}, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`${key} must use http or https, got "${value}"`);
  if (url.username || url.password) throw usageError(`${key} must not contain credentials`);
  const text = value.replace(/\/+$/, '');
  if (key === 'base_url' && !text.endsWith('/v1')) {
    throw usageError(`base_url must end with /v1 (the API version segment), got "${value}"`);
  }
  return text;
}

export { maskKey } from '../text/redact.js';
