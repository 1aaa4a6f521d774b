/**
 * The soak's HTTP client: every answer is timed, counted per operation and status, and checked
 * against the envelope (docs/api-keys.md, "Envelope"); 429 and 503 are retried after their Retry-After, as a real
 * client would. Nothing here imports lib/: the soak talks to the server over HTTP only.
 */

/** The contract's table: the envelope code of each error status. */
export const ERROR_CODES: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'AUTH_ERROR',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'LIMIT_EXCEEDED',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  503: 'UNAVAILABLE',
};

const isRetryable = (status: number) => status === 429 || status === 503;

/**
 * What is wrong with an answer's envelope, or undefined when nothing is: `x-request-id`, a JSON
 * content type, `{code: 0, data}` on success, `{code: "<the status's code>", error: "<message>"}`
 * otherwise, and a Retry-After in whole seconds on 429 and 503.
 */
export function envelopeProblem(status: number, headers: { get(name: string): string | null }, text: string): string | undefined {
  if (!headers.get('x-request-id')) return 'no x-request-id header';
  if (!/^application\/json\b/.test(headers.get('content-type') ?? '')) return `content-type ${headers.get('content-type') ?? 'missing'}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'body is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not a JSON object';
  const { code, data, error } = body as Record<string, unknown>;
  if (status >= 200 && status < 300) return code === 0 && data !== undefined ? undefined : 'success without {code: 0, data}';
  if (ERROR_CODES[status] === undefined) return `status ${status} is not in the contract`;
  if (code !== ERROR_CODES[status]) return `code ${JSON.stringify(code)} for status ${status} (expected ${ERROR_CODES[status]})`;
  if (typeof error !== 'string' || error.trim() === '') return 'no error message';
  if (isRetryable(status) && !/^[1-9]\d*$/.test(headers.get('retry-after') ?? '')) return `Retry-After ${JSON.stringify(headers.get('retry-after'))} on ${status}`;
  return undefined;
}

export type FailureKind = 'status 500' | 'envelope' | 'unexpected status' | 'transport' | 'gave up retrying' | 'contract';

export interface Failure {
  kind: FailureKind;
  op: string;
  detail: string;
  requestId?: string;
}

interface OpStats {
  latencies: number[];
  statuses: Map<number, number>;
  retried: number;
}

/** Answers and failures of one phase of the soak (setup, load, final check). */
export class SoakRecorder {
  readonly ops = new Map<string, OpStats>();
  readonly failures: Failure[] = [];
  requests = 0;

  answer(op: string, status: number, ms: number): void {
    let stats = this.ops.get(op);
    if (!stats) this.ops.set(op, (stats = { latencies: [], statuses: new Map(), retried: 0 }));
    stats.latencies.push(ms);
    stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
    if (isRetryable(status)) stats.retried += 1;
    this.requests += 1;
  }

  fail(failure: Failure): void {
    this.failures.push(failure);
  }

  count(kind: FailureKind): number {
    return this.failures.filter((f) => f.kind === kind).length;
  }
}

export interface SoakRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path and query string. */
  path: string;
  bearer?: string;
  body?: unknown;
}

export interface SoakAnswer {
  status: number;
  /** `data` of a success, or the error envelope's body. */
  data: Record<string, unknown>;
  body: Record<string, unknown>;
  requestId: string;
}

/** Thrown when a request got no usable answer (already recorded as a failure). */
export class NoAnswer extends Error {}

/** Failure details name the request, without the credentials in it. */
const redact = (path: string) => path.replace(/\b(token0?|key)=[^&]*/g, '$1=…').slice(0, 200);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const MAX_ATTEMPTS = 10;
const TIMEOUT_MS = 60_000;

export class SoakClient {
  constructor(
    readonly baseUrl: string,
    public recorder: SoakRecorder,
  ) {}

  /**
   * Sends `request`, retrying 429 and 503 after Retry-After seconds, and returns the final answer.
   * A 500, a broken envelope or a status outside `expect` is recorded as a failure; the answer is
   * still returned (the caller updates the ledger only on the status it expected).
   */
  async send(op: string, request: SoakRequest, expect: number | number[] = 200): Promise<SoakAnswer> {
    const expected = Array.isArray(expect) ? expect : [expect];
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = {};
      if (request.bearer) headers.authorization = `Bearer ${request.bearer}`;
      if (request.body !== undefined) headers['content-type'] = 'application/json';
      const started = performance.now();
      let response: Response;
      let text: string;
      try {
        response = await fetch(this.baseUrl + request.path, {
          method: request.method,
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        text = await response.text();
      } catch (error) {
        this.recorder.fail({ kind: 'transport', op, detail: `${request.method} ${redact(request.path)}: ${(error as Error).message}` });
        throw new NoAnswer(op);
      }
      const ms = performance.now() - started;
      const { status } = response;
      const requestId = response.headers.get('x-request-id') ?? '';
      this.recorder.answer(op, status, ms);
      const where = `${request.method} ${redact(request.path)}`;
      const problem = envelopeProblem(status, response.headers, text);
      if (problem) this.recorder.fail({ kind: 'envelope', op, detail: `${where} -> ${status}: ${problem}: ${text.slice(0, 200)}`, requestId });
      const body = (problem ? {} : JSON.parse(text)) as Record<string, unknown>;
      if (status === 500) this.recorder.fail({ kind: 'status 500', op, detail: `${where}: ${text.slice(0, 300)}`, requestId });
      if (isRetryable(status) && !expected.includes(status)) {
        if (attempt < MAX_ATTEMPTS) {
          await sleep(1000 * (Number(response.headers.get('retry-after')) || 1));
          continue;
        }
        this.recorder.fail({ kind: 'gave up retrying', op, detail: `${where}: still ${status} after ${MAX_ATTEMPTS} attempts`, requestId });
      } else if (!expected.includes(status) && status !== 500) {
        this.recorder.fail({ kind: 'unexpected status', op, detail: `${where} -> ${status} (expected ${expected.join(' or ')}): ${text.slice(0, 300)}`, requestId });
      }
      const data = (status < 300 ? body.data : body) as Record<string, unknown> | undefined;
      return { status, data: data ?? {}, body, requestId };
    }
  }
}
