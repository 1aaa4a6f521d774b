import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { freePort } from '../../local/dynamodb-local.js';

/**
 * Stoplight Prism (a validator this project did not write) as a validating proxy in front of a local
 * server: `prism proxy <document> <upstream> --errors`. A request the document refuses is answered
 * by Prism itself (422, or 401 for a missing credential, as `application/problem+json`) and never
 * reaches the server; an answer the document does not allow is replaced by Prism's 500 listing the
 * violations; any violation, request or response, is listed in the `sl-violations` header
 * (docs/testing.md, "The conformance test").
 */
export interface PrismProxy {
  url: string;
  stop(): Promise<void>;
}

const PRISM = join(import.meta.dirname, '../../node_modules/@stoplight/prism-cli/dist/index.js');

/** Starts Prism on a free port and waits (bounded) until it answers through to the upstream. */
export async function startPrismProxy(documentUrl: string, upstream: string): Promise<PrismProxy> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [PRISM, 'proxy', documentUrl, upstream, '--errors', '--port', String(port), '--host', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const exited = once(child, 'exit');
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  // Prism reads and compiles the document before it listens: wait for its first forwarded answer.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited with ${child.exitCode}:\n${output}`);
    const answered = await fetch(`${url}/api/v1/health`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (answered) return { url, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prism did not answer within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
