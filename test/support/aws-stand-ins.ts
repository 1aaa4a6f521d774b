import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local stand-ins for the AWS services the functions call besides DynamoDB, speaking each service's
 * wire protocol, so that the real SDK clients of lib/ talk to them through their endpoint setting
 * (`AWS_ENDPOINT_URL_SNS`, `AWS_ENDPOINT_URL_SECRETS_MANAGER`). Each answers the way the service
 * does when it works, fails (5xx), throttles, or is not there at all.
 */
/** `not-ready`: the Parameters and Secrets extension still starting (a 400 naming no Secrets Manager error); the SNS stand-in answers it as `ok`. */
export type StandInMode = 'ok' | 'internal-error' | 'throttled' | 'down' | 'not-ready';

export interface StandIn<Req> {
  /** The endpoint URL to give the SDK. */
  url: string;
  /** Every request received, parsed, in order (failed ones included). */
  received: Req[];
  mode: StandInMode;
  /** `down` closes the port (connection refused); any other mode listens again on the same port. */
  setMode(mode: StandInMode): Promise<void>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function startStandIn<Req>(parse: (req: IncomingMessage, body: string) => Req, respond: (mode: StandInMode, req: Req, res: ServerResponse) => void): Promise<StandIn<Req>> {
  const received: Req[] = [];
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer(async (req, res) => {
      const parsed = parse(req, await readBody(req));
      received.push(parsed);
      respond(standIn.mode, parsed, res);
    });
    server.keepAliveTimeout = 1;
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
      server = undefined;
    });
  await listen();
  const standIn: StandIn<Req> = {
    url: `http://127.0.0.1:${port}`,
    received,
    mode: 'ok',
    async setMode(mode) {
      if (mode === 'down' && server) await stop();
      if (mode !== 'down' && !server) await listen();
      standIn.mode = mode;
    },
    close: stop,
  };
  return standIn;
}

// Amazon SNS: the query protocol (form-encoded POST, XML answers), action Publish --------------------

export interface SnsPublish {
  action: string | null;
  phoneNumber: string | null;
  message: string | null;
  /** MessageAttributes.entry.N: name -> string value. */
  attributes: Record<string, string>;
  /** The SigV4 Authorization header's service, as the SDK signed it. */
  signedFor: string | undefined;
}

const SNS_NS = 'http://sns.amazonaws.com/doc/2010-03-31/';

export function startSnsStandIn(): Promise<StandIn<SnsPublish>> {
  return startStandIn(
    (req, body) => {
      const form = new URLSearchParams(body);
      const attributes: Record<string, string> = {};
      for (let i = 1; form.has(`MessageAttributes.entry.${i}.Name`); i++) {
        attributes[form.get(`MessageAttributes.entry.${i}.Name`)!] = form.get(`MessageAttributes.entry.${i}.Value.StringValue`) ?? '';
      }
      const credential = /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(String(req.headers.authorization ?? ''));
      return { action: form.get('Action'), phoneNumber: form.get('PhoneNumber'), message: form.get('Message'), attributes, signedFor: credential?.[1] };
    },
    (mode, _req, res) => {
      const requestId = randomUUID();
      const error = (status: number, type: string, code: string, message: string) => {
        res.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId });
        res.end(`<ErrorResponse xmlns="${SNS_NS}"><Error><Type>${type}</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`);
      };
      if (mode === 'internal-error') return error(500, 'Receiver', 'InternalError', 'Internal Error');
      if (mode === 'throttled') return error(429, 'Sender', 'Throttled', 'Rate exceeded');
      res.writeHead(200, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId });
      res.end(
        `<PublishResponse xmlns="${SNS_NS}"><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></PublishResponse>`,
      );
    },
  );
}

// AWS Secrets Manager: the JSON 1.1 protocol (X-Amz-Target), GetSecretValue and PutSecretValue -----

export interface SecretsManagerCall {
  target: string | undefined;
  secretId: string | undefined;
  /** GetSecretValue's VersionStage, when the caller named one (AWSCURRENT is the default). */
  versionStage?: string;
}

interface SecretVersion {
  id: string;
  value: string;
}

/**
 * Secrets Manager's staging labels as it keeps them: each secret has an AWSCURRENT version and,
 * after the first PutSecretValue, an AWSPREVIOUS one (the version AWSCURRENT had before). The
 * secret values stay out of `received`. The same server is also the AWS Parameters and Secrets
 * Lambda Extension in front of it, as the functions read secrets (lib/platform/secrets/secrets-extension.ts):
 * `GET /secretsmanager/get?secretId=&versionStage=` with the X-Aws-Parameters-Secrets-Token header
 * (AWS_SESSION_TOKEN), recorded as the GetSecretValue the extension makes (its cache is off as
 * deployed); errors come back as the extension gives them, `<name>: <message>` with the status.
 * `secretsManagerEnv` is what points the functions and the tools at it.
 */
