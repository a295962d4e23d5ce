import type { FastifyInstance } from 'fastify';
import type { AppRouteDeps } from './context.ts';

export function registerCheckAnswers(_scope: FastifyInstance, _deps: AppRouteDeps): void {}
