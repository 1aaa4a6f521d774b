/**
 * A program that must NOT compile (test/e2e/typed-client.test.ts): a misspelled `do` through
 * openapi-fetch with its defaults, typed by openapi-typescript's output for the served document.
 * The test removes the directive below (kept here so that the repository's own tsc passes) and reads
 * tsc's own error naming the misspelling.
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../../lib/transport/openapi/generated/api-types.js';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:1' });
// @ts-expect-error: a misspelled do (removed by the test)
export const misspelled = client.GET('/api/v1', { params: { query: { do: 'get_next_lists', openid: 'guest', token: '' } } });
