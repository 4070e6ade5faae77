// Profiles (base URL, app URL, default city, API key) in the OS config directory, through
// conf. The file is 0600 and every change is a locked read-modify-write, so two processes
// changing settings at once lose neither change; conf writes atomically.
//
// Reading is a plain JSON.parse of the file conf writes: every command reads the config,
// few change it, and loading conf (with ajv) and proper-lockfile costs ~25 ms of start-up.
// Both load only when something is written.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Conf from 'conf';
import { CliError, usageError } from '../errors.js';
import { configDir } from './paths.js';

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
  private confInstance?: Conf<ConfigShape>;

  constructor(private readonly dir: string) {
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

  /** The file as conf wrote it, read afresh each time (it is tiny); no file is no profiles. */
  private read(): ConfigShape {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
      throw this.unreadable(err);
    }
    try {
      const parsed = JSON.parse(text) as Partial<ConfigShape> | null;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
      return { ...parsed, profiles: parsed.profiles ?? {} };
    } catch (err) {
      throw this.unreadable(err);
    }
  }

  // Opened only to write, so that a read-only command (a CI smoke check) never creates a
  // config by accident.
  private async conf(): Promise<Conf<ConfigShape>> {
    if (this.confInstance) return this.confInstance;
    this.read(); // a file conf could not parse is reported the same way as on a read
    const { default: Conf } = await import('conf');
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.confInstance = new Conf<ConfigShape>({
        cwd: this.dir,
        configName: 'config',
        projectName: 'carrental',
        configFileMode: 0o600,
        clearInvalidConfig: false,
        accessPropertiesByDotNotation: false,
      });
    } catch (err) {
      throw this.unreadable(err);
    }
    return this.confInstance;
  }

  exists(): boolean {
    return existsSync(this.path);
  }

  /** A warning when the file holding keys is readable by group or others. */
  permissionWarning(): string | undefined {
    try {
      const mode = statSync(this.path).mode & 0o777;
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

  /** Applies `change` to one profile under a lock; a profile left empty is removed. */
  async update(name: string, change: (p: ProfileData) => void): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const { default: lockfile } = await import('proper-lockfile');
    const release = await lockfile.lock(this.dir, {
      lockfilePath: join(this.dir, 'config.lock'),
      realpath: false,
      stale: 10_000,
      retries: { retries: 50, factor: 1.3, minTimeout: 20, maxTimeout: 500 },
    });
    try {
      const profiles = this.profiles(); // rereads the file inside the lock
      const p = { ...(profiles[name] ?? {}) };
      change(p);
      for (const k of Object.keys(p) as Array<keyof ProfileData>) if (p[k] === undefined) delete p[k];
      if (Object.keys(p).length) profiles[name] = p;
      else delete profiles[name];
      (await this.conf()).set('profiles', profiles);
      chmodSync(this.path, 0o600);
    } finally {
      await release();
    }
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

export { maskKey } from '../api/redact.js';
