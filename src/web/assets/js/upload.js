// Upload enhancements for the applicant app. Without this file the page is one form: "Continue"
// uploads whatever was chosen and moves on. With it, a picked, dropped or photographed file is
// sent at once, with a progress bar, "Try again" when sending failed, a Remove button once it is
// stored, and "Continue" waits for uploads still on their way instead of losing them.
import { announce } from './common.js';

/**
 * Sends one file with progress; resolves with the server's JSON answer and status.
 * @param {string} url
 * @param {FormData} data
 * @param {HTMLProgressElement} bar
 * @returns {Promise<{ status: number, body: { ok?: boolean, doc_id?: string, filename?: string, size?: string, message?: string } }>}
 */
function send(url, data, bar) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.responseType = 'json';
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) bar.value = Math.round((e.loaded / e.total) * 100);
    });
    xhr.addEventListener('load', () => resolve({ status: xhr.status, body: xhr.response ?? {} }));
    xhr.addEventListener('error', () => resolve({ status: 0, body: {} }));
    xhr.addEventListener('timeout', () => resolve({ status: 0, body: {} }));
    xhr.timeout = 120_000;
    xhr.send(data);
  });
}

/** Takes every error the page shows away: a new attempt starts clean (no stale message or summary). */
function clearErrors() {
  document.querySelector('.error-summary')?.remove();
  for (const old of document.querySelectorAll('.form-group--error')) {
    old.classList.remove('form-group--error');
    old.querySelector('.error-message')?.remove();
    const input = old.querySelector('[aria-invalid]');
    input?.removeAttribute('aria-invalid');
    const hint = input && document.getElementById(`${input.id}-hint`) ? `${input.id}-hint` : '';
    if (hint) input?.setAttribute('aria-describedby', hint);
    else input?.removeAttribute('aria-describedby');
  }
}

/**
 * Shows a refusal the way the server does (GOV.UK): a summary at the top that takes focus, linking
 * to the file input, and the message beside the input.
 * @param {HTMLInputElement} input
 * @param {string} text
 */
function showError(input, text) {
  clearErrors();
  const main = document.getElementById('main');
  const group = input.closest('.form-group');
  if (!main || !group) return;
  const summary = document.createElement('div');
  summary.className = 'error-summary';
  summary.setAttribute('role', 'alert');
  summary.tabIndex = -1;
  const title = document.createElement('h2');
  title.className = 'error-summary__title';
  title.textContent = main.dataset.errorTitle ?? 'There is a problem';
  const list = document.createElement('ul');
  list.className = 'error-summary__list';
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.href = `#${input.id}`;
  link.textContent = text;
  item.append(link);
  list.append(item);
  summary.append(title, list);
  main.prepend(summary);
  const message = document.createElement('p');
  message.className = 'error-message';
  message.id = `${input.id}-error`;
  message.textContent = text;
  group.classList.add('form-group--error');
  input.before(message);
  input.setAttribute('aria-invalid', 'true');
  const hint = document.getElementById(`${input.id}-hint`) ? `${input.id}-hint ` : '';
  input.setAttribute('aria-describedby', `${hint}${message.id}`);
  summary.focus();
}

/**
 * The stored file's row, as the server draws it: name, size, "Uploaded", and Remove (a button of
 * the page's remove form, so it works like the server-drawn ones).
 * @param {HTMLFormElement} form
 * @param {{ doc_id: string, filename?: string, size?: string }} body
 */
function fileRow(form, body) {
  const li = document.createElement('li');
  li.className = 'file-list__item';
  li.dataset.docId = body.doc_id;
  const row = document.createElement('div');
  row.className = 'file-list__row';
  const left = document.createElement('span');
  const name = document.createElement('span');
  name.className = 'file-list__name';
  name.textContent = body.filename ?? '';
  const size = document.createElement('span');
  size.className = 'muted small';
  size.textContent = body.size ?? '';
  left.append(name, ' ', size);
  const right = document.createElement('span');
  right.className = 'cluster';
  const tag = document.createElement('strong');
  tag.className = 'tag tag--success';
  tag.textContent = form.dataset.uploadedText ?? 'Uploaded';
  const remove = document.createElement('button');
  remove.className = 'button button--link';
  remove.type = 'submit';
  remove.setAttribute('form', 'remove-form');
  remove.name = 'doc_id';
  remove.value = body.doc_id;
  const hidden = document.createElement('span');
  hidden.className = 'visually-hidden';
  hidden.textContent = ` ${body.filename ?? ''}`;
  remove.append(form.dataset.removeText ?? 'Remove', hidden);
  right.append(tag, remove);
  row.append(left, right);
  li.append(row);
  return li;
}

