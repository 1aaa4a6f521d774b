import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PROJECT_ROOT } from './constructs/expohub-function.js';
import { ExpohubStack, settingsFromContext } from './stack.js';

/** The stack of a stage: `Expohub-<stage>` (`-c stage=`, default dev), so stages share an account. */
export const stackName = (stage: string) => `Expohub-${stage}`;

/**
 * Builds the key-management page with web/build.ts when that module exists and returns the output
 * folder; undefined otherwise (the stack then deploys without the page and says so).
 */
export async function buildWebAssets(outDir?: string): Promise<string | undefined> {
  const buildModule = resolve(PROJECT_ROOT, 'web/build.ts');
  if (!existsSync(buildModule)) return undefined;
  const { buildWeb } = (await import(pathToFileURL(buildModule).href)) as { buildWeb: (outDir?: string) => Promise<string> };
  return buildWeb(outDir);
}

export interface CreateAppOptions {
  /** Where the page is built; default web/dist. Tests pass a folder of their own. */
  webOutDir?: string;
}

/** The app as `cdk synth` sees it; the infra tests build it the same way. */
export async function createApp(app = new App(), options: CreateAppOptions = {}): Promise<{ app: App; stack: ExpohubStack }> {
  const settings = settingsFromContext((key) => app.node.tryGetContext(key));
  const stack = new ExpohubStack(app, stackName(settings.stage), {
    settings,
    webAssetsDir: await buildWebAssets(options.webOutDir),
  });
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  return { app, stack };
}

const runDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (runDirectly) {
  const { app } = await createApp();
  app.synth();
}
