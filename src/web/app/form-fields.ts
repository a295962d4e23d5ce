import type { VNode } from 'preact';
import { ADDRESS_PART_NEEDED, DATE_PARTS } from '../../domain/case-types/answer-rules.ts';
import type { FormField } from '../../domain/case-types/definition.ts';
import type { LocalizedCaseType } from '../../domain/case-types/translations.ts';
import { ADDRESS_PARTS, addressParts, type AddressPart } from '../../domain/case-types/field-values.ts';
import type { Translate } from '../i18n/index.ts';
import { formField, formFields } from '../face.ts';
import { html } from '../render.ts';
import type { ErrorItem } from '../ui/components.ts';
import { choices, select, textarea, textInput } from '../ui/fields.ts';
import { currencyName, currencySymbol, formatDecimal, formatLongDate, formatMoney, formatNumber } from './formats.ts';

export type Field = FormField;

/** What the form shows for each control (by control name): the stored answer, or what was just typed. */
export type Entered = Record<string, string>;

/**
 * The `autocomplete` token for a field: from its type where the type says it all, else from the
 * usual field ids (WCAG 1.3.5 asks for it on fields about the user). Unknown ids get none.
 */
export function autocompleteOf(field: Field): string | undefined {
  if (field.type === 'email') return 'email';
  if (field.type === 'phone') return 'tel';
  const id = field.field_id;
  if (/(^|_)(full|legal)_?name$|^name$/.test(id)) return 'name';
  if (/(^|_)(first|given)_name$/.test(id)) return 'given-name';
  if (/(^|_)(last|family)_name$|surname/.test(id)) return 'family-name';
  if (/birth|dob/.test(id)) return 'bday';
  if (/post_?code|postal|zip/.test(id)) return 'postal-code';
  if (/address/.test(id)) return 'street-address';
  if (/country/.test(id)) return 'country-name';
  if (/employer|company|organi[sz]ation/.test(id)) return 'organization';
  return undefined;
}

/**
 * The parts of an address answer as GOV.UK's address pattern asks for them, each with its own
 * label and autocomplete token so browsers fill the whole address at once. Country is free text,
 * so its token is `country-name` (`country` expects a code).
 */
const ADDRESS_CONTROLS: Record<AddressPart, { autocomplete: string; width?: 'w10' | 'w20' }> = {
  line1: { autocomplete: 'address-line1' },
  line2: { autocomplete: 'address-line2' },
  town: { autocomplete: 'address-level2', width: 'w20' },
  postcode: { autocomplete: 'postal-code', width: 'w10' },
  country: { autocomplete: 'country-name', width: 'w20' },
};

/** The controls' current text from a stored answer. */
export function enteredFromAnswer(field: Field, answer: unknown): Entered {
  if (field.type === 'address') {
    const parts = addressParts(answer);
    return Object.fromEntries(ADDRESS_PARTS.map((part) => [`${field.field_id}-${part}`, parts[part] ?? '']));
  }
  const text = answer === undefined || answer === null || typeof answer === 'object' ? '' : String(answer);
  if (field.type === 'date') {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
    return { [`${field.field_id}-day`]: m ? String(Number(m[3])) : '', [`${field.field_id}-month`]: m ? String(Number(m[2])) : '', [`${field.field_id}-year`]: m ? m[1]! : '' };
  }
  return { [field.field_id]: text };
}

/** The controls' text as posted, so a page re-shown with errors keeps everything typed. */
export function enteredFromBody(field: Field, body: unknown): Entered {
  if (field.type === 'date') return Object.fromEntries(DATE_PARTS.map((part) => [`${field.field_id}-${part}`, formField(body, `${field.field_id}-${part}`).trim()]));
  if (field.type === 'address') return Object.fromEntries(ADDRESS_PARTS.map((part) => [`${field.field_id}-${part}`, formField(body, `${field.field_id}-${part}`).trim()]));
  if (field.type === 'checkbox') return { [field.field_id]: formFields(body, field.field_id).includes('yes') ? 'yes' : '' };
  return { [field.field_id]: formField(body, field.field_id) };
}

/**
 * What the controls hold, as the domain's `checkAnswer` reads it: a date's day, month and year, an
 * address's parts, or the one control's text. The rules are the domain's; the face only gathers.
 */
