import { describe, expect, it } from 'vitest';
import { OWN_COUNT_HOLD_MS, ownCommentCount, ownLikeCount } from '../../lib/entities/catalog/own-counts.js';

/** The counts a person is shown of a video: the applied count bounded by their own recent answers (docs/data-model.md, "Read your own writes"). */
const at = Date.parse('2026-11-26T05:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('ownLikeCount', () => {
  it('is the applied count without an own item, or with one that holds no answer (likes stored before answers were kept)', () => {
    expect(ownLikeCount(340, {}, at)).toBe(340);
    expect(ownLikeCount(undefined, {}, at)).toBe(0);
    expect(ownLikeCount(340, { like: { liked_at: iso(at) } }, at)).toBe(340);
  });

  it('is at least a recent like answer, at most a recent dislike answer', () => {
    expect(ownLikeCount(340, { like: { shown_like_count: 341, liked_at: iso(at) } }, at)).toBe(341);
    expect(ownLikeCount(345, { like: { shown_like_count: 341, liked_at: iso(at) } }, at)).toBe(345);
    expect(ownLikeCount(341, { dislike: { shown_like_count: 340, disliked_at: iso(at) } }, at)).toBe(340);
    expect(ownLikeCount(338, { dislike: { shown_like_count: 340, disliked_at: iso(at) } }, at)).toBe(338);
  });

  it('holds for OWN_COUNT_HOLD_MS after the action, not a millisecond longer', () => {
    const like = { shown_like_count: 341, liked_at: iso(at) };
    expect(ownLikeCount(330, { like }, at + OWN_COUNT_HOLD_MS - 1)).toBe(341);
    expect(ownLikeCount(330, { like }, at + OWN_COUNT_HOLD_MS)).toBe(330);
    const dislike = { shown_like_count: 340, disliked_at: iso(at) };
    expect(ownLikeCount(350, { dislike }, at + OWN_COUNT_HOLD_MS - 1)).toBe(340);
    expect(ownLikeCount(350, { dislike }, at + OWN_COUNT_HOLD_MS)).toBe(350);
  });

  it('ignores a mark it cannot read', () => {
    expect(ownLikeCount(340, { like: { shown_like_count: '999', liked_at: iso(at) } }, at)).toBe(340);
    expect(ownLikeCount(340, { like: { shown_like_count: 999, liked_at: 'not a time' } }, at)).toBe(340);
  });
});

describe('ownCommentCount', () => {
  it('is at least the answer of the latest own comment while it holds', () => {
    const commented = { shown_comment_count: 13, commented_at: iso(at) };
    expect(ownCommentCount(12, undefined, at)).toBe(12);
    expect(ownCommentCount(12, commented, at)).toBe(13);
    expect(ownCommentCount(15, commented, at)).toBe(15);
    expect(ownCommentCount(12, commented, at + OWN_COUNT_HOLD_MS - 1)).toBe(13);
    expect(ownCommentCount(12, commented, at + OWN_COUNT_HOLD_MS)).toBe(12);
  });
});
