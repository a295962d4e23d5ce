import type { VNode } from 'preact';
import type { FormNode } from '../../domain/case-types/definition.ts';
import { ADDRESS_PARTS, addressParts, type AddressAnswer, type AddressPart } from '../../domain/case-types/field-values.ts';
import type { Translate } from '../i18n/index.ts';
import { formField, formFields } from '../face.ts';
import { html } from '../render.ts';
import type { ErrorItem } from '../ui/components.ts';
import { choices, select, textarea, textInput } from '../ui/fields.ts';
import { labelParams } from './context.ts';
import { currencyName, currencySymbol, formatLongDate, formatMoney } from './formats.ts';

export type Field = FormNode['fields'][number];

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

const DATE_PARTS = ['day', 'month', 'year'] as const;

/**
 * The parts of an address answer as GOV.UK's address pattern asks for them, each with its own
 * label and autocomplete token so browsers fill the whole address at once. Country is free text,
 * so its token is `country-name` (`country` expects a code).
 */
const ADDRESS_CONTROLS: Record<AddressPart, { autocomplete: string; width?: 'w10' | 'w20'; required: boolean }> = {
  line1: { autocomplete: 'address-line1', required: true },
  line2: { autocomplete: 'address-line2', required: false },
  town: { autocomplete: 'address-level2', width: 'w20', required: true },
  postcode: { autocomplete: 'postal-code', width: 'w10', required: true },
  country: { autocomplete: 'country-name', width: 'w20', required: false },
};
const ADDRESS_PART_MAX = 200;
const POSTCODE = /^[\p{L}\p{N}][\p{L}\p{N} -]{1,11}$/u;


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

export interface Checked {
  /** The value to store ('' for an optional field left blank; an address is an object of its parts). */
  value: string | AddressAnswer;
  error?: ErrorItem;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ()\-.]{7,20}$/;

/** Server-side validation of one field, with GOV.UK's specific messages; returns the normalised value to store. */
export function checkField(field: Field, entered: Entered, t: Translate): Checked {
  const params = labelParams(field.label);
  const id = field.field_id;
  const err = (text: string, href = id): Checked => ({ value: '', error: { href, text } });
  if (field.type === 'date') {
    const [d, m, y] = DATE_PARTS.map((part) => entered[`${id}-${part}`] ?? '');
    if (d === '' && m === '' && y === '') return field.required ? err(t('field.required', params), `${id}-day`) : { value: '' };
    if (d === '' || m === '' || y === '') return err(t('field.date_incomplete', params), `${id}-${d === '' ? 'day' : m === '' ? 'month' : 'year'}`);
    const [day, month, year] = [Number(d), Number(m), Number(y)];
    const date = new Date(Date.UTC(year, month - 1, day));
    const real = /^\d{1,2}$/.test(d!) && /^\d{1,2}$/.test(m!) && /^\d{4}$/.test(y!) && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
    if (!real) return err(t('field.date_invalid', params), `${id}-day`);
    return { value: date.toISOString().slice(0, 10) };
  }
  if (field.type === 'address') return checkAddress(field, entered, t);
  const raw = (entered[id] ?? '').trim();
  if (raw === '') {
    if (!field.required) return { value: '' };
    if (field.type === 'checkbox') return err(t('field.required_checkbox', params));
    if (field.type === 'one_of') return err(t('field.required_one_of', params));
    return err(t(field.type === 'select' ? 'field.required_select' : 'field.required', params));
  }
  let value = raw;
  switch (field.type) {
    case 'email':
      if (!EMAIL.test(raw) || raw.length > 254) return err(t('field.email_invalid'));
      break;
    case 'phone':
      if (!PHONE.test(raw) || raw.replace(/\D/g, '').length < 7) return err(t('field.phone_invalid'));
      break;
    case 'money': {
      // People type "1,250.50", "$1250" or "1 250,50": drop currency signs and spaces, then read
      // commas as thousands separators ("1,250") or as the decimal mark ("1250,50").
      let cleaned = raw.replace(/[\s$€£]/g, '');
      if (field.currency) cleaned = cleaned.replace(new RegExp(`^${field.currency}|${field.currency}$`, 'i'), '');
      if (/^\d{1,3}(,\d{3})+(\.\d{1,2})?$/.test(cleaned)) cleaned = cleaned.replace(/,/g, '');
      else if (/^\d+,\d{1,2}$/.test(cleaned)) cleaned = cleaned.replace(',', '.');
      if (!/^\d+(\.\d{1,2})?$/.test(cleaned)) return err(t('field.money_invalid', params));
      value = Number(cleaned).toFixed(2);
      break;
    }
    case 'number':
      if (!/^-?\d+(\.\d+)?$/.test(raw.replace(',', '.'))) return err(t('field.number_invalid', params));
      value = raw.replace(',', '.');
      break;
    case 'select':
      if (!(field.options ?? []).includes(raw)) return err(t('field.select_invalid', params));
      break;
    case 'one_of':
      // Radios post one of their values; anything else was not offered.
      if (!(field.options ?? []).includes(raw)) return err(t('field.required_one_of', params));
      break;
    case 'checkbox':
      value = 'yes';
      break;
    default:
      break;
  }
  const v = field.validation;
  if (v) {
    if (v.min_length !== undefined && value.length < v.min_length) return err(t('field.too_short', { ...params, min: v.min_length }));
    if (v.max_length !== undefined && value.length > v.max_length) return err(t('field.too_long', { ...params, max: v.max_length }));
    if ((field.type === 'money' || field.type === 'number') && v.min !== undefined && Number(value) < v.min) return err(t('field.below_min', { ...params, min: v.min }));
    if ((field.type === 'money' || field.type === 'number') && v.max !== undefined && Number(value) > v.max) return err(t('field.above_max', { ...params, max: v.max }));
    if (v.pattern !== undefined && !safePattern(v.pattern).test(value)) return err(t('field.pattern', params));
  }
  return { value };
}