export function answerFromEntered(field: Field, entered: Entered): unknown {
  const id = field.field_id;
  if (field.type === 'date') return Object.fromEntries(DATE_PARTS.map((part) => [part, entered[`${id}-${part}`] ?? '']));
  if (field.type === 'address') return Object.fromEntries(ADDRESS_PARTS.map((part) => [part, entered[`${id}-${part}`] ?? '']));
  return entered[id] ?? '';
}

type OptionTexts = Pick<LocalizedCaseType, 'optionText'>;
const asWritten: OptionTexts = { optionText: (_field, option) => option };

/**
 * One control, typed by the field's type, with its label, hint, error, autocomplete and inputmode.
 * `field` carries its texts in the page's language; `texts` says how its options read (an
 * option's value stays the stored answer).
 */
export function fieldControl(field: Field, entered: Entered, error: ErrorItem | undefined, t: Translate, locale: string, labelIsHeading = false, texts: OptionTexts = asWritten): VNode {
  const id = field.field_id;
  const options = (field.options ?? []).map((o) => ({ value: o, text: texts.optionText(field, o) }));
  const common = {
    id,
    name: id,
    label: field.label,
    hint: field.hint,
    optionalText: field.required ? undefined : t('common.optional'),
    error: error?.text,
    errorPrefix: t('common.error_prefix'),
    labelIsHeading,
    autocomplete: autocompleteOf(field),
  };
  const value = entered[id] ?? '';
  switch (field.type) {
    case 'email':
      return textInput({ ...common, type: 'email', value, spellcheck: false });
    case 'phone':
      return textInput({ ...common, type: 'tel', inputmode: 'tel', value, hint: field.hint ?? t('field.phone_hint'), width: 'w20' });
    case 'money':
      return textInput({
        ...common,
        value,
        inputmode: 'decimal',
        // The prefix is hidden from screen readers (GOV.UK), so the hint names the currency in words.
        hint: field.hint ?? (field.currency ? t('field.money_hint_currency', { currency: `${currencyName(field.currency, locale)} (${field.currency})` }) : t('field.money_hint')),
        prefix: field.currency ? currencySymbol(field.currency, locale) : undefined,
        width: 'w10',
        spellcheck: false,
      });
    case 'number':
      return textInput({ ...common, value, inputmode: 'numeric', width: 'w10', spellcheck: false });
    case 'textarea':
      return textarea({ ...common, value });
    case 'select':
      return select({ ...common, value, placeholder: t('field.select_placeholder'), options });
    case 'one_of':
      return choices({ ...common, type: 'radio', legendIsHeading: labelIsHeading, values: value === '' ? [] : [value], options });
    case 'checkbox':
      return checkbox(field, value === 'yes', error, t);
    case 'address':
      return addressInput(field, entered, error, t, labelIsHeading);
    case 'date':
      return dateInput(field, entered, error, t, labelIsHeading);
    default:
      return textInput({ ...common, value, spellcheck: common.autocomplete === 'name' ? false : undefined });
  }
}

function checkbox(field: Field, checked: boolean, error: ErrorItem | undefined, t: Translate): VNode {
  const id = field.field_id;
  return html`<div class=${error ? 'form-group form-group--error' : 'form-group'}>
    ${error ? html`<p id=${`${id}-error`} class="error-message"><span class="visually-hidden">${t('common.error_prefix')} </span>${error.text}</p>` : null}
    <div class="choice">
      <input id=${id} name=${id} type="checkbox" value="yes" checked=${checked} aria-describedby=${error ? `${id}-error` : undefined} />
      <label for=${id}>${field.label}${field.required ? null : ` ${t('common.optional')}`}</label>
    </div>
  </div>`;
}

