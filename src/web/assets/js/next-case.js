// "Next case" from the keyboard (issue 27 §3): after a decision, `n` follows the page's Next case
// link. Without this file the link itself works.

/** @param {EventTarget | null} target */
function isTyping(target) {
  const el = /** @type {HTMLElement | null} */ (target);
  if (!el) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

export function enhanceNextCase() {
  const link = /** @type {HTMLAnchorElement | null} */ (document.querySelector('a[data-next-case]'));
  if (!link) return;
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'n' || event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target)) return;
    event.preventDefault();
    window.location.assign(link.href);
  });
}
