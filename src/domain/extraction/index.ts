/**
 * Fact extraction: canonical page texts + a case type's fact definitions → facts with exact
 * evidence. Pure and synchronous; see extract-facts.ts for the method, scoring and statuses.
 */
export { extractFacts, factsForDocumentKind, MIN_RESOLVED_SCORE, CONFLICT_MARGIN } from './extract-facts.ts';
export type { ExtractFactsInput } from './extract-facts.ts';
export { assertFactEvidence, createEvidence, indexPages, EvidenceInvariantError } from './evidence.ts';
export { parseDate, inferDateOrder } from '../parsers/date.ts';
export { parseMoney } from '../parsers/money.ts';
export { parseNumber } from '../parsers/number.ts';
export { parseName, parseString, parseIdNumber } from '../parsers/text.ts';
export { parseAddress } from '../parsers/address.ts';
export type { DateOrder, ParseContext, ParsedValue } from '../parsers/common.ts';
export { FACT_REASON_CODES, FACT_TYPES, MAX_CANDIDATES } from './types.ts';
export type {
  CandidateAnchor,
  Evidence,
  ExtractedFact,
  ExtractionPage,
  FactCandidate,
  FactDefinition,
  FactReasonCode,
  FactStatus,
  FactType,
  Provenance,
  ValuePlacement,
} from './types.ts';
