// A small evaluator of the OpenAPI v3 subset CRD schemas use (type, properties, additionalProperties,
// items, required, enum, minimum, min/maxProperties, int-or-string), with the kube-apiserver's message
// formats. CEL rules are not evaluated here: src/api/v1/validation.ts mirrors them and is checked
// separately. Unknown fields are ignored, as the apiserver prunes them.

type Schema = Record<string, unknown>;

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value; // string, boolean, object
}

function typeMatches(expected: string, value: unknown): boolean {
  const actual = jsonType(value);
  return actual === expected || (expected === 'number' && actual === 'integer');
}

function child(schema: Schema, key: string): Schema | undefined {
  const value = schema[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;
}

function render(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Errors in apiserver format; `path` uses dots for map keys, as the OpenAPI validator reports them. */
export function checkOpenApi(schema: Schema, value: unknown, path = ''): string[] {
  const errors: string[] = [];
  const at = (suffix: string) => (path === '' ? suffix : `${path}.${suffix}`);
  if (value === undefined) return errors;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.type === undefined) return errors;
  if (value === null) {
    if (schema.nullable !== true)
      errors.push(`${path}: Invalid value: "null": ${path} in body must be of type ${String(schema.type)}: "null"`);
    return errors;
  }
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (!typeMatches('integer', value) && !typeMatches('string', value)) errors.push(`${path}: Invalid value: must be int or string`);
    return errors;
  }
  const type = typeof schema.type === 'string' ? schema.type : undefined;
  if (type && !typeMatches(type, value)) {
    const actual = jsonType(value);
    errors.push(`${path}: Invalid value: "${actual}": ${path} in body must be of type ${type}: "${actual}"`);
    return errors;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    errors.push(`${path}: Unsupported value: ${render(value)}: supported values: ${schema.enum.map(render).join(', ')}`);
  }
  if (typeof schema.minimum === 'number' && typeof value === 'number' && value < schema.minimum) {
    errors.push(`${path}: Invalid value: ${value}: ${path} in body should be greater than or equal to ${schema.minimum}`);
  }
  if (type === 'object' && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (typeof schema.minProperties === 'number' && keys.length < schema.minProperties) {
      errors.push(`${path}: Invalid value: ${keys.length}: ${path} in body should have at least ${schema.minProperties} properties`);
    }
    if (typeof schema.maxProperties === 'number' && keys.length > schema.maxProperties) {
      errors.push(`${path}: Too many: ${keys.length}: must have at most ${schema.maxProperties} items`);
    }
    for (const required of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
      if (record[required] === undefined) errors.push(`${at(required)}: Required value`);
    }
    const properties = child(schema, 'properties');
    const additional = child(schema, 'additionalProperties');
    for (const key of keys) {
      const propertySchema = properties ? child(properties, key) : undefined;
      if (propertySchema) errors.push(...checkOpenApi(propertySchema, record[key], at(key)));
      else if (additional) errors.push(...checkOpenApi(additional, record[key], at(key)));
      // else: unknown field, pruned
    }
  }
  if (type === 'array' && Array.isArray(value)) {
    const items = child(schema, 'items');
    if (items) value.forEach((item, i) => errors.push(...checkOpenApi(items, item, `${path}[${i}]`)));
  }
  return errors;
}
