/**
 * A program that must NOT compile (test/e2e/typed-client.test.ts): a misspelled `do` through
 * openapi-fetch with its defaults, typed by openapi-typescript's output for the served document.
 * The test compiles it next to the types it generates from the served document (./api-types.ts,
 * written into its scratch folder; the repository's own tsc leaves this folder out, tsconfig.json) and
 * reads tsc's own error naming the misspelling.
 */
import createClient from 'openapi-fetch';
import type { paths } from './api-types.js';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:1' });
export const misspelled = client.GET('/api/v1', { params: { query: { do: 'get_next_lists', openid: 'guest', token: '' } } });
