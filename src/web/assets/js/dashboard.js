// The dashboard's enhancements. Page modules add theirs by looking for their own markup.
import { enhanceCommon } from './common.js';
import { enhanceCaseReview } from './case-review.js';
import { enhanceNextCase } from './next-case.js';

/**
 * `<button data-copy-raw="id" hidden>` copies the value of the textarea `id` exactly as it is (no
 * trimming: a delivery's raw body is what was signed) and says "Copied" in the live region beside
 * it. Without script the button stays hidden and the textarea is still there to select.
 */
function copyRawButtons() {
  for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button[data-copy-raw]'))) {
    const source = /** @type {HTMLTextAreaElement | null} */ (document.getElementById(button.dataset.copyRaw ?? ''));
    const status = button.parentElement?.querySelector('[role="status"]') ?? null;
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      if (status) status.textContent = '';
      let message;
      try {
        await navigator.clipboard.writeText(source.value);
        message = 'Copied';
      } catch {
        message = 'Could not copy: open “Raw body, as signed” and copy it by hand';
      }
      // Emptied first and set a moment later, so a second copy is announced again.
      window.setTimeout(() => { if (status) status.textContent = message; }, 50);
    });
  }
}

enhanceCommon();
enhanceCaseReview();
enhanceNextCase();
copyRawButtons();