/**
 * An address: line 1, town and postcode are needed (all of them when the field is required, or
 * once any part is given); line 2 and country are optional. The first problem is reported, on the
 * part it is about, so the summary link lands in that box.
 */
function checkAddress(field: Field, entered: Entered, t: Translate): Checked {
  const id = field.field_id;
  const parts: AddressAnswer = {};
  for (const part of ADDRESS_PARTS) {
    const v = (entered[`${id}-${part}`] ?? '').replace(/\s+/g, ' ').trim();
    if (v !== '') parts[part] = v;
  }
  const err = (part: AddressPart, text: string): Checked => ({ value: '', error: { href: `${id}-${part}`, text } });
  if (Object.keys(parts).length === 0 && !field.required) return { value: '' };
  for (const part of ADDRESS_PARTS) {
    if (ADDRESS_CONTROLS[part].required && parts[part] === undefined) return err(part, t(`field.address_${part}_required` as 'field.address_line1_required'));
    if ((parts[part]?.length ?? 0) > ADDRESS_PART_MAX) return err(part, t('field.address_too_long', { part: t(`field.address_${part}` as 'field.address_line1'), max: ADDRESS_PART_MAX }));
  }
  if (!POSTCODE.test(parts.postcode!)) return err('postcode', t('field.address_postcode_invalid'));
  return { value: parts };
}

function safePattern(pattern: string): RegExp {
  try {
    return new RegExp(`^(?:${pattern})$`, 'u');
  } catch {
    return /.*/;
  }
}

/** One control, typed by the field's type, with its label, hint, error, autocomplete and inputmode. */
export function fieldControl(field: Field, entered: Entered, error: ErrorItem | undefined, t: Translate, locale: string, labelIsHeading = false): VNode {
  const id = field.field_id;
  const common = {
    id,
    name: id,
    label: field.label,
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
      return textInput({ ...common, type: 'tel', inputmode: 'tel', value, hint: t('field.phone_hint'), width: 'w20' });
    case 'money':
      return textInput({
        ...common,
        value,
        inputmode: 'decimal',
        // The prefix is hidden from screen readers (GOV.UK), so the hint names the currency in words.
        hint: field.currency ? t('field.money_hint_currency', { currency: `${currencyName(field.currency, locale)} (${field.currency})` }) : t('field.money_hint'),
        prefix: field.currency ? currencySymbol(field.currency, locale) : undefined,
        width: 'w10',
        spellcheck: false,
      });
    case 'number':
      return textInput({ ...common, value, inputmode: 'numeric', width: 'w10', spellcheck: false });
    case 'textarea':
      return textarea({ ...common, value });
    case 'select':
      return select({ ...common, value, placeholder: t('field.select_placeholder'), options: (field.options ?? []).map((o) => ({ value: o, text: o })) });
    case 'one_of':
      return choices({ ...common, type: 'radio', legendIsHeading: labelIsHeading, values: value === '' ? [] : [value], options: (field.options ?? []).map((o) => ({ value: o, text: o })) });
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
        const label = c.required ? t(`field.address_${part}` as 'field.address_line1') : `${t(`field.address_${part}` as 'field.address_line1')} ${t('common.optional')}`;
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

/** How an answer reads on the check page: '' when not answered; an address one part per line, as GOV.UK shows it. */
export function answerDisplay(field: Field, answer: unknown, t: Translate, locale: string): string | VNode {
  if (field.type === 'address') {
    const parts = addressParts(answer);
    const lines = ADDRESS_PARTS.map((p) => parts[p]).filter((p): p is string => p !== undefined);
    return lines.length === 0 ? '' : html`${lines.map((line, i) => html`${i > 0 ? html`<br />` : null}${line}`)}`;
  }
  const text = answer === undefined || answer === null || typeof answer === 'object' ? '' : String(answer);
  if (text === '') return '';
  if (field.type === 'checkbox') return text === 'yes' ? t('field.yes') : '';
  if (field.type === 'money' && field.currency && /^\d+(\.\d+)?$/.test(text)) {
    return formatMoney(locale, field.currency, Number(text));
  }
  if (field.type === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(text)) {
    return formatLongDate(locale, new Date(`${text}T00:00:00Z`));
  }
  return text;
}
