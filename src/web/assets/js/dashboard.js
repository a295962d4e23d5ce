// The dashboard's enhancements. Page modules add theirs by looking for their own markup.
import { enhanceCommon } from './common.js';
import { enhanceCaseReview } from './case-review.js';
import { enhanceNextCase } from './next-case.js';

enhanceCommon();
enhanceCaseReview();
enhanceNextCase();
