import { extractFacts, type ExtractedFact, type ExtractionPage, type FactDefinition } from '../extraction/index.ts';
import { isBlank, splitPageLines, type PageLine } from '../extraction/lines.ts';

/** A label of the document that, added as an anchor, makes extraction read the fact. */
export interface AnchorSuggestion {
  /** The label as printed, cleaned of its trailing colon or leaders: the anchor to add. */
  readonly anchor: string;
  /** The value extraction reads with the anchor added, and where. */
  readonly value: string;
  readonly page_index: number;
  readonly quote: string;
  /** "Add 'Premium (yearly)' as an anchor". */
  readonly message: string;
}

/** Suggestions per missing fact, best first. Three are enough to choose from; more is noise. */
const MAX_SUGGESTIONS = 3;
/** Labels tried per document: a dense page has ~40 label cells; past this the rest are table noise. */
const MAX_LABELS = 80;
const MAX_LABEL_CHARS = 60;
const MAX_LABEL_WORDS = 8;
/**
 * Characters of page text the trial extractions may read in all, per sample. One trial reads the
 * whole sample (~2.8 µs a character measured: a 0.86 MB text took 2.4 s), so this bounds the
 * search at ~5 s; a three-page sample (~6,000 characters) gets ~330 trials, more than 80 labels ×
 * four missing facts. Past it the labels sharing the most words with the fact have been tried.
 */
const TRIAL_CHARACTER_BUDGET = 2_000_000;
const TRAILING_SEPARATORS = /[\s:;#=|.…_*>-]+$/u;

/**
 * The labels printed in the document: a cell's text before its colon ("Renewal date: 1 May"), a
 * cell with a neighbour to its right ("Premium (yearly) ⇥ EUR 240.00"), and a cell alone on its
 * line with a line under it (a label above its value). The same three placements extraction
 * looks in (extract-facts.ts), so a label found here is one extraction could read after.
 */
export function documentLabels(pages: readonly ExtractionPage[]): string[] {
  const seen = new Map<string, string>();
  const add = (raw: string) => {
    const label = raw.replace(TRAILING_SEPARATORS, '').trim();
    if (label.length < 2 || label.length > MAX_LABEL_CHARS) return;
    if (!/\p{L}{2}/u.test(label) || /^\P{L}*\d/u.test(label)) return;
    if (label.split(/\s+/).length > MAX_LABEL_WORDS) return;
    const key = label.toLocaleLowerCase();
    if (!seen.has(key)) seen.set(key, label);
  };
  for (const page of pages) {
    const lines = splitPageLines(page.text);
    lines.forEach((line: PageLine, i) => {
      if (isBlank(line)) return;
      for (const segment of line.segments) {
        const colon = segment.text.indexOf(':');
        if (colon > 0) add(segment.text.slice(0, colon));
        else if (line.segments[segment.column + 1]) add(segment.text);
      }
      const below = lines.slice(i + 1, i + 4).find((l) => !isBlank(l));
      if (line.segments.length === 1 && below && !line.text.includes(':')) add(line.segments[0]!.text);
    });
  }
  return [...seen.values()].slice(0, MAX_LABELS);
}

/**
 * For each fact the document did not give, the labels that would give it: each label is added to
 * the fact's anchors and extraction runs again over the whole kind (the other facts' anchors still
 * cut cells as they will after the change), so every suggestion is one that works — the value it
 * reads is shown beside it. A label some found fact already reads by is left out: it is that
 * fact's. Ranked by the words the label shares with the fact's label, id and anchors (the
 * customer named the fact; "Annual premium" leads to "Premium (yearly)" before "Policy fee"),
 * then by match quality, then by place in the document.
 */
export function suggestAnchors(input: {
  readonly pages: readonly ExtractionPage[];
  readonly facts: readonly FactDefinition[];
  readonly extracted: readonly ExtractedFact[];
}): Map<string, AnchorSuggestion[]> {
  const labels = documentLabels(input.pages);
  const claimed = new Set(
    input.extracted
      .filter((f) => f.status === 'resolved')
      .flatMap((f) => f.candidates.filter((c) => c.candidate_id === f.candidate_id).map((c) => fold(c.anchor.quote))),
  );
  const suggestions = new Map<string, AnchorSuggestion[]>();
  const sampleCharacters = Math.max(1, input.pages.reduce((n, p) => n + p.text.length, 0));
  const missing = input.facts.filter((fact) => input.extracted.find((f) => f.fact_id === fact.fact_id)?.status !== 'resolved');
  // Shared evenly, so the first missing fact cannot spend every other fact's trials.
  const trialsPerFact = Math.floor(TRIAL_CHARACTER_BUDGET / sampleCharacters / Math.max(1, missing.length));
  missing.forEach((fact) => {
    let trialsLeft = trialsPerFact;
    const own = new Set(fact.anchors.map(fold));
    const wordsOfFact = words([fact.label, fact.fact_id.replace(/_/g, ' '), ...fact.anchors].join(' '));
    const found: Array<AnchorSuggestion & { rank: number; quality: number; order: number }> = [];
    // Likeliest labels first, so a spent budget has tried them.
    const ranked = labels
      .map((label, order) => ({ label, order, rank: shareOf(words(label), wordsOfFact) }))
      .filter(({ label }) => !claimed.has(fold(label)) && !own.has(fold(label)) && fact.anchors.length < 20)
      .sort((a, b) => b.rank - a.rank || a.order - b.order);
    ranked.forEach(({ label, order, rank }) => {
      if (trialsLeft <= 0) return;
      trialsLeft--;
      const trial = input.facts.map((f) => (f.fact_id === fact.fact_id ? { ...f, anchors: [...f.anchors, label] } : f));
      const again = extractFacts({ documentId: 'doc_try', pages: input.pages, facts: trial }).find((f) => f.fact_id === fact.fact_id);
      if (!again || again.status !== 'resolved' || again.value === null) return;
      const chosen = again.candidates.find((c) => c.candidate_id === again.candidate_id);
      // Resolved through one of its old anchors after all (a cell the new label cut free): not this label's doing.
      if (!chosen || fold(chosen.anchor.phrase) !== fold(label)) return;
      found.push({
        anchor: label,
        value: again.value,
        page_index: chosen.page_index,
        quote: chosen.evidence.map((e) => e.quote).join(' '),
        message: `Add '${label}' as an anchor`,
        rank,
        quality: again.anchor_match_quality,
        order,
      });
    });
    found.sort((a, b) => b.rank - a.rank || b.quality - a.quality || a.order - b.order);
    suggestions.set(
      fact.fact_id,
      found.slice(0, MAX_SUGGESTIONS).map(({ anchor, value, page_index, quote, message }) => ({ anchor, value, page_index, quote, message })),
    );
  });
  return suggestions;
}

/** The share of a label's words that name the fact: 1 for "Premium (yearly)" against "Yearly premium". */
function shareOf(labelWords: readonly string[], wordsOfFact: readonly string[]): number {
  return labelWords.length === 0 ? 0 : labelWords.filter((w) => wordsOfFact.includes(w)).length / labelWords.length;
}

function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** Words of three letters or more, folded, a plural "s" dropped: "Premiums (yearly)" → premium, yearly. */
function words(text: string): string[] {
  return fold(text)
    .split(' ')
    .filter((w) => w.length >= 3)
    .map((w) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w));
}
