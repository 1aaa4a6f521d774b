import { invoke, invokeAuthorizer, type BenchRequest } from './invoke.js';
import type { Scenario } from './scenario.js';

/**
 * One call of a scenario: the authorizer alone (its verdict as 200 authenticated / 401 not) or the
 * full route. Returns the status so the caller can check it against the scenario's expectation.
 */
export async function callScenario(scenario: Scenario, request: BenchRequest): Promise<{ status: number; body: unknown }> {
  if (scenario.authorizerOnly) {
    const decision = await invokeAuthorizer(request);
    const authenticated = decision.isAuthorized && decision.context?.verdict === 'authenticated';
    return { status: authenticated ? 200 : 401, body: decision.context };
  }
  return invoke(request);
}

export class UnexpectedStatus extends Error {
  constructor(scenario: Scenario, status: number, body: unknown) {
    super(`${scenario.name}: expected ${scenario.expect}, got ${status} ${JSON.stringify(body).slice(0, 300)}`);
  }
}
