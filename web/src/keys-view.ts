import { client, errorMessage, type ApiKey } from './api.js';
import { confirmAction } from './confirm.js';
import { field, fieldError, h, replaceChildren, type Child } from './dom.js';
import { timeCell } from './format.js';
import { expiryToIso, localDateTimeValue, parseScopes } from './form-values.js';
import { announce } from './status.js';
import { usageChart } from './usage-chart.js';

interface CreatedKey {
  api_key?: string;
  key: ApiKey;
}

/** The scopes the server knows (lib/features/auth/scope-gate.ts SCOPES), offered as checkboxes. */
const SCOPES = ['videos:write', 'export:read', 'hub:read', 'hub:write'] as const;
const MAX_RATE_LIMIT = 100_000;
/** What lib/features/auth/scope-gate.ts does with a key's scope list, said once for the form. */
const EMPTY_SCOPES_MEANING =
  'No scope ticked or typed means a key without scopes. Scopes are checked only where the server enforces them (ENFORCE_KEY_SCOPES): there a key without scopes may call every endpoint a key may call, and a key with scopes only the endpoints of those scopes. Where they are not enforced (the default), every key may call every endpoint a key may call, whatever its scopes. Key management always needs your login.';

const STATUS_LABEL: Record<ApiKey['status'], { icon: string; text: string }> = {
  valid: { icon: '✓', text: 'Valid' },
  revoked: { icon: '⊘', text: 'Revoked' },
  expired: { icon: '◷', text: 'Expired' },
};

function scopeList(scopes: string[]): HTMLElement {
  if (scopes.length === 0) return h('span', { class: 'scope-all' }, 'all');
  return h('ul', { class: 'scopes' }, ...scopes.map((s) => h('li', {}, s)));
}

function statusBadge(status: ApiKey['status']): HTMLElement {
  const label = STATUS_LABEL[status];
  return h('span', { class: `badge badge-${status}` }, h('span', { 'aria-hidden': 'true' }, label.icon), ` ${label.text}`);
}

