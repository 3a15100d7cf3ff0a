// A ClusterQueue's `spec.namespaceSelector` (Kueue's field): a standard label selector over the labels
// of the namespace a TFJob is in. Pure: parse (every error naming its field), match, describe.
//
// Semantics (docs/queues.md): `{}` matches every namespace, as in Kueue. An absent selector also
// matches every namespace here (Kueue: none), so queues created before the field existed keep working.

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
type Operator = (typeof OPERATORS)[number];

/** A selector checked once, ready to match. */
export interface ParsedSelector {
  readonly matchLabels: readonly (readonly [string, string])[];
  readonly expressions: readonly { readonly key: string; readonly operator: Operator; readonly values: readonly string[] }[];
}

const FIELD = 'spec.namespaceSelector';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isOperator(op: unknown): op is Operator {
  return OPERATORS.some((o) => o === op);
}

function parseLabels(raw: unknown, errors: string[]): [string, string][] {
  if (raw === undefined) return [];
  if (!isRecord(raw)) {
    errors.push(`${FIELD}.matchLabels: must be a map of label to value`);
    return [];
  }
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v === 'string') out.push([k, v]);
    else errors.push(`${FIELD}.matchLabels.${k}: must be a string`);
  }
  return out;
}

function parseExpression(raw: unknown, field: string, errors: string[]): ParsedSelector['expressions'][number] | undefined {
  if (!isRecord(raw) || typeof raw.key !== 'string' || raw.key === '') {
    errors.push(`${field}.key: required`);
    return undefined;
  }
  if (!isOperator(raw.operator)) {
    errors.push(`${field}.operator: ${JSON.stringify(raw.operator)} is not one of ${OPERATORS.join(', ')}`);
    return undefined;
  }
  const values = Array.isArray(raw.values) ? raw.values.filter((v): v is string => typeof v === 'string') : [];
  const needsValues = raw.operator === 'In' || raw.operator === 'NotIn';
  if (needsValues && values.length === 0) errors.push(`${field}.values: ${raw.operator} needs at least one value`);
  else if (!needsValues && values.length > 0) errors.push(`${field}.values: ${raw.operator} takes no values`);
  return { key: raw.key, operator: raw.operator, values };
}

/** The selector, or every reason it is unusable; `undefined` input: absent (matches every namespace). */
export function parseNamespaceSelector(raw: unknown): { selector?: ParsedSelector; errors: string[] } {
  if (raw === undefined || raw === null) return { errors: [] };
  if (!isRecord(raw)) return { errors: [`${FIELD}: must be a label selector (matchLabels, matchExpressions)`] };
  const errors: string[] = [];
  const matchLabels = parseLabels(raw.matchLabels, errors);
  const expressions: ParsedSelector['expressions'][number][] = [];
  if (raw.matchExpressions !== undefined && !Array.isArray(raw.matchExpressions)) errors.push(`${FIELD}.matchExpressions: must be a list`);
  const list: unknown[] = Array.isArray(raw.matchExpressions) ? raw.matchExpressions : [];
  list.forEach((e, i) => {
    const parsed = parseExpression(e, `${FIELD}.matchExpressions[${i}]`, errors);
    if (parsed !== undefined) expressions.push(parsed);
  });
  return errors.length > 0 ? { errors } : { selector: { matchLabels, expressions }, errors };
}

/** Whether namespace `labels` satisfy every term of the selector (an empty selector matches all). */
export function selectorMatches(s: ParsedSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of s.matchLabels) if (labels[k] !== v) return false;
  for (const e of s.expressions) {
    const has = Object.hasOwn(labels, e.key);
    const ok =
      e.operator === 'Exists'
        ? has
        : e.operator === 'DoesNotExist'
          ? !has
          : e.operator === 'In'
            ? has && e.values.includes(labels[e.key]!)
            : !has || !e.values.includes(labels[e.key]!);
    if (!ok) return false;
  }
  return true;
}

/** `team=a, tier in (x, y), !legacy`: kubectl's selector syntax, for messages. */
export function describeSelector(s: ParsedSelector): string {
  const terms = [
    ...s.matchLabels.map(([k, v]) => `${k}=${v}`),
    ...s.expressions.map((e) =>
      e.operator === 'Exists'
        ? e.key
        : e.operator === 'DoesNotExist'
          ? `!${e.key}`
          : `${e.key} ${e.operator === 'In' ? 'in' : 'notin'} (${e.values.join(', ')})`,
    ),
  ];
  return terms.length === 0 ? '{} (every namespace)' : terms.join(', ');
}