/** @param {HTMLFormElement} form */
function enhance(form) {
  const url = form.dataset.filesUrl ?? '';
  const csrf = /** @type {HTMLInputElement | null} */ (form.querySelector('input[name=_csrf]'))?.value ?? '';
  const touch = window.matchMedia('(pointer: coarse)').matches;
  /** @type {Set<Promise<void>>} */
  const pending = new Set();
  for (const b of /** @type {NodeListOf<HTMLElement>} */ (form.querySelectorAll('[data-upload-button]'))) b.hidden = true;

  for (const section of /** @type {NodeListOf<HTMLElement>} */ (form.querySelectorAll('[data-upload-kind]'))) {
    const area = /** @type {HTMLElement} */ (section.querySelector('[data-preview]'));
    const list = /** @type {HTMLElement} */ (section.querySelector('[data-file-list]'));
    const empty = /** @type {HTMLElement | null} */ (section.querySelector('[data-empty-list]'));
    const zone = /** @type {HTMLElement | null} */ (section.querySelector('[data-dropzone]'));
    const camera = /** @type {HTMLElement | null} */ (section.querySelector('[data-camera]'));
    if (camera && touch) camera.hidden = false;
    const hint = /** @type {HTMLElement | null} */ (section.querySelector('[data-drop-hint]'));
    if (hint && !touch) hint.hidden = false;
    const picker = /** @type {HTMLInputElement | null} */ (section.querySelector('input[type=file][name^="file-"]'));

    /**
     * @param {HTMLInputElement} input
     * @param {File} file
     */
    const upload = (input, file) => {
      clearErrors();
      const data = new FormData();
      data.append('_csrf', csrf);
      data.append(input.name, file, file.name);
      // The file is on its way: "Continue" must not send it a second time.
      input.value = '';
      const row = document.createElement('div');
      row.className = 'upload-item';
      const label = document.createElement('label');
      const bar = document.createElement('progress');
      bar.id = `progress-${Math.random().toString(36).slice(2)}`;
      bar.className = 'upload-progress';
      bar.max = 100;
      bar.value = 0;
      label.htmlFor = bar.id;
      label.className = 'upload-item__status';
      const uploading = (form.dataset.uploadingText ?? 'Uploading {file}…').replace('{file}', file.name);
      row.append(label, bar);
      if (file.type.startsWith('image/')) {
        const img = document.createElement('img');
        img.className = 'preview';
        img.alt = (area.dataset.previewAlt ?? '').replace('{file}', file.name);
        img.src = URL.createObjectURL(file);
        img.addEventListener('load', () => URL.revokeObjectURL(img.src), { once: true });
        row.append(img);
      }
      area.append(row);

      const attempt = async () => {
        row.querySelector('[data-retry]')?.remove();
        if (!bar.isConnected) label.after(bar);
        label.textContent = uploading;
        bar.value = 0;
        announce(uploading);
        const answer = await send(url, data, bar);
        if (answer.status === 201 && answer.body.ok && answer.body.doc_id) {
          row.remove();
          list.append(fileRow(form, { doc_id: answer.body.doc_id, filename: answer.body.filename ?? file.name, size: answer.body.size ?? '' }));
          list.hidden = false;
          if (empty) empty.hidden = true;
          announce(answer.body.message ?? '');
          const status = document.getElementById('live-status');
          if (status) status.className = 'notification notification--success';
          return;
        }
        const text = answer.body.message ?? form.dataset.failedText ?? 'The selected file could not be uploaded – try again';
        // Refusals about the file itself (type, size, password) cannot succeed on retry: the row goes,
        // and only the message stays. A failure to send can: the row stays with "Try again".
        if (answer.status === 0 || answer.status >= 500) {
          bar.remove();
          label.textContent = text;
          const retry = document.createElement('button');
          retry.type = 'button';
          retry.dataset.retry = '';
          retry.className = 'button button--secondary button--small';
          retry.textContent = form.dataset.retryText ?? 'Try again';
          retry.addEventListener('click', () => track(attempt()), { once: true });
          row.append(retry);
          announce(text);
        } else {
          row.remove();
          // "Uploading …" must not outlive the refusal, on screen or in the live region.
          announce('');
          showError(picker ?? input, text);
        }
      };
      track(attempt());
    };

    for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (section.querySelectorAll('input[type=file]:not([form])'))) {
      input.addEventListener('change', () => {
        const file = input.files?.[0];
        if (file) upload(input, file);
      });
    }
    if (zone && picker) {
      zone.addEventListener('dragover', (e) => {
        e.preventDefault();
        zone.classList.add('dropzone--active');
      });
      zone.addEventListener('dragleave', () => zone.classList.remove('dropzone--active'));
      zone.addEventListener('drop', (e) => {
        e.preventDefault();
        zone.classList.remove('dropzone--active');
        const file = e.dataTransfer?.files?.[0];
        if (file) upload(picker, file);
      });
    }
  }

  /** @param {Promise<void>} p */
  function track(p) {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }

  // "Continue" straight after picking a file: wait for the upload on its way, then go on.
  form.addEventListener('submit', async (event) => {
    if (pending.size === 0) return;
    event.preventDefault();
    const submitter = /** @type {HTMLButtonElement | null} */ (/** @type {SubmitEvent} */ (event).submitter);
    announce(form.dataset.waitingText ?? 'Waiting for your files to finish uploading…');
    while (pending.size > 0) await Promise.all([...pending]);
    delete form.dataset.submitted;
    // A failed upload keeps the person here with its message and "Try again".
    if (form.querySelector('[data-retry]') || document.querySelector('.error-summary')) return;
    form.requestSubmit(submitter ?? undefined);
  });
}

export function enhanceUploads() {
  for (const form of /** @type {NodeListOf<HTMLFormElement>} */ (document.querySelectorAll('form[data-upload-form]'))) enhance(form);
}
