import { currencyMarkerOfQuote, currencyOfMarker } from '../../domain/parsers/money.ts';
import type { FactType } from '../../domain/case-types/definition-shape.ts';

/**
 * A fact's value as a person reads it: a date as "5 June 2026", an amount with the currency its
 * quote was written with ("$2,450.00", "€258.00"); anything else as stored. Shared by the case page
 * and Try a document, which show the same values.
 */
export function valueForPeople(value: string | null, quote: unknown): string {
  if (value === null) return 'No value';
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = new Date(`${value}T00:00:00Z`);
    if (!Number.isNaN(day.getTime())) return day.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  }
  if (/^-?\d+\.\d{2}$/.test(value) && typeof quote === 'string') {
    const marker = currencyMarkerOfQuote(quote);
    if (marker !== undefined) {
      const iso = currencyOfMarker(marker);
      const amount = Number(value);
      return iso ? new Intl.NumberFormat('en-GB', { style: 'currency', currency: iso }).format(amount) : `${marker}${new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount)}`;
    }
  }
  return value;
}

/** A fact type in words, for sentences such as "no label sits next to a date". */
export const FACT_TYPE_WORDS: Record<FactType, string> = {
  string: 'text',
  name: 'a name',
  date: 'a date',
  money: 'an amount',
  number: 'a number',
  id_number: 'a reference number',
  address: 'an address',
};

/** Why a fact has no value, in words (extraction's reason codes; the code itself stays in the title). */
export const MISSING_REASON_WORDS: Record<string, string> = {
  not_found: 'None of its anchors is on the document',
  unparseable_value: 'A value was next to an anchor but could not be read as the fact’s type',
  conflicting_candidates: 'Two different values were found',
  low_confidence: 'The value found was too uncertain',
};
