import { h } from './dom.js';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A timestamp in the person's local time, machine-readable in `datetime`; "never" for null. */
export function timeCell(iso: string | null): HTMLElement {
  if (iso === null) return h('span', { class: 'muted' }, 'never');
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return h('span', {}, iso);
  return h('time', { datetime: iso, title: date.toString() }, dateTime.format(date));
}
