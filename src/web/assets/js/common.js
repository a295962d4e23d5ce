// Enhancements shared by both faces. Every page works without this file: it only adds focus
// management, double-submit protection, confirmation prompts and copy buttons.

/** Moves focus to the error summary so screen readers announce it and keyboard users start there. */
export function focusErrorSummary() {
  const summary = /** @type {HTMLElement | null} */ (document.querySelector('[data-focus-on-load]'));
  if (summary) summary.focus();
}

/**
 * A form whose submit button says `data-prevent-double-submit` is sent once: a second click or
 * Enter while the first request is on its way does nothing. (The server refuses duplicates too.)
 */
export function preventDoubleSubmit() {
  document.addEventListener('submit', (event) => {
    const form = /** @type {HTMLFormElement} */ (event.target);
    if (!form.querySelector('[data-prevent-double-submit]')) return;
    if (form.dataset.submitted === 'true') {
      event.preventDefault();
      return;
    }
    form.dataset.submitted = 'true';
    // Pages restored from the back/forward cache must be usable again.
    window.addEventListener('pageshow', () => { delete form.dataset.submitted; }, { once: true });
  });
}

/** `data-confirm="Question?"` on a form asks before sending; the server asks again where it matters. */
export function confirmBeforeSubmit() {
  document.addEventListener('submit', (event) => {
    const form = /** @type {HTMLFormElement} */ (event.target);
    const submitter = /** @type {SubmitEvent} */ (event).submitter;
    const question = submitter?.getAttribute('data-confirm') ?? form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) event.preventDefault();
  }, true);
}

/** The announcement waiting to be spoken (the live region is emptied first so a repeat is read again). */
let pendingAnnouncement = 0;

/**
 * Speaks a short message through the page's polite live region, creating it when absent.
 * @param {string} message
 */
export function announce(message) {
  let region = document.getElementById('live-status');
  if (!region) {
    region = document.createElement('div');
    region.id = 'live-status';
    region.className = 'visually-hidden';
    region.setAttribute('role', 'status');
    region.setAttribute('aria-live', 'polite');
    document.body.append(region);
  }
  region.textContent = '';
  // Only the newest message may land: a quick refusal must not be overwritten by the "Uploading …"
  // that was still waiting its turn.
  window.clearTimeout(pendingAnnouncement);
  pendingAnnouncement = window.setTimeout(() => { if (region) region.textContent = message; }, 50);
}

/** `<button data-copy-target="id" hidden>` becomes a working copy button (hidden without script). */
export function copyButtons() {
  for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button[data-copy-target]'))) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const target = document.getElementById(button.dataset.copyTarget ?? '');
      if (!target) return;
      try {
        await navigator.clipboard.writeText(target.textContent?.trim() ?? '');
        announce('Copied to the clipboard');
        button.textContent = 'Copied';
      } catch {
        announce('Could not copy: select the text and copy it by hand');
      }
    });
  }
}

export function enhanceCommon() {
  focusErrorSummary();
  preventDoubleSubmit();
  confirmBeforeSubmit();
  copyButtons();
}
