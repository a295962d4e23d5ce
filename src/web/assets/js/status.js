// Live status after submitting: the page asks the server where the intake stands every few
// seconds and, when the stage changes, swaps in the new content inside the polite live region,
// so screen readers hear "All done" without the page reloading. Without JS, "Check again" reloads.

const EVERY_MS = 2000;

export function pollStatus() {
  const region = /** @type {HTMLElement | null} */ (document.querySelector('[data-status-poll]'));
  if (!region) return;
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
    } catch {
      window.setTimeout(tick, EVERY_MS * 2);
    }
  };
  window.setTimeout(tick, EVERY_MS);
}
