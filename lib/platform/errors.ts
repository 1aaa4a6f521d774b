/** The error hierarchy of the envelope (docs/api-keys.md, "Envelope"): each carries its HTTP status and envelope code. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(message: string) {
    super(400, 'VALIDATION_ERROR', message);
  }
}

/** Why a credential failed, for the metrics (never in the answer: every key failure reads the same). */
export type AuthFailure = 'missing' | 'invalid_token' | 'expired_token' | 'session_ended' | 'malformed_key' | 'unknown_key' | 'revoked_key' | 'expired_key' | 'account_suspended' | 'account_deleted';

export class AuthError extends AppError {
  constructor(
    message = 'Missing or invalid credentials',
    readonly reason?: AuthFailure,
  ) {
    super(401, 'AUTH_ERROR', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, 'FORBIDDEN', message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, 'NOT_FOUND', message);
  }
}

export class LimitExceededError extends AppError {
  constructor(message: string) {
    super(409, 'LIMIT_EXCEEDED', message);
  }
}

export class RateLimitedError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, 'RATE_LIMITED', message, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/** The dependency behind a 503, for the metrics. */
export type Dependency = 'dynamodb' | 'secrets' | 'sms';

export class UnavailableError extends AppError {
  constructor(
    message = 'The service is busy, please retry shortly',
    retryAfterSeconds = 1,
    readonly dependency?: Dependency,
  ) {
    super(503, 'UNAVAILABLE', message, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

export class InternalError extends AppError {
  constructor(requestId: string) {
    super(500, 'INTERNAL_ERROR', `Internal error; quote request id ${requestId} when reporting it`);
  }
}
