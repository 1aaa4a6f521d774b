import { describe, expect, it } from 'vitest';
import { envelopeProblem } from '../../bench/soak/client.js';
import { compareFields, compareSets, Ledger } from '../../bench/soak/ledger.js';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' };

describe('soak ledger', () => {
  it('derives like counts from the facts: duplicates count once, dislike removes, a self-like counts on both sides', () => {
    const ledger = new Ledger();
    ledger.addVideo('v1', 'author');
    ledger.addVideo('v2', 'author');
    ledger.liked('alice', 'v1');
    ledger.liked('alice', 'v1'); // a retry, or the second of a parallel pair
    ledger.liked('bob', 'v1');
    ledger.liked('author', 'v2');
    ledger.liked('bob', 'v2');
    ledger.disliked('bob', 'v2');
    ledger.disliked('bob', 'v2');
    expect(ledger.videoCounts('v1')).toEqual({ like_count: 2, comment_count: 0 });
    expect(ledger.videoCounts('v2')).toEqual({ like_count: 1, comment_count: 0 });
    expect(ledger.accountCounts('author')).toEqual({ follow_count: 0, follower_count: 0, like_count: 1, liked_count: 3 });
    expect(ledger.accountCounts('bob')).toMatchObject({ like_count: 1, liked_count: 0 });
    expect([...ledger.dislikedBy('bob')]).toEqual(['v2']);
    ledger.liked('bob', 'v2'); // a like clears the dislike
    expect([...ledger.dislikedBy('bob')]).toEqual([]);
    expect(ledger.videoCounts('v2').like_count).toBe(2);
  });

  it('counts follows both ways, idempotently', () => {
    const ledger = new Ledger();
    ledger.followed('a', 'b');
    ledger.followed('a', 'b');
    ledger.followed('c', 'b');
    ledger.followed('b', 'a');
    ledger.unfollowed('c', 'b');
    ledger.unfollowed('c', 'b');
    ledger.unfollowed('a', 'c'); // never followed: nothing changes
    expect(ledger.accountCounts('a')).toMatchObject({ follow_count: 1, follower_count: 1 });
    expect(ledger.accountCounts('b')).toMatchObject({ follow_count: 1, follower_count: 1 });
    expect(ledger.accountCounts('c')).toMatchObject({ follow_count: 0, follower_count: 0 });
  });

  it('counts a comment retry that got the first comment back once', () => {
    const ledger = new Ledger();
    ledger.addVideo('v1', 'x');
    ledger.commented('v1', 'c1');
    ledger.commented('v1', 'c1');
    ledger.commented('v1', 'c2');
    expect(ledger.videoCounts('v1').comment_count).toBe(2);
  });

  it('follows a key through create, revoke and delete', () => {
    const ledger = new Ledger();
    ledger.keyCreated('u', 1, 'ak_1');
    ledger.keyCreated('u', 2, 'ak_2');
    ledger.keyCreated('u', 3, 'ak_3');
    ledger.keyRevoked('u', 2);
    ledger.keyRevoked('u', 2);
    ledger.keyDeleted('u', 3);
    expect(ledger.keys('u').map((k) => [k.id, k.active, k.deleted])).toEqual([
      [1, true, false],
      [2, false, false],
      [3, false, true],
    ]);
    expect(ledger.keys('other')).toEqual([]);
  });

  it('lists every field and set that differs, and nothing when all agree', () => {
    expect(compareFields('video', 'v1', { like_count: 2, comment_count: 0 }, { like_count: 2, comment_count: 0, share_count: 9 })).toEqual([]);
    expect(compareFields('video', 'v1', { like_count: 2, comment_count: 0 }, { like_count: 3 })).toEqual([
      { entity: 'video', id: 'v1', field: 'like_count', expected: 2, seen: 3 },
      { entity: 'video', id: 'v1', field: 'comment_count', expected: 0, seen: 'missing' },
    ]);
    expect(compareSets('account', 'a', 'liked videos', ['v1', 'v2'], ['v2', 'v1'])).toEqual([]);
    expect(compareSets('account', 'a', 'liked videos', ['v1', 'v2'], ['v2', 'v3'])).toEqual([
      { entity: 'account', id: 'a', field: 'liked videos', expected: '2 items', seen: '2 items; missing v1; extra v3' },
    ]);
  });
});

describe('soak envelope check', () => {
  it('accepts the contract envelope', () => {
    expect(envelopeProblem(200, headers(json), '{"code":0,"data":{"x":1}}')).toBeUndefined();
    expect(envelopeProblem(201, headers(json), '{"code":0,"data":[]}')).toBeUndefined();
    expect(envelopeProblem(404, headers(json), '{"code":"NOT_FOUND","error":"Video \\"x\\" does not exist"}')).toBeUndefined();
    expect(envelopeProblem(503, headers({ ...json, 'retry-after': '1' }), '{"code":"UNAVAILABLE","error":"busy"}')).toBeUndefined();
  });

  it('names what is wrong', () => {
    expect(envelopeProblem(200, headers({ 'content-type': 'application/json' }), '{"code":0,"data":1}')).toBe('no x-request-id header');
    expect(envelopeProblem(500, headers({ ...json, 'content-type': 'text/html' }), '<h1>oops</h1>')).toBe('content-type text/html');
    expect(envelopeProblem(200, headers(json), 'not json')).toBe('body is not JSON');
    expect(envelopeProblem(200, headers(json), '{"data":1}')).toBe('success without {code: 0, data}');
    expect(envelopeProblem(401, headers(json), '{"code":"NOT_FOUND","error":"x"}')).toBe('code "NOT_FOUND" for status 401 (expected AUTH_ERROR)');
    expect(envelopeProblem(400, headers(json), '{"code":"VALIDATION_ERROR"}')).toBe('no error message');
    expect(envelopeProblem(502, headers(json), '{"message":"Bad Gateway"}')).toBe('status 502 is not in the contract');
    expect(envelopeProblem(429, headers(json), '{"code":"RATE_LIMITED","error":"slow down"}')).toBe('Retry-After null on 429');
  });
});
