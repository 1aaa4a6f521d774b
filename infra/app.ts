import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PROJECT_ROOT } from './constructs/expohub-function.js';
import { ExpohubEdgeStack } from './edge-stack.js';
import { CLOUDFRONT_REGION } from './regions.js';
import { ExpohubStack, settingsFromContext, type ExpohubSettings } from './stack.js';

/** The stack of a stage: `Expohub-<stage>` (`-c stage=`, default dev), so stages share an account. */
export const stackName = (stage: string) => `Expohub-${stage}`;
const CROSS_STACK_REFERENCES = '@aws-cdk/core:defaultCrossStackReferences';

/** Its us-east-1 companion, when the stage is elsewhere (infra/edge-stack.ts). */
export const edgeStackName = (stage: string) => `${stackName(stage)}-edge`;

/**
 * Whether a stage needs the us-east-1 companion stack: its region is known and is not us-east-1, and
 * it makes a web ACL (no `webAclArn`) or a certificate (a domain with its hosted zone and no
 * `certificateArn`).
 */
export function needsEdgeStack(settings: ExpohubSettings): boolean {
  if (settings.region === undefined || settings.region === CLOUDFRONT_REGION) return false;
  return settings.webAclArn === undefined || (settings.domain !== undefined && settings.domain.certificateArn === undefined);
}

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

/**
 * The app as `cdk synth` sees it; the infra tests build it the same way. The stage's stack goes to
 * the region of `-c region=` or CDK_DEFAULT_REGION (which `cdk deploy` sets from the credentials);
 * outside us-east-1 a companion stack there holds what CloudFront takes from us-east-1 only, and
 * `cdk deploy --all` deploys both. With no region known the stack is environment-agnostic and must
 * be deployed to us-east-1 (a template rule checks it).
 */
export async function createApp(
  app = new App(),
  options: CreateAppOptions = {},
  environment: NodeJS.ProcessEnv = process.env,
): Promise<{ app: App; stack: ExpohubStack; edge?: ExpohubEdgeStack }> {
  const settings = settingsFromContext((key) => app.node.tryGetContext(key), environment);
  // The companion stack's values reach the stage's stack as strong references: CloudFormation keeps
  // the web ACL and certificate while the stage uses them.
  if (app.node.tryGetContext(CROSS_STACK_REFERENCES) === undefined) app.node.setContext(CROSS_STACK_REFERENCES, 'strong');
  const name = stackName(settings.stage);
  const env = settings.region === undefined ? undefined : { account: environment.CDK_DEFAULT_ACCOUNT || undefined, region: settings.region };
  const edge = needsEdgeStack(settings) ? new ExpohubEdgeStack(app, edgeStackName(settings.stage), { settings, consumerStackName: name, env }) : undefined;
  const stack = new ExpohubStack(app, name, {
    settings,
    env,
    crossRegionReferences: edge !== undefined,
    cloudFront: edge?.cloudFront,
    webAssetsDir: await buildWebAssets(options.webOutDir),
  });
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  return { app, stack, edge };
}

const runDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (runDirectly) {
  const { app } = await createApp();
  app.synth();
}
