import { client, errorMessage } from './api.js';
import { fieldError, h, replaceChildren } from './dom.js';
import { randomNonce } from './form-values.js';
import { maskPhone, session } from './session.js';
import { announce, clearStatus } from './status.js';

/** What the code step needs from the phone step. Kept in memory only: a reload starts over. */
interface Pending {
  phone: string;
  nonce: string;
  resendIn: number;
}

let resendTimer: ReturnType<typeof setInterval> | undefined;

function stopResendTimer(): void {
  if (resendTimer !== undefined) clearInterval(resendTimer);
  resendTimer = undefined;
}

function sendCode(phone: string, nonce: string) {
  return client.auth.requestCode({ phonenumber: phone, nonce });
}

function setBusy(button: HTMLButtonElement, busy: boolean, busyLabel: string): void {
  button.dataset.label ??= button.textContent ?? '';
  button.disabled = busy;
  button.textContent = busy ? busyLabel : button.dataset.label;
}

/**
 * Phone number -> gen_code (with a fresh random nonce) -> code -> create_phone_account. `intro` says
 * what signing in is for (the key page by default).
 */
export function renderLogin(container: HTMLElement, onSignedIn: () => void, intro = 'Sign in with your phone number to manage your access keys.'): void {
  stopResendTimer();

  const body = h('div');
  replaceChildren(
    container,
    h(
      'section',
      { class: 'card login', 'aria-labelledby': 'login-heading' },
      h('h1', { id: 'login-heading', tabindex: '-1' }, 'Sign in'),
      h('p', { class: 'muted' }, intro),
      body,
    ),
  );
  document.title = 'Sign in · expohub access keys';

  function phoneStep(initialPhone = ''): void {
    stopResendTimer();
    const phone = h('input', { id: 'phone', name: 'phone', type: 'tel', autocomplete: 'tel', inputmode: 'tel', required: true, value: initialPhone, 'aria-describedby': 'phone-hint phone-error' });
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Send code');
    const form = h(
      'form',
      { novalidate: true, 'data-step': 'phone' },
      h('label', { for: 'phone' }, 'Phone number'),
      phone,
      h('p', { id: 'phone-hint', class: 'hint' }, 'Mainland China numbers can be entered without +86.'),
      h('p', { id: 'phone-error', class: 'field-error', hidden: true }),
      h('div', { class: 'actions' }, submit),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const value = phone.value.trim();
      if (value === '') {
        fieldError(phone, 'Enter your phone number.');
        phone.focus();
        return;
      }
      fieldError(phone, '');
      const nonce = randomNonce();
      setBusy(submit, true, 'Sending…');
      try {
        const sent = await sendCode(value, nonce);
        announce(`We sent a 6-digit code to ${value}. It is valid for ${Math.round(sent.expires_in / 60)} minutes.`, 'success');
        codeStep({ phone: value, nonce, resendIn: sent.resend_in });
      } catch (error) {
        announce(errorMessage(error), 'error');
        setBusy(submit, false, '');
      }
    });
    replaceChildren(body, form);
  }

  function codeStep(pending: Pending): void {
    const code = h('input', {
      id: 'code',
      name: 'code',
      type: 'text',
      inputmode: 'numeric',
      autocomplete: 'one-time-code',
      maxlength: '6',
      pattern: '[0-9]{6}',
      required: true,
      'aria-describedby': 'code-hint code-error',
    });
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
    const resend = h('button', { type: 'button' }, 'Send a new code');
    const change = h('button', { type: 'button', class: 'link-button' }, 'Use a different number');
    const form = h(
      'form',
      { novalidate: true, 'data-step': 'code' },
      h('p', {}, 'Code sent to ', h('strong', {}, pending.phone), '.'),
      h('label', { for: 'code' }, 'Verification code'),
      code,
      h('p', { id: 'code-hint', class: 'hint' }, 'The 6 digits from the text message.'),
      h('p', { id: 'code-error', class: 'field-error', hidden: true }),
      h('div', { class: 'actions' }, submit, resend, change),
    );

    let waitUntil = Date.now() + pending.resendIn * 1000;
    const tick = () => {
      const left = Math.ceil((waitUntil - Date.now()) / 1000);
      resend.disabled = left > 0;
      resend.textContent = left > 0 ? `Send a new code (${left} s)` : 'Send a new code';
      if (left <= 0) stopResendTimer();
    };
    stopResendTimer();
    resendTimer = setInterval(tick, 1000);
    tick();

    resend.addEventListener('click', async () => {
      resend.disabled = true;
      try {
        const sent = await sendCode(pending.phone, pending.nonce);
        waitUntil = Date.now() + sent.resend_in * 1000;
        announce(`We sent a new code to ${pending.phone}.`, 'success');
      } catch (error) {
        announce(errorMessage(error), 'error');
      }
      stopResendTimer();
      resendTimer = setInterval(tick, 1000);
      tick();
    });
    change.addEventListener('click', () => {
      clearStatus();
      phoneStep(pending.phone);
      document.getElementById('phone')?.focus();
    });

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const value = code.value.trim();
      if (!/^\d{6}$/.test(value)) {
        fieldError(code, 'Enter the 6 digits of the code.');
        code.focus();
        return;
      }
      fieldError(code, '');
      setBusy(submit, true, 'Signing in…');
      try {
        const signedIn = await client.auth.signIn({ openid: pending.phone, token: pending.nonce, code: value, openid0: '', token0: '' });
        stopResendTimer();
        session.save({ token: signedIn.token, username: signedIn.openid, displayName: maskPhone(pending.phone) });
        clearStatus();
        onSignedIn();
      } catch (error) {
        // A wrong code is a 401 here: we are on the login view already, so it is only reported.
        announce(errorMessage(error), 'error');
        setBusy(submit, false, '');
        code.select();
        code.focus();
      }
    });
    replaceChildren(body, form);
    code.focus();
  }

  phoneStep();
}