/** The signed-in view: create form, the plaintext-once box, the key table and the verify box. */
export function renderKeys(container: HTMLElement): void {
  document.title = 'Access keys · expohub';

  // After a 401 the login view has replaced this one; its message must not be overwritten.
  const report = (error: unknown) => {
    if (container.contains(listSlot)) announce(errorMessage(error), 'error');
  };

  // ---- list ----
  const listSlot = h('div', { class: 'list-slot', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading keys…'));
  const listHeading = h('h2', { id: 'keys-heading', tabindex: '-1' }, 'Your keys');
  const refresh = h('button', { type: 'button', class: 'small' }, 'Refresh');
  let loadSeq = 0;

  async function loadKeys(): Promise<void> {
    const seq = ++loadSeq;
    listSlot.setAttribute('aria-busy', 'true');
    refresh.disabled = true;
    try {
      const keys = await client.keys.list();
      if (seq === loadSeq) replaceChildren(listSlot, keys.length === 0 ? h('p', { class: 'empty' }, 'No keys yet. Create one above.') : keyTable(keys));
    } catch (error) {
      if (seq === loadSeq) {
        replaceChildren(listSlot, h('p', { class: 'field-error' }, `Could not load your keys: ${errorMessage(error)}`));
        report(error);
      }
    } finally {
      if (seq === loadSeq) {
        listSlot.setAttribute('aria-busy', 'false');
        refresh.disabled = false;
      }
    }
  }
  refresh.addEventListener('click', () => void loadKeys());

  async function runRowAction(key: ApiKey, action: 'revoke' | 'delete', buttons: HTMLButtonElement[]): Promise<void> {
    const revoke = action === 'revoke';
    const confirmed = await confirmAction(
      revoke
        ? { title: 'Revoke this key?', message: `“${key.name}” will stop working at once. The record is kept; a revoked key cannot be re-activated.`, confirmLabel: 'Revoke key', danger: true }
        : { title: 'Delete this key?', message: `“${key.name}” will be removed for good and stop working at once. This cannot be undone.`, confirmLabel: 'Delete key', danger: true },
    );
    if (!confirmed) return;
    for (const b of buttons) b.disabled = true;
    try {
      if (revoke) await client.keys.revoke({ id: key.id });
      else await client.keys.delete({ id: key.id });
      announce(revoke ? `Key “${key.name}” revoked.` : `Key “${key.name}” deleted.`, 'success');
      await loadKeys();
      const next = revoke ? listSlot.querySelector<HTMLElement>(`[data-key-id="${key.id}"] button.delete`) : null;
      (next ?? listHeading).focus();
    } catch (error) {
      report(error);
      for (const b of buttons) b.disabled = false;
    }
  }

  function keyTable(keys: ApiKey[]): HTMLElement {
    const rows = keys.map((key) => {
      const buttons: HTMLButtonElement[] = [];
      const revoke = key.is_active ? h('button', { type: 'button', class: 'small revoke', 'aria-label': `Revoke key ${key.name}` }, 'Revoke') : null;
      const remove = h('button', { type: 'button', class: 'small danger delete', 'aria-label': `Delete key ${key.name}` }, 'Delete');
      if (revoke) buttons.push(revoke);
      buttons.push(remove);
      revoke?.addEventListener('click', () => void runRowAction(key, 'revoke', buttons));
      remove.addEventListener('click', () => void runRowAction(key, 'delete', buttons));
      const usageSlot = h('div', { class: 'usage-slot', id: `usage-${key.id}` });
      const usageButton = h('button', { type: 'button', class: 'small usage-toggle', 'aria-expanded': 'false', 'aria-controls': `usage-${key.id}`, 'aria-label': `Show usage of key ${key.name}` }, 'Show usage');
      usageButton.addEventListener('click', () => void showUsage(key, usageSlot, usageButton));
      const cell = (label: string, col: string, ...content: Child[]) => h('td', { 'data-label': label, 'data-col': col }, ...content);
      return h(
        'tr',
        { 'data-key-id': String(key.id), 'data-status': key.status },
        h('th', { scope: 'row', 'data-label': 'Name', 'data-col': 'name' }, h('span', { class: 'key-name' }, key.name), h('span', { class: 'key-id muted' }, ' ', h('code', { class: 'key-hint' }, key.key_hint), ` #${key.id}`)),
        cell('Scopes', 'scopes', scopeList(key.scopes)),
        cell('Status', 'status', statusBadge(key.status)),
        cell('Created', 'created', timeCell(key.created_at)),
        cell('Expires', 'expires', timeCell(key.expires_at)),
        cell('Last used', 'last-used', timeCell(key.last_used_at)),
        cell('Limit', 'limit', `${key.rate_limit_per_minute.toLocaleString('en')}/min`),
        cell('Usage', 'usage', usageButton, usageSlot),
        cell('Actions', 'actions', h('div', { class: 'row-actions' }, revoke, remove)),
      );
    });
    const head = ['Name', 'Scopes', 'Status', 'Created', 'Expires', 'Last used', 'Limit', 'Usage', 'Actions'].map((t) => h('th', { scope: 'col' }, t));
    return h(
      'div',
      { class: 'table-wrap' },
      h('table', { class: 'keys' }, h('caption', { class: 'visually-hidden' }, `${keys.length} access key${keys.length === 1 ? '' : 's'}, newest first`), h('thead', {}, h('tr', {}, ...head)), h('tbody', {}, ...rows)),
    );
  }

  async function showUsage(key: ApiKey, slot: HTMLElement, button: HTMLButtonElement): Promise<void> {
    if (button.getAttribute('aria-expanded') === 'true') {
      slot.replaceChildren();
      button.setAttribute('aria-expanded', 'false');
      button.textContent = 'Show usage';
      button.setAttribute('aria-label', `Show usage of key ${key.name}`);
      return;
    }
    button.disabled = true;
    try {
      const usage = await client.keys.usage({ id: key.id });
      replaceChildren(slot, usageChart(key.name, usage.days));
      button.setAttribute('aria-expanded', 'true');
      button.textContent = 'Hide usage';
      button.setAttribute('aria-label', `Hide usage of key ${key.name}`);
    } catch (error) {
      report(error);
    } finally {
      button.disabled = false;
    }
  }

  // ---- create ----
  const nameInput = h('input', { name: 'name', type: 'text', maxlength: '64', required: true, autocomplete: 'off' });
  const scopeBoxes = SCOPES.map((scope) => h('input', { type: 'checkbox', name: 'scope', value: scope, id: `scope-${scope.replace(':', '-')}` }));
  const scopesInput = h('input', { name: 'scopes', type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: 'e.g. reports:read, team:ci' });
  const limitInput = h('input', { name: 'rate_limit_per_minute', type: 'number', min: '1', max: String(MAX_RATE_LIMIT), step: '1', inputmode: 'numeric', placeholder: 'server default' });
  const expiryInput = h('input', { name: 'expires_at', type: 'datetime-local' });
  const createButton = h('button', { type: 'submit', class: 'primary' }, 'Create key');
  const resultSlot = h('div', { class: 'result-slot' });
  const createForm = h(
    'form',
    { novalidate: true, class: 'create-form', 'aria-labelledby': 'create-heading' },
    field('key-name', 'Name', nameInput, 'What the key is for, e.g. “nightly export”. Up to 64 characters.'),
    h(
      'fieldset',
      { class: 'field scope-choice', 'aria-describedby': 'scopes-meaning' },
      h('legend', {}, 'Scopes (optional)'),
      h('div', { class: 'scope-boxes' }, ...scopeBoxes.map((box) => h('label', { class: 'check', for: box.id }, box, ' ', h('code', {}, box.value)))),
      field('key-scopes', 'Custom scopes', scopesInput, 'Other scope names, separated with commas.'),
      h('p', { id: 'scopes-meaning', class: 'hint' }, EMPTY_SCOPES_MEANING),
    ),
    field('key-limit', 'Requests per minute (optional)', limitInput, `1 to ${MAX_RATE_LIMIT.toLocaleString('en')}. Leave empty for the server's default. Past it, requests with this key get 429 until the minute ends.`),
    field('key-expiry', 'Expires (optional)', expiryInput, 'Your local time. Leave empty for a key that never expires.'),
    h('div', { class: 'actions' }, createButton),
  );
  const refreshExpiryMin = () => (expiryInput.min = localDateTimeValue(new Date()));
  expiryInput.addEventListener('focus', refreshExpiryMin);
  refreshExpiryMin();

  function showCreated(created: CreatedKey): void {
    const name = created.key.name;
    const done = h('button', { type: 'button' }, 'Done, hide the key');
    done.addEventListener('click', () => {
      resultSlot.replaceChildren();
      nameInput.focus();
    });
    if (!created.api_key) {
      const box = h(
        'section',
        { class: 'new-key warning', 'aria-labelledby': 'new-key-heading', tabindex: '-1' },
        h('h3', { id: 'new-key-heading' }, h('span', { 'aria-hidden': 'true' }, '⚠ '), 'No key was returned'),
        h('p', {}, `The key “${name}” was created, but the server returned no plaintext key, so it cannot be shown. Delete this key and create a new one.`),
        h('div', { class: 'actions' }, done),
      );
      replaceChildren(resultSlot, box);
      box.focus();
      return;
    }
    // The plaintext lives only in this box: not in storage, not in the URL, gone on reload. It is
    // shown as wrapping text (not an input) so the whole key is readable at phone width.
    const value = h('code', { id: 'new-key-value', class: 'key-value', 'aria-labelledby': 'new-key-label' }, created.api_key);
    const selectKey = () => {
      const range = document.createRange();
      range.selectNodeContents(value);
      const selection = getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
    };
    const copy = h('button', { type: 'button', class: 'primary' }, 'Copy');
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(created.api_key ?? '');
        announce('Key copied to the clipboard.', 'success');
      } catch {
        // No clipboard access (permissions, old browser): select the key for the person to copy.
        selectKey();
        let copied = false;
        try {
          copied = document.execCommand('copy');
        } catch {
          copied = false;
        }
        announce(copied ? 'Key copied to the clipboard.' : 'The key is selected: press Ctrl+C (⌘C on a Mac) to copy it.', copied ? 'success' : 'info');
      }
    });
    const box = h(
      'section',
      { class: 'new-key', 'aria-labelledby': 'new-key-heading', tabindex: '-1' },
      h('h3', { id: 'new-key-heading' }, `New key “${name}”`),
      h('p', { class: 'once' }, h('strong', {}, 'You will not see this key again.'), ' Copy it now and store it somewhere safe.'),
      h('p', { id: 'new-key-label', class: 'key-label' }, 'Your new access key'),
      h('div', { class: 'copy-row' }, value, copy),
      h('div', { class: 'actions' }, done),
    );
    replaceChildren(resultSlot, box);
    box.focus();
  }

  createForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = nameInput.value.trim();
    fieldError(nameInput, '');
    fieldError(expiryInput, '');
    fieldError(limitInput, '');
    if (name === '') {
      fieldError(nameInput, 'Enter a name for the key.');
      announce('Enter a name for the key.', 'error');
      nameInput.focus();
      return;
    }
    const expiresAt = expiryToIso(expiryInput.value);
    if (expiresAt === undefined || (expiresAt !== null && Date.parse(expiresAt) <= Date.now())) {
      const message = expiresAt === undefined ? 'Enter a valid date and time, or leave the expiry empty.' : 'The expiry must be in the future.';
      fieldError(expiryInput, message);
      announce(message, 'error');
      expiryInput.focus();
      return;
    }
    const limitText = limitInput.value.trim();
    const limit = limitText === '' ? undefined : Number(limitText);
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= MAX_RATE_LIMIT)) {
      const message = `The limit must be a whole number from 1 to ${MAX_RATE_LIMIT.toLocaleString('en')}, or empty.`;
      fieldError(limitInput, message);
      announce(message, 'error');
      limitInput.focus();
      return;
    }
    const scopes = [...new Set([...scopeBoxes.filter((b) => b.checked).map((b) => b.value), ...parseScopes(scopesInput.value)])];
    createButton.disabled = true;
    createButton.textContent = 'Creating…';
    try {
      const created = await client.keys.create({ name, scopes, expires_at: expiresAt, rate_limit_per_minute: limit });
      createForm.reset();
      announce(`Key “${created.key.name}” created.`, 'success');
      showCreated(created);
      void loadKeys();
    } catch (error) {
      report(error);
    } finally {
      createButton.disabled = false;
      createButton.textContent = 'Create key';
    }
  });

  // ---- verify ----
  const verifyInput = h('input', { name: 'key', type: 'text', autocomplete: 'off', spellcheck: 'false', class: 'mono' });
  const verifyButton = h('button', { type: 'submit' }, 'Check key');
  const verifyResult = h('div', { id: 'verify-result', class: 'verify-result', 'aria-live': 'polite' });
  const verifyForm = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'verify-heading' },
    field('verify-key', 'Access key', verifyInput, 'Paste a key (ak_…) to see who owns it and its scopes.'),
    h('div', { class: 'actions' }, verifyButton),
  );
  verifyForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = verifyInput.value.trim();
    fieldError(verifyInput, '');
    if (key === '') {
      fieldError(verifyInput, 'Paste the key to check.');
      verifyInput.focus();
      return;
    }
    verifyButton.disabled = true;
    verifyResult.replaceChildren();
    try {
      // Public endpoint: no login token is sent, and its 401 means "this key does not verify".
      const verified = await client.keys.verify({ key });
      replaceChildren(
        verifyResult,
        h('p', { class: 'verify-ok' }, h('span', { 'aria-hidden': 'true' }, '✓ '), 'This key is valid.'),
        h('dl', {}, h('dt', {}, 'Owner'), h('dd', { 'data-field': 'owner' }, verified.user_id), h('dt', {}, 'Scopes'), h('dd', { 'data-field': 'scopes' }, scopeList(verified.scopes))),
      );
      void loadKeys(); // its "last used" has just changed
    } catch (error) {
      replaceChildren(verifyResult, h('p', { class: 'verify-bad' }, h('span', { 'aria-hidden': 'true' }, '✗ '), h('strong', {}, 'Not valid: '), errorMessage(error)));
    } finally {
      verifyButton.disabled = false;
    }
  });

  replaceChildren(
    container,
    h(
      'div',
      { class: 'intro' },
      h('h1', { id: 'keys-title', tabindex: '-1' }, 'Access keys'),
      h('p', { class: 'muted' }, 'Long-lived keys for scripts and pipelines. Send one as ', h('code', {}, 'Authorization: Bearer <key>'), '.'),
    ),
    h('section', { class: 'card', 'aria-labelledby': 'create-heading' }, h('h2', { id: 'create-heading' }, 'Create a key'), createForm, resultSlot),
    h('section', { class: 'card', 'aria-labelledby': 'keys-heading' }, h('div', { class: 'section-head' }, listHeading, refresh), listSlot),
    h('section', { class: 'card', 'aria-labelledby': 'verify-heading' }, h('h2', { id: 'verify-heading' }, 'Check a key'), verifyForm, verifyResult),
  );
  void loadKeys();
}