export function startSecretsManagerStandIn(secrets: Record<string, string>): Promise<StandIn<SecretsManagerCall>> {
  const versions = new Map<string, { current: SecretVersion; previous?: SecretVersion }>(
    Object.entries(secrets).map(([id, value]) => [id, { current: { id: randomUUID(), value } }]),
  );
  const bodies = new WeakMap<SecretsManagerCall, { SecretString?: string; ClientRequestToken?: string }>();
  const extension = new WeakMap<SecretsManagerCall, { path: string; token: string | undefined }>();
  return startStandIn(
    (req, body) => {
      if (req.method === 'GET') {
        // The Parameters and Secrets extension's GET /secretsmanager/get: the GetSecretValue it makes for the function.
        const url = new URL(req.url ?? '/', 'http://localhost');
        const call: SecretsManagerCall = { target: 'secretsmanager.GetSecretValue', secretId: url.searchParams.get('secretId') ?? undefined };
        const stage = url.searchParams.get('versionStage');
        if (stage !== null) call.versionStage = stage;
        extension.set(call, { path: url.pathname, token: req.headers['x-aws-parameters-secrets-token'] as string | undefined });
        return call;
      }
      const parsed = JSON.parse(body || '{}') as { SecretId?: string; VersionStage?: string; SecretString?: string; ClientRequestToken?: string };
      const call: SecretsManagerCall = { target: req.headers['x-amz-target'] as string | undefined, secretId: parsed.SecretId };
      if (parsed.VersionStage !== undefined) call.versionStage = parsed.VersionStage;
      bodies.set(call, parsed);
      return call;
    },
    (mode, call, res) => {
      const viaExtension = extension.get(call);
      const json = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
        if (viaExtension && status !== 200) {
          // The extension answers an error as text: Secrets Manager's error name and message.
          const error = payload as { __type: string; Message?: string; message?: string };
          res.end(`${error.__type}: ${error.Message ?? error.message ?? ''}`);
          return;
        }
        res.end(JSON.stringify(payload));
      };
      if (viaExtension) {
        if (viaExtension.path !== '/secretsmanager/get') return json(404, { __type: 'NotFound', Message: `no route ${viaExtension.path}` });
        // The extension serves only callers that show the execution environment's session token.
        if (!viaExtension.token || viaExtension.token !== process.env.AWS_SESSION_TOKEN) return json(401, { __type: 'Unauthorized', Message: 'missing or wrong X-Aws-Parameters-Secrets-Token' });
      }
      if (viaExtension && mode === 'not-ready') {
        res.writeHead(400, { 'content-type': 'text/plain' });
        return res.end('not ready to serve traffic, please wait');
      }
      const notFound = (message: string) => json(400, { __type: 'ResourceNotFoundException', Message: message });
      if (mode === 'internal-error') return json(500, { __type: 'InternalServiceError', Message: 'An error occurred on the server side.' });
      if (mode === 'throttled') return json(400, { __type: 'ThrottlingException', message: 'Rate exceeded' });
      const secret = call.secretId === undefined ? undefined : versions.get(call.secretId);
      if (secret === undefined) return notFound("Secrets Manager can't find the specified secret.");
      if (call.target === 'secretsmanager.GetSecretValue') {
        const stage = call.versionStage ?? 'AWSCURRENT';
        const version = stage === 'AWSCURRENT' ? secret.current : stage === 'AWSPREVIOUS' ? secret.previous : undefined;
        if (!version) return notFound(`Secrets Manager can't find the specified secret value for staging label: ${stage}`);
        return json(200, { ARN: call.secretId, Name: 'expohub-jwt', SecretString: version.value, VersionId: version.id, VersionStages: [stage], CreatedDate: Date.now() / 1000 });
      }
      if (call.target === 'secretsmanager.PutSecretValue') {
        const { SecretString: value, ClientRequestToken: token = randomUUID() } = bodies.get(call) ?? {};
        if (typeof value !== 'string' || value.length === 0) return json(400, { __type: 'InvalidParameterException', Message: 'You must provide either SecretString or SecretBinary.' });
        // The same ClientRequestToken again (an SDK retry) changes nothing.
        if (token !== secret.current.id) versions.set(call.secretId!, { current: { id: token, value }, previous: secret.current });
        return json(200, { ARN: call.secretId, Name: 'expohub-jwt', VersionId: token, VersionStages: ['AWSCURRENT'] });
      }
      json(400, { __type: 'InvalidAction', Message: `unsupported action ${call.target}` });
    },
  );
}

/**
 * The environment that points at `standIn`: the functions' Parameters and Secrets extension (its port,
 * and the session token it checks) and the SDK clients of the tools that call Secrets Manager
 * directly (the rotation command).
 */
export function secretsManagerEnv(standIn: StandIn<SecretsManagerCall>) {
  return { PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: new URL(standIn.url).port, AWS_SESSION_TOKEN: 'local-stand-in-session-token', AWS_ENDPOINT_URL_SECRETS_MANAGER: standIn.url };
}
