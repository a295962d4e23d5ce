import { z } from 'zod';
import { formText, queryText, type WebPage } from '../page-route.ts';
import type { AppRouteDeps } from './context.ts';

/** Who may open an applicant page: the session's own pages (`applicant`), or anyone (`public`). The access hook enforces it before the handler runs. */
export type AppAuth = 'applicant' | 'public';

export type AppPage<P = unknown, Q = unknown, B = unknown> = WebPage<AppRouteDeps, AppAuth, P, Q, B>;

/** Declares an applicant page: the identity function that lets TypeScript infer P, Q and B from the schemas. */
export function appRoute<P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>>(page: AppPage<P, Q, B>): AppPage<P, Q, B> {
  return page;
}

/** The address of a session page: `/s/:sessionId`. */
export const sessionParams = z.object({ sessionId: z.string() });

/** The address of one step's page: `/s/:sessionId/…/:nodeId`. */
export const stepParams = z.object({ sessionId: z.string(), nodeId: z.string() });

/** `?return=check` from a Change link on the check-answers page. */
export const returnQuery = z.object({ return: queryText });

/** A step's form: `return` (back to the check page) beside the step's own fields, whose names come from the case type and are read by `enteredFromBody`. */
export const stepForm = z.looseObject({ return: formText });
