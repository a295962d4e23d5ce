import type { FastifyInstance } from 'fastify';
import type { DashboardRouteDeps } from '../context.ts';
import { registerQueue } from './queue.ts';
import { registerCasePage } from './case-page.ts';

/** The operator's case pages: the queue, the case page with its evidence viewer, and the case actions. */
export function registerCases(scope: FastifyInstance, deps: DashboardRouteDeps): void {
  registerQueue(scope, deps);
  registerCasePage(scope, deps);
}
