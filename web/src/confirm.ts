import { h } from './dom.js';

/**
 * A modal confirmation on the native <dialog> element: focus is trapped and Escape cancels. The
 * safe choice (Cancel) has the initial focus, so a stray Enter never deletes anything.
 */
export function confirmAction(options: { title: string; message: string; confirmLabel: string; danger?: boolean }): Promise<boolean> {
  return new Promise((resolve) => {
    const cancel = h('button', { type: 'submit', value: 'cancel', autofocus: true }, 'Cancel');
    const confirm = h('button', { type: 'submit', value: 'confirm', class: options.danger ? 'danger' : 'primary' }, options.confirmLabel);
    const dialog = h(
      'dialog',
      { 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-message', class: 'confirm' },
      h('form', { method: 'dialog' }, h('h2', { id: 'confirm-title' }, options.title), h('p', { id: 'confirm-message' }, options.message), h('div', { class: 'actions' }, cancel, confirm)),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
