import { HUB_OPERATIONS } from '../lib/transport/hub/operations.js';
import type { Account } from './fixtures.js';
import { hasRoute, type BenchRequest } from './invoke.js';
import type { World } from './world.js';

/**
 * The table of benchmarked operations: one entry per operation (and per state that changes its
 * cost, e.g. verify with last_used_at due or not). Every section (cost, latency) runs the entries
 * whose operation exists; the others are listed as missing.
 */
export interface Scenario {
  name: string;
  group: 'keys' | 'auth' | 'hub' | 'protected';
  /** True when the operation exists in this checkout (a hub op or a route another helper lands). */
  available(): boolean;
  /**
   * Once per section, before any call: creates what the calls need (not measured) and returns the
   * call factory. `prepare(i)` runs before call i, also unmeasured (e.g. creating the key that call
   * i revokes), and returns the request.
   */
  setup(w: World, calls: number): Promise<(i: number) => Promise<BenchRequest>>;
  /** Status the call must answer; anything else fails the row (figures of a failing call mean nothing). */
  expect: number;
  /** Invoke only the Lambda authorizer with the request's authorizer event. */
  authorizerOnly?: boolean;
  note?: string;
}

export const hubOp = (op: string) => () => Object.hasOwn(HUB_OPERATIONS, op);
export const route = (method: string, path: string) => () => hasRoute(method, path);
export const always = () => true;
export const constant = (request: BenchRequest) => async () => async () => request;

/** Auth of a hub call as the mobile client sends it: openid and token in the query string. */
export const as = (a: Account) => ({ openid: a.openid, token: a.token });
