import type { VNode } from 'preact';
import { html } from '../render.ts';

/**
 * Form controls in the GOV.UK pattern: label, hint, error message, control, with the hint and
 * the error joined to the control by aria-describedby. Every control has a visible label.
 */
interface FieldBase {
  id: string;
  name: string;
  label: string;
  /** Shown after the label: "(optional)", never an asterisk for required fields. */
  optionalText?: string | undefined;
  hint?: string | undefined;
  error?: string | undefined;
  /** The label is the page's heading (one question per page). */
  labelIsHeading?: boolean;
  /** The label is read by screen readers only: where a column header already names the field for sighted people. */
  labelHidden?: boolean;
  /** Visually hidden prefix for the error message ("Error:"). */
  errorPrefix?: string;
}

function describedBy(f: FieldBase): string | undefined {
  const ids = [f.hint ? `${f.id}-hint` : '', f.error ? `${f.id}-error` : ''].filter(Boolean);
  return ids.length > 0 ? ids.join(' ') : undefined;
}

function labelText(f: FieldBase): string {
  return f.optionalText ? `${f.label} ${f.optionalText}` : f.label;
}

function labelOf(f: FieldBase): VNode {
  const label = html`<label class=${f.labelIsHeading ? 'label label--page' : f.labelHidden ? 'label visually-hidden' : 'label'} for=${f.id}>${labelText(f)}</label>`;
  return f.labelIsHeading ? html`<h1 class="label-wrapper">${label}</h1>` : label;
}

function hintAndError(f: FieldBase): VNode {
  return html`${f.hint ? html`<div id=${`${f.id}-hint`} class="hint">${f.hint}</div>` : null}
    ${f.error ? html`<p id=${`${f.id}-error`} class="error-message"><span class="visually-hidden">${f.errorPrefix ?? 'Error:'} </span>${f.error}</p>` : null}`;
}

function group(f: FieldBase, children: VNode): VNode {
  return html`<div class=${f.error ? 'form-group form-group--error' : 'form-group'}>${children}</div>`;
}

export interface TextInputProps extends FieldBase {
  value?: string | undefined;
  type?: 'text' | 'email' | 'tel' | 'number' | 'password' | 'url' | 'search' | 'date';
  autocomplete?: string | undefined;
  inputmode?: 'text' | 'decimal' | 'numeric' | 'tel' | 'email' | 'url' | 'search' | undefined;
  spellcheck?: boolean;
  width?: 'w5' | 'w10' | 'w20' | 'w30';
  prefix?: string | undefined;
  pattern?: string | undefined;
  /** Shown and sent but not editable (the invited email on the join page, for password managers). */
  readonly?: boolean;
}

export function textInput(p: TextInputProps): VNode {
  const input = html`<input
    class=${`input${p.width ? ` input--${p.width}` : ''}${p.error ? ' input--error' : ''}`}
    id=${p.id}
    name=${p.name}
    type=${p.type ?? 'text'}
    value=${p.value ?? ''}
    autocomplete=${p.autocomplete}
    inputmode=${p.inputmode}
    spellcheck=${p.spellcheck === undefined ? undefined : String(p.spellcheck)}
    pattern=${p.pattern}
    readonly=${p.readonly ? true : undefined}
    aria-describedby=${describedBy(p)}
    aria-invalid=${p.error ? 'true' : undefined}
  />`;
  return group(p, html`${labelOf(p)}${hintAndError(p)}${p.prefix ? html`<div class="input-prefix"><span class="input-prefix__text" aria-hidden="true">${p.prefix}</span>${input}</div>` : input}`);
}

export interface TextareaProps extends FieldBase {
  value?: string | undefined;
  rows?: number;
  autocomplete?: string | undefined;
}

export function textarea(p: TextareaProps): VNode {
  return group(
    p,
    html`${labelOf(p)}${hintAndError(p)}<textarea class=${`textarea${p.error ? ' textarea--error' : ''}`} id=${p.id} name=${p.name} rows=${p.rows ?? 5} autocomplete=${p.autocomplete} aria-describedby=${describedBy(p)} aria-invalid=${p.error ? 'true' : undefined}>${p.value ?? ''}</textarea>`,
  );
}

export interface SelectProps extends FieldBase {
  value?: string | undefined;
  options: readonly { value: string; text: string }[];
  /** A first, empty choice ("Choose…") when nothing is selected yet. */
  placeholder?: string;
  autocomplete?: string | undefined;
}

export function select(p: SelectProps): VNode {
  return group(
    p,
    html`${labelOf(p)}${hintAndError(p)}<select class=${`select${p.error ? ' select--error' : ''}`} id=${p.id} name=${p.name} autocomplete=${p.autocomplete} aria-describedby=${describedBy(p)} aria-invalid=${p.error ? 'true' : undefined}>
      ${p.placeholder !== undefined ? html`<option value="" selected=${!p.value}>${p.placeholder}</option>` : null}
      ${p.options.map((o) => html`<option value=${o.value} selected=${o.value === p.value}>${o.text}</option>`)}
    </select>`,
  );
}

export interface ChoicesProps extends Omit<FieldBase, 'labelIsHeading'> {
  /** The legend; as the page heading on one-question pages. */
  legendIsHeading?: boolean;
  type: 'radio' | 'checkbox';
  options: readonly { value: string; text: string; hint?: string }[];
  /** Checked values. */
  values: readonly string[];
}

/** Radios or checkboxes in a fieldset whose legend names the question. */
export function choices(p: ChoicesProps): VNode {
  const legend = html`<legend class=${p.legendIsHeading ? 'fieldset__legend--page' : undefined}>${p.legendIsHeading ? html`<h1 class="label--page">${labelText(p)}</h1>` : labelText(p)}</legend>`;
  return html`<div class=${p.error ? 'form-group form-group--error' : 'form-group'}>
    <fieldset aria-describedby=${describedBy(p)}>
      ${legend}${hintAndError(p)}
      <div class="choices">
        ${p.options.map((o, i) => {
          const id = i === 0 ? p.id : `${p.id}-${i + 1}`;
          return html`<div class="choice">
            <input id=${id} name=${p.name} type=${p.type} value=${o.value} checked=${p.values.includes(o.value)} aria-describedby=${o.hint ? `${id}-hint` : undefined} />
            <label for=${id}>${o.text}${o.hint ? html`<span id=${`${id}-hint`} class="hint">${o.hint}</span>` : null}</label>
          </div>`;
        })}
      </div>
    </fieldset>
  </div>`;
}

export interface FileInputProps extends FieldBase {
  accept?: string | undefined;
  multiple?: boolean;
  /** `environment` opens the rear camera on phones (document capture). */
  capture?: 'environment' | 'user' | undefined;
}

export function fileInput(p: FileInputProps): VNode {
  return group(
    p,
    html`${labelOf(p)}${hintAndError(p)}<input class=${`file-input${p.error ? ' input--error' : ''}`} id=${p.id} name=${p.name} type="file" accept=${p.accept} multiple=${p.multiple} capture=${p.capture} aria-describedby=${describedBy(p)} aria-invalid=${p.error ? 'true' : undefined} />`,
  );
}

export function hiddenInput(name: string, value: string): VNode {
  return html`<input type="hidden" name=${name} value=${value} />`;
}
