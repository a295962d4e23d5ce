import type { FastifyInstance } from 'fastify';
import type { AppRouteDeps } from './context.ts';

export function registerUploadStep(_scope: FastifyInstance, _deps: AppRouteDeps): void {}
