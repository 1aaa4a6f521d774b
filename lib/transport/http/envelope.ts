import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AppError } from '../../platform/errors.js';

export interface HttpResult {
  status?: number;
  data: unknown;
  headers?: Record<string, string>;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function successResponse(result: HttpResult, requestId: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: result.status ?? 200,
    headers: { ...JSON_HEADERS, 'x-request-id': requestId, ...result.headers },
    body: JSON.stringify({ code: 0, data: result.data }),
  };
}

export function errorResponse(error: AppError, requestId: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: error.status,
    headers: { ...JSON_HEADERS, 'x-request-id': requestId, ...error.headers },
    body: JSON.stringify({ code: error.code, error: error.message }),
  };
}
