import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { buildWeb } from '../../web/build.js';
import { apiClient, startTestStack } from './stack.js';

/**
 * A browser test file's setup (docs/web.md, "Tests"): the page built into a temporary folder, the
 * real local server serving it (this file's own DynamoDB Local tables) and Debian's Chromium, all
 * started before the file's tests and stopped after them. Each test's browser contexts are closed
 * after it, and the test fails if the page threw an error meanwhile.
 */
export function useWebStack(options: { env?: Record<string, string> } = {}) {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let api: ReturnType<typeof apiClient>;
  let browser: Browser;
  let buildDir: string;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    buildDir = await mkdtemp(join(tmpdir(), 'expohub-web-'));
    stack = await startTestStack({ staticDir: await buildWeb(buildDir), env: options.env });
    api = apiClient(stack.url);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    expect(pageErrors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    if (buildDir) await rm(buildDir, { recursive: true, force: true });
  });

  return {
    /** The server's base URL. */
    url: () => stack.url,
    /** A client of the same server (test/support/stack.ts). */
    api: () => api,
    /** A page in a browser context of its own, on the server's origin. */
    async openPage(contextOptions: BrowserContextOptions = {}): Promise<Page> {
      const context = await browser.newContext({ baseURL: stack.url, locale: 'en-GB', ...contextOptions });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      return page;
    },
  };
}
