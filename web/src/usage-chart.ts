import { h } from './dom.js';

export interface UsageDay {
  date: string;
  requests: number;
}

const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag: string, attrs: Record<string, string | number>): SVGElement => {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  return el;
};

/**
 * A key's requests per day as inline SVG bars (oldest day left, today right), no chart library. The
 * drawing is decorative (aria-hidden): its text alternative is the caption (total, busiest day) and
 * the table of every day's figure under it, which a screen reader and a person can read alike.
 */
export function usageChart(keyName: string, days: UsageDay[]): HTMLElement {
  const total = days.reduce((sum, d) => sum + d.requests, 0);
  const max = Math.max(0, ...days.map((d) => d.requests));
  const busiest = days.find((d) => d.requests === max && max > 0);
  const barWidth = 6;
  const gap = 2;
  const height = 40;
  const drawing = svg('svg', { viewBox: `0 0 ${days.length * (barWidth + gap)} ${height}`, class: 'usage-bars', 'aria-hidden': 'true', focusable: 'false' });
  days.forEach((day, i) => {
    const barHeight = max === 0 ? 0 : Math.max(day.requests > 0 ? 1 : 0, Math.round((day.requests / max) * height));
    const bar = svg('rect', { x: i * (barWidth + gap), y: height - barHeight, width: barWidth, height: barHeight, 'data-date': day.date, 'data-requests': day.requests });
    const title = svg('title', {});
    title.textContent = `${day.date}: ${day.requests}`;
    bar.append(title);
    drawing.append(bar);
  });
  const summary =
    total === 0
      ? `No requests in the last ${days.length} days.`
      : `${total} request${total === 1 ? '' : 's'} in the last ${days.length} days; busiest day ${busiest!.date} with ${max}.`;
  const rows = days.map((d) => h('tr', { 'data-date': d.date }, h('th', { scope: 'row' }, d.date), h('td', {}, String(d.requests))));
  return h(
    'figure',
    { class: 'usage' },
    drawing,
    h('figcaption', { class: 'usage-summary' }, summary),
    h(
      'details',
      { class: 'usage-figures' },
      h('summary', {}, 'Figures per day'),
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden' }, `Requests per day of key ${keyName}, UTC, oldest first`),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Date (UTC)'), h('th', { scope: 'col' }, 'Requests'))),
        h('tbody', {}, ...rows),
      ),
    ),
  );
}
