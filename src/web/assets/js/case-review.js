// The case page's keyboard review: j and k move to the next and previous flagged fact and show
// its evidence. Without this file the same works through each fact's "Show evidence" link.
// It also brings the evidence into view inside the viewer's scroll boxes: the outline on a zoomed
// page, the quote in the page text.

const FOCUS_KEY = 'dossier:focus-fact';

/** @param {EventTarget | null} target */
function isTyping(target) {
  const el = /** @type {HTMLElement | null} */ (target);
  if (!el) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

/**
 * Scrolls `box` so that `target` sits in its middle, moving only that box: the window stays where
 * it is (scrollIntoView would scroll the page too).
 * @param {Element} box
 * @param {Element} target
 */
function centreIn(box, target) {
  const b = box.getBoundingClientRect();
  const t = target.getBoundingClientRect();
  box.scrollLeft += t.left + t.width / 2 - (b.left + box.clientWidth / 2);
  box.scrollTop += t.top + t.height / 2 - (b.top + box.clientHeight / 2);
}

/** The evidence outline in the page box (zoomed pages scroll both ways) and the quote in the page text. */
function showEvidence() {
  const view = document.querySelector('[data-page-view]');
  const outline = view?.querySelector('rect[data-evidence-box]');
  if (view && outline) {
    const image = view.querySelector('svg image');
    // The svg has its size before the image arrives; centring again after it is drawn is harmless.
    centreIn(view, outline);
    image?.addEventListener('load', () => centreIn(view, outline), { once: true });
  }
  const quote = document.getElementById('quote');
  const text = quote?.closest('.page-text');
  if (quote && text) centreIn(text, quote);
}

export function enhanceCaseReview() {
  showEvidence();
  const flagged = /** @type {HTMLElement[]} */ ([...document.querySelectorAll('li[data-flagged]')]);
  if (flagged.length === 0) return;
  // After a j/k move the page reloads on the chosen fact: put focus back on it.
  const wanted = window.sessionStorage.getItem(FOCUS_KEY);
  if (wanted) {
    window.sessionStorage.removeItem(FOCUS_KEY);
    const item = document.getElementById(wanted);
    // After load: scrolling to the link's #evidence fragment would otherwise take focus back to the body.
    const focus = () => window.requestAnimationFrame(() => item?.focus({ preventScroll: true }));
    if (item) {
      if (document.readyState === 'complete') focus();
      else window.addEventListener('load', focus, { once: true });
    }
  }

  document.addEventListener('keydown', (event) => {
    if (event.key !== 'j' && event.key !== 'k') return;
    if (event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target)) return;
    const current = flagged.findIndex((li) => li.classList.contains('fact--selected') || li.contains(document.activeElement));
    const step = event.key === 'j' ? 1 : -1;
    const next = current === -1 ? (step === 1 ? 0 : flagged.length - 1) : (current + step + flagged.length) % flagged.length;
    const item = flagged[next];
    if (!item) return;
    event.preventDefault();
    const link = /** @type {HTMLAnchorElement | null} */ (item.querySelector('a[data-fact-link]'));
    if (link) {
      window.sessionStorage.setItem(FOCUS_KEY, item.id);
      window.location.assign(link.href);
    } else {
      item.focus();
    }
  });
}
