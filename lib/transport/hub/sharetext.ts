import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { createShare } from '../../features/share/create-share.js';
import { defineOperation } from './operation.js';
import { identifier, presentText } from './params.js';
import { OPENID, signedIn } from './examples.js';

// Made on first use: loading ICU's region names costs about 25 ms of CPU, which every cold start
// of the hub would otherwise pay at import (docs/performance.md, "Cold starts").
let regionNames: Intl.DisplayNames | undefined;
/** ISO 3166-1 alpha-2 as ICU knows it: a known region has a name other than its code. */
const isRegion = (code: string) => {
  if (!/^[A-Z]{2}$/.test(code)) return false;
  regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
  return ![code, 'Unknown Region'].includes(regionNames.of(code) ?? code);
};


const query = z.object({
  openid: identifier(),
  vid: identifier(),
  d: presentText(64),
  locale: documentAs(presentText(35).check(
    z.refine((v) => {
      if (!v) return true;
      try {
        return Intl.getCanonicalLocales(v).length === 1;
      } catch {
        return false;
      }
    }, 'must be a BCP 47 language tag such as zh-CN or en-US'),
  ), { pattern: '^\\s*[A-Za-z0-9-]*\\s*$' }, 'add'),
  country: documentAs(z
    .pipe(
      presentText(2),
      z.transform((v: string) => v.toUpperCase()),
    )
    .check(z.refine((v) => v === '' || isRegion(v), 'must be an ISO 3166 alpha-2 country code such as CN, or empty')), { pattern: '^\\s*([A-Za-z]{2})?\\s*$' }, 'add'),
});

/** sharetext (docs/hub-api.md, "sharetext"): a share of a video, its text and link. */
export const sharetext = defineOperation({
  name: 'sharetext',
  summary: 'Share text and link of a video',
  auth: 'optional',
  scope: 'hub:write',
  query,
  data: z.object({ text: z.string(), url: z.string(), shareid: z.string() }),
  examples: [
    {
      summary: 'Chinese share text, anonymous (openid is not stored)',
      query: { openid: OPENID, vid: 'v_8k2m4q', d: '', locale: 'zh-CN', country: 'CN' },
      data: { text: 'Booth tour: hall 3 https://share.example.com/s/Qm7xT2kLp9VbN4rZc8Hd', url: 'https://share.example.com/s/Qm7xT2kLp9VbN4rZc8Hd', shareid: 'Qm7xT2kLp9VbN4rZc8Hd' },
    },
    {
      summary: "Signed in: the account's share",
      query: { ...signedIn, vid: 'v_8k2m4q', d: '', locale: 'en', country: 'CN' },
      data: { text: 'Watch "Booth tour: hall 3" on expohub: https://share.example.com/s/K2rq8mZp4xTaW6nYe3Ju', url: 'https://share.example.com/s/K2rq8mZp4xTaW6nYe3Ju', shareid: 'K2rq8mZp4xTaW6nYe3Ju' },
    },
  ],
  run: (input, ctx) => createShare({ ...input, account: ctx.principal?.user_id, sourceIp: ctx.sourceIp }),
});
