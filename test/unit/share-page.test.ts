import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { deepLink, escapeHtml, formatDuration, pageLanguage, renderNotFoundPage, renderSharePage, SHARE_PAGE_CSP, type SharedVideo } from '../../lib/features/share/share-html.js';

const video: SharedVideo = {
  vid: 'v_abc123',
  title: '<script>alert(1)</script> "Expo" & more',
  description: `An editor's "quoted" text <b>bold</b>`,
  cover_url: 'https://cdn.example.com/c.jpg?a=1&b="2"',
  video_url: 'https://cdn.example.com/v.mp4',
  duration_s: 75,
  like_count: 3,
  author_nickname: 'Ann <admin>',
};
const input = { shareid: 'sh_1', video, lang: 'en' as const, pageUrl: 'https://d111.cloudfront.net/s/sh_1', appScheme: 'expohub', storeUrl: 'https://apps.example.com/expohub' };

/** Every `<meta property|name="..." content="...">` of a page, by its property or name, unescaped once. */
function metas(html: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of html.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)">/g)) out.set(m[1]!, m[2]!);
  return out;
}

describe('share page', () => {
  it('escapes every piece of user content, in text and in attributes', () => {
    const html = renderSharePage(input);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &quot;Expo&quot; &amp; more');
    expect(html).toContain('Ann &lt;admin&gt;');
    // No attribute value can be closed early by a quote from the data.
    for (const [, value] of metas(html)) expect(value).not.toMatch(/["<>]/);
    expect(html).toContain('poster="https://cdn.example.com/c.jpg?a=1&amp;b=&quot;2&quot;"');
  });

  it('carries the preview tags with the video, the cover and the page URL', () => {
    const m = metas(renderSharePage(input));
    expect(m.get('og:title')).toBe(escapeHtml(video.title));
    expect(m.get('og:description')).toBe(escapeHtml(video.description));
    expect(m.get('og:image')).toBe(escapeHtml(video.cover_url));
    expect(m.get('og:url')).toBe(input.pageUrl);
    expect(m.get('og:type')).toBe('video.other');
    expect(m.get('og:video')).toBe(video.video_url);
    expect(m.get('twitter:card')).toBe('summary_large_image');
  });

  it('offers the deep link with the video and the share, and the store link when configured', () => {
    const html = renderSharePage(input);
    expect(deepLink('expohub', 'v_abc123', 'sh_1')).toBe('expohub://video/v_abc123?shareid=sh_1');
    expect(html).toContain('href="expohub://video/v_abc123?shareid=sh_1"');
    expect(html).toContain('href="https://apps.example.com/expohub"');
    expect(renderSharePage({ ...input, storeUrl: undefined })).not.toContain('class="get"');
    expect(renderSharePage({ ...input, appScheme: 'acme-expo' })).toContain('href="acme-expo://video/v_abc123?shareid=sh_1"');
  });

  it('speaks the language asked for, and shows duration and likes', () => {
    const zh = renderSharePage({ ...input, lang: 'zh' });
    expect(zh).toContain('<html lang="zh-CN">');
    expect(zh).toContain('在 expohub 应用中打开');
    expect(zh).toContain('3 人点赞');
    const en = renderSharePage(input);
    expect(en).toContain('<html lang="en">');
    expect(en).toContain('Open in the expohub app');
    expect(en).toContain('3 likes');
    expect(en).toContain('<time datetime="PT75S">1:15</time>');
    expect(formatDuration(3725)).toBe('1:02:05');
    expect(formatDuration(0)).toBe('0:00');
  });

  it('has no script, and its policy allows exactly its own style element', () => {
    const html = renderSharePage(input);
    expect(html).not.toMatch(/<script|\son[a-z]+=|javascript:/i);
    expect(SHARE_PAGE_CSP).toContain("script-src 'none'");
    expect(SHARE_PAGE_CSP).not.toContain('unsafe');
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(SHARE_PAGE_CSP).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(html).not.toMatch(/\sstyle="/);
  });

  it('renders a friendly 404 in the same language', () => {
    expect(renderNotFoundPage({ lang: 'zh' })).toContain('找不到这个分享');
    const en = renderNotFoundPage({ lang: 'en', storeUrl: 'https://apps.example.com/x' });
    expect(en).toContain('This share was not found');
    expect(en).toContain('noindex');
    expect(en).toContain('href="https://apps.example.com/x"');
  });
});

describe('page language', () => {
  it.each([
    ['zh-CN', undefined, 'zh'],
    ['zh', 'en', 'zh'],
    ['ZH-hant-TW', undefined, 'zh'],
    ['en-US', 'zh-CN', 'en'],
    ['fr-FR', 'zh-CN', 'en'],
    [undefined, 'zh-CN,zh;q=0.9,en;q=0.8', 'zh'],
    [undefined, 'en;q=0.5, zh-TW;q=0.9', 'zh'],
    [undefined, 'fr, en;q=0.7, zh;q=0.6', 'en'],
    [undefined, 'de', 'en'],
    [undefined, 'zh;q=0', 'en'],
    [undefined, '', 'en'],
    [undefined, undefined, 'en'],
  ] as const)('share locale %s, Accept-Language %s: %s', (locale, accept, expected) => {
    expect(pageLanguage(locale, accept)).toBe(expected);
  });
});
