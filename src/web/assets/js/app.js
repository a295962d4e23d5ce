// The applicant app's enhancements. Page modules add theirs by looking for their own markup.
import { enhanceCommon } from './common.js';
import { pollStatus } from './status.js';
import { enhanceUploads } from './upload.js';

enhanceCommon();
enhanceUploads();
pollStatus();
