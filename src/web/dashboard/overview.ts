import { readConsoleOverview, type ConsoleOverview } from '../../domain/console/overview.ts';
import { html, sendPage } from '../render.ts';
import { barChart } from '../ui/chart.ts';
import { dashboardPage } from './layout.ts';
import { tenantOf, viewerOf } from './context.ts';
import { dashboardRoute } from './route.ts';
import { CATEGORY_TABS } from './cases/format.ts';

const shortDay = (iso: string) => new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function overviewBody(o: ConsoleOverview) {
  const labels = o.days.map(shortDay);
  const delivered = sum(o.delivered);
  const finished = delivered + sum(o.failed);
  const rate = finished === 0 ? null : Math.round((delivered / finished) * 1000) / 10;
  return html`<div class="page-header"><h1>Overview</h1></div>
    <section aria-labelledby="queue-title">
      <h2 id="queue-title">Queue</h2>
      <ul class="grid grid--stats" role="list">
        ${CATEGORY_TABS.map(
          (t) => html`<li><a class="stat" href=${`/dashboard/cases?category=${t.category}`}><span class="stat__value">${o.counts[t.category]}</span><span class="stat__label">${t.text}</span></a></li>`,
        )}
      </ul>
    </section>
    <div class="grid grid--charts">
      <section class="card" aria-labelledby="cases-chart-title">
        <h2 id="cases-chart-title" class="card__title">Cases, last 14 days</h2>
        <p class="small muted">${sum(o.created)} created, ${sum(o.completed)} completed.</p>
        ${barChart({
          id: 'cases-chart',
          title: 'Cases created and completed per day',
          description: `Over the last 14 days, ${sum(o.created)} cases were created and ${sum(o.completed)} completed. The table below gives each day.`,
          labels,
          series: [
            { name: 'Created', values: o.created },
            { name: 'Completed', values: o.completed },
          ],
        })}
      </section>
      <section class="card" aria-labelledby="deliveries-chart-title">
        <h2 id="deliveries-chart-title" class="card__title">Webhook deliveries, last 14 days</h2>
        <p class="small muted">${rate === null ? 'No finished deliveries yet.' : `${rate}% delivered (${delivered} of ${finished} finished).`}${sum(o.pending) > 0 ? ` ${sum(o.pending)} still being tried.` : ''}</p>
        ${barChart({
          id: 'deliveries-chart',
          title: 'Webhook deliveries per day by outcome',
          description: `Over the last 14 days, ${delivered} deliveries succeeded and ${sum(o.failed)} failed after every retry. The table below gives each day.`,
          labels,
          series: [
            { name: 'Delivered', values: o.delivered, tone: 'success' },
            { name: 'Failed', values: o.failed, tone: 'danger' },
          ],
        })}
      </section>
    </div>`;
}

/** GET /dashboard: counts per queue category and 14-day charts of cases and webhook deliveries. */
export const overviewPage = dashboardRoute({
  method: 'GET',
  url: '/',
  auth: 'operator',
  handler: async ({ request, reply, deps }) => {
    const overview = await readConsoleOverview(deps.ctx, { tenant: tenantOf(request) });
    return sendPage(reply, dashboardPage({ viewer: viewerOf(request, deps), title: 'Overview', nav: 'overview', children: overviewBody(overview) }));
  },
});
