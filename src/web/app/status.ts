import type { FastifyInstance } from 'fastify';
import type { AppRouteDeps } from './context.ts';

export function registerStatus(_scope: FastifyInstance, _deps: AppRouteDeps): void {}
