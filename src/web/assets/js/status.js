// Live status after submitting: the page asks the server where the intake stands every few
// seconds and, when the stage changes, swaps in the new content inside the polite live region,
// so screen readers hear that the answers were sent without the page reloading. Without JS,
// "Check again" reloads. When the page has watched reading finish and the session has a
// return_url, it counts down and returns there, as Stripe Checkout does; "Stay on this page" stops it.

const EVERY_MS = 2000;

export function pollStatus() {
  const region = /** @type {HTMLElement | null} */ (document.querySelector('[data-status-poll]'));
  if (!region) return;
  // Reading was already done when the page just sent arrived: the countdown starts at once.
  if (region.querySelector('[data-auto-return][data-auto-start]')) return void startAutoReturn(region);
  const url = region.dataset.statusPoll ?? '';
  const tick = async () => {
    try {
      const res = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' });
      if (!res.ok) return void window.setTimeout(tick, EVERY_MS * 2);
      const { stage } = /** @type {{ stage: string }} */ (await res.json());
      if (stage === region.dataset.stage) return void window.setTimeout(tick, EVERY_MS);
      if (stage !== 'done') return void window.location.reload();
      const page = await fetch(window.location.pathname, { credentials: 'same-origin', cache: 'no-store' });
      const doc = new DOMParser().parseFromString(await page.text(), 'text/html');
      const next = /** @type {HTMLElement | null} */ (doc.querySelector('[data-status-poll]'));
      if (!next) return void window.location.reload();
      region.replaceChildren(...[...next.childNodes].map((n) => document.importNode(n, true)));
      region.dataset.stage = next.dataset.stage ?? stage;
      document.title = doc.title;
      startAutoReturn(region);
    } catch {
      window.setTimeout(tick, EVERY_MS * 2);
    }
  };
  window.setTimeout(tick, EVERY_MS);
}

/**
 * The countdown back to the integrator's site, started when this page saw reading finish, or when
 * it arrived just after the answers were sent with reading already done: an applicant who opens a
 * finished intake again is not sent anywhere. The number changes every
 * second for the eye; the sentence for screen readers was said once when the content arrived.
 * @param {HTMLElement} root
 */
export function startAutoReturn(root) {
  const box = /** @type {HTMLElement | null} */ (root.querySelector('[data-auto-return]'));
  if (!box) return;
  const target = box.dataset.autoReturn ?? '';
  const count = box.querySelector('[data-auto-return-count]');
  let left = Number(box.dataset.seconds) || 20;
  box.hidden = false;
  const timer = window.setInterval(() => {
    left -= 1;
    if (count) count.textContent = String(left);
    if (left > 0) return;
    window.clearInterval(timer);
    window.location.assign(target);
  }, 1000);
  box.querySelector('[data-auto-return-stay]')?.addEventListener('click', () => {
    window.clearInterval(timer);
    box.hidden = true;
    /** @type {HTMLElement | null} */ (root.querySelector('a.button'))?.focus();
  });
}
