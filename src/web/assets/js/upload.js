// Upload enhancements for the applicant app. Without this file the upload form posts and the
// server answers with the page; with it: drag-and-drop, a preview of the chosen file before it is
// sent, a progress bar per file, specific errors in place and "Try again" without losing the page.
import { announce } from './common.js';

/**
 * @param {number} bytes
 * @returns {string}
 */
function size(bytes) {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1000))} KB`;
}

/**
 * Shows what is about to be sent: the image itself for photos, the name and size for documents.
 * @param {HTMLElement} area
 * @param {File} file
 */
function preview(area, file) {
  area.replaceChildren();
  const title = document.createElement('p');
  title.className = 'label';
  title.textContent = area.dataset.previewTitle ?? '';
  const name = document.createElement('p');
  name.className = 'upload-item__name';
  name.textContent = `${file.name} (${size(file.size)})`;
  area.append(title, name);
  if (file.type.startsWith('image/')) {
    const img = document.createElement('img');
    img.className = 'preview';
    img.alt = (area.dataset.previewAlt ?? '').replace('{file}', file.name);
    img.src = URL.createObjectURL(file);
    img.addEventListener('load', () => URL.revokeObjectURL(img.src), { once: true });
    area.append(img);
  }
}

/**
 * Sends the form with progress; resolves with the server's JSON answer and status.
 * @param {HTMLFormElement} form
 * @param {FormData} data
 * @param {HTMLProgressElement} bar
 * @returns {Promise<{ status: number, body: { ok?: boolean, doc_id?: string, message?: string } }>}
 */
function send(form, data, bar) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
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

/**
 * Shows a refusal the way the server does (GOV.UK): a summary at the top that takes focus, linking
 * to the file input, and the message beside the input. An older summary or message is replaced.
 * @param {HTMLInputElement} input
 * @param {string} text
 */
function showError(input, text) {
  const main = document.getElementById('main');
  const group = input.closest('.form-group');
  document.querySelector('.error-summary')?.remove();
  for (const old of document.querySelectorAll('.form-group--error')) {
    old.classList.remove('form-group--error');
    old.querySelector('.error-message')?.remove();
    old.querySelector('[aria-invalid]')?.removeAttribute('aria-invalid');
  }
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

/** @param {HTMLFormElement} form */
function enhance(form) {
  const zone = /** @type {HTMLElement | null} */ (form.querySelector('[data-dropzone]'));
  const area = /** @type {HTMLElement | null} */ (form.querySelector('[data-preview]'));
  const fileInput = /** @type {HTMLInputElement | null} */ (form.querySelector('input[type=file][name=file]'));
  const inputs = /** @type {NodeListOf<HTMLInputElement>} */ (form.querySelectorAll('input[type=file]'));
  if (!zone || !area || !fileInput) return;
  const hint = /** @type {HTMLElement | null} */ (form.querySelector('[data-drop-hint]'));
  if (hint) hint.hidden = false;

  for (const input of inputs) {
    input.addEventListener('change', () => {
      const file = input.files?.[0];
      // One file per upload: choosing a photo clears the document picker and the other way round.
      for (const other of inputs) if (other !== input && file) other.value = '';
      if (file) preview(area, file);
      else area.replaceChildren();
    });
  }
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('dropzone--active');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dropzone--active'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dropzone--active');
    const dropped = e.dataTransfer?.files;
    if (!dropped || dropped.length === 0) return;
    const transfer = new DataTransfer();
    transfer.items.add(dropped[0]);
    fileInput.files = transfer.files;
    fileInput.dispatchEvent(new Event('change'));
  });

  form.addEventListener('submit', async (event) => {
    if (form.dataset.submitted === 'true') return;
    const file = [...inputs].map((i) => i.files?.[0]).find(Boolean);
    // Nothing chosen: let the server answer with its page and its error summary.
    if (!file) return;
    event.preventDefault();
    const data = new FormData(form);
    const row = document.createElement('div');
    row.className = 'upload-item';
    const label = document.createElement('label');
    const bar = document.createElement('progress');
    bar.id = `progress-${Date.now()}`;
    bar.className = 'upload-progress';
    bar.max = 100;
    bar.value = 0;
    label.htmlFor = bar.id;
    const uploading = (form.dataset.uploadingText ?? 'Uploading {file}').replace('{file}', file.name);
    label.textContent = uploading;
    row.append(label, bar);
    area.append(row);
    announce(label.textContent);

    const attempt = async () => {
      if (!bar.isConnected) row.append(bar);
      label.textContent = uploading;
      bar.value = 0;
      const answer = await send(form, data, bar);
      if (answer.status === 201 && answer.body.ok && answer.body.doc_id) {
        bar.value = 100;
        const page = form.action.replace(/\/files$/, '');
        window.location.assign(`${page}?added=${encodeURIComponent(answer.body.doc_id)}`);
        return;
      }
      const text = answer.body.message ?? form.dataset.failedText ?? 'The selected file could not be uploaded – try again';
      bar.remove();
      label.textContent = file.name;
      showError(fileInput, text);
      const retry = document.createElement('button');
      retry.type = 'button';
      retry.className = 'button button--secondary button--small';
      retry.textContent = form.dataset.retryText ?? 'Try again';
      retry.addEventListener('click', () => { retry.remove(); void attempt(); }, { once: true });
      // Refusals about the file itself (type, size, password) cannot succeed on retry: only offer it for failures.
      if (answer.status === 0 || answer.status >= 500) row.append(retry);
      else row.remove();
      const submit = /** @type {HTMLButtonElement | null} */ (form.querySelector('button[type=submit]'));
      delete form.dataset.submitted;
      if (submit) submit.disabled = false;
    };
    await attempt();
  });
}

export function enhanceUploads() {
  for (const form of /** @type {NodeListOf<HTMLFormElement>} */ (document.querySelectorAll('form[data-upload-form]'))) enhance(form);
}
