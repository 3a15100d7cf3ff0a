// Validation errors rendered exactly like apimachinery's `field.Error` (`<path>: <type>[: value][: detail]`),
// so a job rejected by our reconciler reads the same as one rejected at admission.

export type FieldErrorType = 'Required' | 'Forbidden' | 'Invalid' | 'NotSupported' | 'TooMany';

/** Marks a value the apiserver omits from the message (CEL rules on objects and arrays). */
export const OMIT_VALUE: unique symbol = Symbol('omit value');

export interface FieldError {
  readonly type: FieldErrorType;
  readonly field: string;
  readonly detail?: string;
  readonly value?: unknown;
}

const TYPE_TEXT: Readonly<Record<FieldErrorType, string>> = {
  Required: 'Required value',
  Forbidden: 'Forbidden',
  Invalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  TooMany: 'Too many',
};

function renderValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function formatFieldError(error: FieldError): string {
  let body = TYPE_TEXT[error.type];
  const showsValue = error.type !== 'Required' && error.type !== 'Forbidden';
  if (showsValue && error.value !== OMIT_VALUE && error.value !== undefined) body += `: ${renderValue(error.value)}`;
  if (error.detail) body += `: ${error.detail}`;
  return `${error.field}: ${body}`;
}

/** `utilerrors.NewAggregate(list).Error()`: one error as is, several as `[e1, e2]`. */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  // Like Go's aggregate, repeated messages are shown once.
  const texts = [...new Set(errors.map(formatFieldError))];
  return texts.length === 1 ? (texts[0] ?? '') : `[${texts.join(', ')}]`;
}

export function required(field: string, detail?: string): FieldError {
  return detail === undefined ? { type: 'Required', field } : { type: 'Required', field, detail };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: 'Forbidden', field, detail };
}

export function invalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'Invalid', field, value, detail };
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  return { type: 'NotSupported', field, value, detail: `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}` };
}
