import type { CommentView } from '../../entities/comments/comments.js';
import type { ReportView } from '../../features/report/reports.js';

/** Values the operations' examples share (the OpenAPI document's x-hub-operations, test/unit/openapi.test.ts). */
export const OPENID = 'u_9f2c4e1a7b';
export const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1XzlmMmM0ZTFhN2IifQ.c2lnbmF0dXJl';
export const signedIn = { openid: OPENID, token: TOKEN };

export const exampleComment: CommentView = { cid: 'c_01', vid: 'v_8k2m4q', openid: OPENID, nickname: 'Expo fan 7b', content: 'Great booth!', created_at: '2026-01-05T09:00:00.000Z' };

export const exampleReport: ReportView = {
  id: 'r_4Fq9Zt2Lm8Xc1Vb7',
  target: { type: 'comment', id: 'c_01' },
  reason: 'spam',
  text: 'an advert',
  state: 'open',
  outcome: null,
  created_at: '2026-01-05T10:00:00.000Z',
  updated_at: '2026-01-05T10:00:00.000Z',
  decided_at: null,
};
