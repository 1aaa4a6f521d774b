import type { Same } from '../../lib/platform/api-doc.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { buildUrl, typedClient, type HubOperationName } from '../../lib/transport/openapi/client.js';
import type { PublicKey } from '../../lib/features/keys/key-record.js';
import { HUB_OPERATIONS } from '../../lib/transport/hub/operations.js';


/** A client whose transport records what it was asked and answers `answer`. */
function recording(answer: unknown = {}) {
  const sent: { method: string; url: string; body?: unknown }[] = [];
  const client = typedClient(async (method, url, body) => {
    sent.push({ method, url, ...(body === undefined ? {} : { body }) });
    return answer;
  });
  return { client, sent };
}

describe('the typed client', () => {
  it('sends the method, the filled path, the query and the body', async () => {
    const { client, sent } = recording();
    await client.post('/api/v1/api-keys', { body: { name: 'CI', scopes: ['export:read'] } });
    await client.post('/api/v1/api-keys/{id}/revoke', { path: { id: 7 } });
    await client.delete('/api/v1/api-keys/{id}', { path: { id: 8 } });
    await client.get('/api/v1/export/comments', { query: { limit: 2, cursor: 'a b' } });
    await client.get('/api/v1/me');
    await client.hub('like', { openid: 'u1', vid: 'v/1' });
    await client.hub('gen_code', { phonenumber: '+8613800138000', nonce: 'n+n n' });
    expect(sent).toEqual([
      { method: 'POST', url: '/api/v1/api-keys', body: { name: 'CI', scopes: ['export:read'] } },
      { method: 'POST', url: '/api/v1/api-keys/7/revoke' },
      { method: 'DELETE', url: '/api/v1/api-keys/8' },
      { method: 'GET', url: '/api/v1/export/comments?limit=2&cursor=a%20b' },
      { method: 'GET', url: '/api/v1/me' },
      { method: 'GET', url: '/api/v1?do=like&openid=u1&vid=v%2F1' },
      { method: 'GET', url: '/api/v1?do=gen_code&phonenumber=%2B8613800138000&nonce=n%2Bn%20n' },
    ]);
  });

  it('refuses a path template without its parameter', () => {
    expect(() => buildUrl('/api/v1/api-keys/{id}', {})).toThrow('missing path parameter id of /api/v1/api-keys/{id}');
  });

  it('types answers and requests from the document (checked by tsc)', () => {
    const { client } = recording();
    // Mutual assignability: PublicKey is an intersection, which expectTypeOf compares by its form.
    const keys: Same<Awaited<ReturnType<typeof client.get<'/api/v1/api-keys'>>>, PublicKey[]> = true;
    const created: Same<Awaited<ReturnType<typeof client.post<'/api/v1/api-keys'>>>, { api_key: string; key: PublicKey }> = true;
    expect([keys, created]).toEqual([true, true]);
    expectTypeOf(client.hub('like', { openid: 'u', vid: 'v' })).resolves.toEqualTypeOf<{ vid: string; liked: true; like_count: number }>();
    // Calls the document does not allow do not compile; an unused directive would fail tsc.
    const never = () => {
      // @ts-expect-error: no such route
      void client.get('/api/v1/keys');
      // @ts-expect-error: the body needs a name
      void client.post('/api/v1/api-keys', { body: { scopes: [] } });
      // @ts-expect-error: revoke needs its path parameter
      void client.post('/api/v1/api-keys/{id}/revoke');
      // @ts-expect-error: like needs vid
      void client.hub('like', { openid: 'u' });
      // @ts-expect-error: no such do
      void client.hub('like_all', {});
    };
    expect(typeof never).toBe('function');
  });

  it('knows every do of the hub', () => {
    const names: Record<HubOperationName, true> = Object.fromEntries(Object.keys(HUB_OPERATIONS).map((op) => [op, true])) as Record<HubOperationName, true>;
    expect(Object.keys(names).sort()).toEqual(Object.keys(HUB_OPERATIONS).sort());
  });
});