/** GOV.UK's address pattern: a fieldset whose legend is the question, one labelled box per part, each with its autocomplete token. */
function addressInput(field: Field, entered: Entered, error: ErrorItem | undefined, t: Translate, legendIsHeading: boolean): VNode {
  const id = field.field_id;
  const legendText = field.required ? field.label : `${field.label} ${t('common.optional')}`;
  return html`<div class=${error ? 'form-group form-group--error' : 'form-group'}>
    <fieldset aria-describedby=${error ? `${id}-error` : undefined}>
      <legend class=${legendIsHeading ? 'fieldset__legend--page' : 'fieldset__legend--group'}>${legendIsHeading ? html`<h1 class="label--page">${legendText}</h1>` : legendText}</legend>
      ${error ? html`<p id=${`${id}-error`} class="error-message"><span class="visually-hidden">${t('common.error_prefix')} </span>${error.text}</p>` : null}
      ${ADDRESS_PARTS.map((part) => {
        const partId = `${id}-${part}`;
        const c = ADDRESS_CONTROLS[part];
        const wrong = error?.href === partId;
        const label = ADDRESS_PART_NEEDED[part] ? t(`field.address_${part}` as 'field.address_line1') : `${t(`field.address_${part}` as 'field.address_line1')} ${t('common.optional')}`;
        return html`<div class="form-group">
          <label class="label" for=${partId}>${label}</label>
          <input class=${`input${c.width ? ` input--${c.width}` : ''}${wrong ? ' input--error' : ''}`} id=${partId} name=${partId} type="text" value=${entered[partId] ?? ''} autocomplete=${c.autocomplete} aria-invalid=${wrong ? 'true' : undefined} />
        </div>`;
      })}
    </fieldset>
  </div>`;
}

/** GOV.UK's date input: day, month and year boxes in a fieldset, numeric keyboards, bday-* autocomplete for birth dates. */
function dateInput(field: Field, entered: Entered, error: ErrorItem | undefined, t: Translate, legendIsHeading: boolean): VNode {
  const id = field.field_id;
  const birth = autocompleteOf(field) === 'bday';
  const described = [`${id}-hint`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const legendText = field.required ? field.label : `${field.label} ${t('common.optional')}`;
  const part = (name: (typeof DATE_PARTS)[number], width: 'w5' | 'w10') => {
    const partId = `${id}-${name}`;
    const autocomplete = birth ? `bday-${name}` : undefined;
    return html`<div class="form-group">
      <label class="label" for=${partId}>${t(`field.${name}`)}</label>
      <input class=${`input input--${width}${error ? ' input--error' : ''}`} id=${partId} name=${partId} type="text" inputmode="numeric" value=${entered[partId] ?? ''} autocomplete=${autocomplete} spellcheck="false" aria-invalid=${error ? 'true' : undefined} />
    </div>`;
  };
  return html`<div class=${error ? 'form-group form-group--error' : 'form-group'}>
    <fieldset role="group" aria-describedby=${described}>
      <legend class=${legendIsHeading ? 'fieldset__legend--page' : undefined}>${legendIsHeading ? html`<h1 class="label--page">${legendText}</h1>` : legendText}</legend>
      <div id=${`${id}-hint`} class="hint">${t('field.date_hint')}</div>
      ${error ? html`<p id=${`${id}-error`} class="error-message"><span class="visually-hidden">${t('common.error_prefix')} </span>${error.text}</p>` : null}
      <div class="date-input">${part('day', 'w5')}${part('month', 'w5')}${part('year', 'w10')}</div>
    </fieldset>
  </div>`;
}

/**
 * How an answer reads on the check page: '' when not answered; an address one part per line, as
 * GOV.UK shows it; money with its currency and numbers and dates as the locale writes them.
 */
export function answerDisplay(field: Field, answer: unknown, t: Translate, locale: string, texts: OptionTexts = asWritten): string | VNode {
  if (field.type === 'address') {
    const parts = addressParts(answer);
    const lines = ADDRESS_PARTS.map((p) => parts[p]).filter((p): p is string => p !== undefined);
    return lines.length === 0 ? '' : html`${lines.map((line, i) => html`${i > 0 ? html`<br />` : null}${line}`)}`;
  }
  const text = answer === undefined || answer === null || typeof answer === 'object' ? '' : String(answer);
  if (text === '') return '';
  if (field.type === 'checkbox') return text === 'yes' ? t('field.yes') : '';
  if (field.type === 'money' && /^\d+(\.\d+)?$/.test(text)) {
    return field.currency ? formatMoney(locale, field.currency, Number(text)) : formatDecimal(locale, Number(text));
  }
  if (field.type === 'number' && /^-?\d+(\.\d+)?$/.test(text)) return formatNumber(locale, Number(text));
  if (field.type === 'select' || field.type === 'one_of') return texts.optionText(field, text);
  if (field.type === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(text)) {
    return formatLongDate(locale, new Date(`${text}T00:00:00Z`));
  }
  return text;
}
