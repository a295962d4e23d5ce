/**
 * The case job that turns an attached document into page texts and facts
 * (processing/document-job.ts runs it). Declared with the documents, below both callers that
 * queue it (the process API and the applicant's upload), so neither imports the other's folder.
 */
export const DOCUMENT_PROCESSING_JOB = 'document_processing';
