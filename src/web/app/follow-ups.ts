import type { FastifyInstance } from 'fastify';
import type { AppRouteDeps } from './context.ts';

export function registerFollowUps(_scope: FastifyInstance, _deps: AppRouteDeps): void {}
