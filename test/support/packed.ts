import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A package as a user gets it (test/e2e/cli-package.test.ts, test/e2e/client-package.test.ts): `npm
 * pack` of `packageDir` into `work`, then the tarball installed into an empty project `work/app`, from
 * the tarball only: nothing of the repository, nothing from the network (`--offline`: the packages
 * have no dependencies). `manifest` is written as the project's package.json when given.
 */
export async function packAndInstall(packageDir: string, work: string, manifest?: Record<string, unknown>): Promise<{ tarball: string; app: string }> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: packageDir });
  const tarball = join(work, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
  const app = join(work, 'app');
  mkdirSync(app);
  if (manifest) writeFileSync(join(app, 'package.json'), JSON.stringify(manifest));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: app });
  return { tarball, app };
}
