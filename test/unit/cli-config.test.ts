import { mkdtempSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** cli/src/config.mjs: where a login is kept, and which credential a command sends where. */
interface ConfigModule {
  configDir(env: Record<string, string | undefined>): string;
  normalizeUrl(raw: string): string;
  saveLogin(url: string, login: Record<string, string>, env: Record<string, string | undefined>): Promise<string>;
  resolveUrl(option: string | undefined, env: Record<string, string | undefined>): Promise<string>;
  resolveCredential(url: string, env: Record<string, string | undefined>, options?: { loginOnly?: boolean }): Promise<{ credential: string; kind: string } | undefined>;
}
const modulePath: string = '../../cli/src/config.mjs';
const config = (await import(modulePath)) as ConfigModule;

const dir = mkdtempSync(join(tmpdir(), 'expohub-cli-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = (extra: Record<string, string> = {}) => ({ EXPOHUB_CONFIG_DIR: join(dir, 'config'), ...extra });

describe('the CLI configuration', () => {
  it('uses EXPOHUB_CONFIG_DIR, else XDG_CONFIG_HOME, else ~/.config', () => {
    expect(config.configDir({ EXPOHUB_CONFIG_DIR: '/x/y' })).toBe('/x/y');
    expect(config.configDir({ XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/expohub');
    expect(config.configDir({})).toMatch(/\/\.config\/expohub$/);
  });

  it.each([
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://api.example.com/api/v1', 'https://api.example.com'],
    ['https://api.example.com/api/v1/?x=1#f', 'https://api.example.com'],
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000'],
  ])('keys logins by the base URL: %s -> %s', (raw, base) => {
    expect(config.normalizeUrl(raw)).toBe(base);
  });

  it.each(['ftp://example.com', 'not a url', 'https://user:pw@example.com'])('refuses %s as a server', (raw) => {
    expect(() => config.normalizeUrl(raw)).toThrow();
  });

  it('sends a stored token only to the server it came from; EXPOHUB_KEY wins; keys commands skip an access key', async () => {
    await config.saveLogin('https://a.example.com', { token: 'jwt-of-a', openid: 'u_a', expires_at: '2027-01-01T00:00:00.000Z' }, env());
    expect(statSync(join(dir, 'config', 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(await config.resolveUrl(undefined, env())).toBe('https://a.example.com');
    expect(await config.resolveCredential('https://a.example.com', env())).toMatchObject({ credential: 'jwt-of-a', kind: 'token' });
    expect(await config.resolveCredential('https://b.example.com', env())).toBeUndefined();
    const key = `ak_${'k'.repeat(32)}`;
    expect(await config.resolveCredential('https://a.example.com', env({ EXPOHUB_KEY: key }))).toMatchObject({ credential: key, kind: 'key' });
    expect(await config.resolveCredential('https://a.example.com', env({ EXPOHUB_KEY: key }), { loginOnly: true })).toMatchObject({ credential: 'jwt-of-a' });
  });

  it('sets a credentials file readable by others back to 600', async () => {
    const file = join(dir, 'config', 'credentials.json');
    chmodSync(file, 0o644);
    await config.resolveCredential('https://a.example.com', env());
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a credentials file that is not one, naming it', async () => {
    const other = join(dir, 'broken');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(other);
    writeFileSync(join(other, 'credentials.json'), '{"logins": null}', { mode: 0o600 });
    await expect(config.resolveCredential('https://a.example.com', { EXPOHUB_CONFIG_DIR: other })).rejects.toThrow(/not an expohub credentials file/);
  });
});
