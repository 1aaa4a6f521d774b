/** A tiny element builder: attributes as strings, `on*` as listeners, children as nodes or text. */
type AttrValue = string | number | boolean | null | undefined | EventListener;
export type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, AttrValue> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Element, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    // Text always goes in as a text node: user data (key names, scopes) is never parsed as HTML.
    parent.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/**
 * Marks a form field invalid with `message` shown in its `<id>-error` element (tied to it by
 * aria-describedby), or valid again with `''` (docs/web.md, "Accessibility").
 */
export function fieldError(input: HTMLInputElement, message: string): void {
  const el = document.getElementById(`${input.id}-error`);
  if (el) {
    el.textContent = message;
    el.hidden = message === '';
  }
  input.setAttribute('aria-invalid', message === '' ? 'false' : 'true');
}

/** A labelled field: `input` gets `id`, an optional hint and an error slot for fieldError(), both tied to it. */
export function field(id: string, label: string, input: HTMLInputElement, hint?: string): HTMLElement {
  const describedBy = [hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' ');
  input.id = id;
  input.setAttribute('aria-describedby', describedBy);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint && h('p', { id: `${id}-hint`, class: 'hint' }, hint),
    h('p', { id: `${id}-error`, class: 'field-error', hidden: true }),
  );
}
