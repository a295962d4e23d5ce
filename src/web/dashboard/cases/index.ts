import { assignmentPost } from './assignment.ts';
import { caseFilePage } from './case-file.ts';
import { casePage } from './case-page.ts';
import { correctFactPost, factPage } from './correct-fact.ts';
import { decisionPost } from './decision.ts';
import { documentFilePage } from './document-file.ts';
import { erasurePage, erasurePost } from './erasure.ts';
import { packagePage } from './package.ts';
import { pageImagePage } from './page-image.ts';
import { nextCasePage } from './next-case.ts';
import { queuePage } from './queue.ts';

/** The operator's case pages: the queue, the case page with its evidence viewer, and the case actions. */
export const casePages = [
  queuePage,
  nextCasePage,
  casePage,
  assignmentPost,
  pageImagePage,
  documentFilePage,
  factPage,
  correctFactPost,
  decisionPost,
  erasurePage,
  erasurePost,
  packagePage,
  caseFilePage,
];
