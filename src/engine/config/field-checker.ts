// The field checker that pod validation reports through: each check names the
// field path kubectl would print and words its message as the apiserver does.
import { isAbsolute } from 'node:path';

export interface FieldError {
  field: string;
  message: string;
}

export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** IsRelaxedEnvVarName: printable ASCII but '='. */
export const ENV_NAME = /^[\x20-\x3c\x3e-\x7e]+$/;
export const QUALIFIED_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
export const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
export const MAX_NAME = 253;
/** The largest user or group id the apiserver accepts (validation.go: math.MaxInt32). */
export const MAX_ID = 2147483647;

export type Obj = Record<string, unknown>;

export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

export class Checker {
  readonly errors: FieldError[] = [];

  fail(field: string, message: string): void {
    this.errors.push({ field, message });
  }

  object(field: string, v: unknown, required = false): v is Obj {
    if (v === undefined || v === null) {
      if (required) this.fail(field, 'Required value');
      return false;
    }
    if (!isObject(v)) {
      this.fail(field, `expected an object, got ${typeName(v)}`);
      return false;
    }
    return true;
  }

  array(field: string, v: unknown, required = false): v is unknown[] {
    if (v === undefined || v === null) {
      if (required) this.fail(field, 'Required value');
      return false;
    }
    if (!Array.isArray(v)) {
      this.fail(field, `expected an array, got ${typeName(v)}`);
      return false;
    }
    return true;
  }

  string(field: string, v: unknown, required = false): v is string {
    if (v === undefined || v === null) {
      if (required) this.fail(field, 'Required value');
      return false;
    }
    if (typeof v !== 'string') {
      this.fail(field, `expected a string, got ${typeName(v)}`);
      return false;
    }
    if (required && v.length === 0) {
      this.fail(field, 'Required value');
      return false;
    }
    return true;
  }

  strings(field: string, v: unknown): void {
    if (!this.array(field, v)) return;
    v.forEach((item, i) => this.string(`${field}[${i}]`, item));
  }

  stringMap(field: string, v: unknown): void {
    if (!this.object(field, v)) return;
    for (const [key, value] of Object.entries(v)) this.string(`${field}[${key}]`, value);
  }

  integer(field: string, v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): v is number {
    if (v === undefined || v === null) return false;
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      this.fail(field, `expected an integer, got ${typeName(v)}`);
      return false;
    }
    if (v < min || v > max) {
      this.fail(field, `Invalid value: ${v}: must be between ${min} and ${max}, inclusive`);
      return false;
    }
    return true;
  }

  boolean(field: string, v: unknown): void {
    if (v !== undefined && v !== null && typeof v !== 'boolean') this.fail(field, `expected a boolean, got ${typeName(v)}`);
  }

  oneOf(field: string, v: unknown, allowed: readonly string[]): void {
    if (v === undefined || v === null) return;
    if (!this.string(field, v)) return;
    if (!allowed.includes(v)) this.fail(field, `Unsupported value: "${v}": supported values: ${allowed.map((a) => `"${a}"`).join(', ')}`);
  }

  /** A label or annotation key (IsQualifiedName): an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
  qualifiedName(field: string, key: string): void {
    for (const problem of qualifiedNameProblems(key)) this.fail(field, `Invalid value: ${quote(key)}: ${problem}`);
  }

  /** ValidateLabels: keys and values, both named by the map as the apiserver names them. */
  labels(field: string, v: unknown): void {
    if (!this.object(field, v)) return;
    for (const [key, value] of Object.entries(v)) {
      this.qualifiedName(field, key);
      if (this.string(`${field}[${key}]`, value))
        for (const problem of labelValueProblems(value)) this.fail(field, `Invalid value: ${quote(value)}: ${problem}`);
    }
  }

  /** A path inside a volume (subPath, items[].path): relative, and no `..` element. */
  relativePath(field: string, v: unknown, required: boolean): void {
    if (!this.string(field, v, required)) return;
    if (isAbsolute(v)) this.fail(field, `Invalid value: "${truncate(v)}": must be a relative path`);
    else if (v.split('/').includes('..')) this.fail(field, `Invalid value: "${truncate(v)}": must not contain '..'`);
  }

  dnsLabel(field: string, v: unknown, required = true): void {
    if (!this.string(field, v, required)) return;
    for (const problem of dnsLabelProblems(v)) this.fail(field, `Invalid value: ${quote(v)}: ${problem}`);
  }

  dnsSubdomain(field: string, v: unknown, maxLength = MAX_NAME): void {
    if (!this.string(field, v, true)) return;
    for (const problem of dnsSubdomainProblems(v, maxLength)) this.fail(field, `Invalid value: ${quote(v)}: ${problem}`);
  }
}

/** A value as the apiserver's messages quote it, cut short past 1 KiB (a bad value may be a large one). */
export function quote(v: string): string {
  return JSON.stringify(v.length > 1024 ? `${v.slice(0, 1021)}...` : v);
}

/** RegexError: the apiserver's wording of a value that does not match a pattern. */
function regexError(message: string, pattern: string, ...examples: string[]): string {
  const e = examples.map((x) => `'${x}', `).join(' or ');
  return `${message} (${examples.length > 0 ? `e.g. ${e}` : ''}regex used for validation is '${pattern}')`;
}

const LABEL_KEY_FORMAT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_KEY_MESSAGE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS_LABEL_FORMAT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';

/** IsDNS1123Label, in the apiserver's words. */
export function dnsLabelProblems(v: string): string[] {
  const problems: string[] = [];
  if (v.length > 63) problems.push('must be no more than 63 characters');
  if (!DNS_LABEL.test(v))
    problems.push(
      DNS_SUBDOMAIN.test(v)
        ? 'must not contain dots'
        : regexError(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            DNS_LABEL_FORMAT,
            'my-name',
            '123-abc',
          ),
    );
  return problems;
}

/** IsDNS1123Subdomain, in the apiserver's words (a static pod's name is shorter by its node's suffix). */
export function dnsSubdomainProblems(v: string, maxLength = MAX_NAME, unit = 'characters'): string[] {
  const problems: string[] = [];
  if (v.length > maxLength) problems.push(`must be no more than ${maxLength} ${unit}`);
  if (!DNS_SUBDOMAIN.test(v))
    problems.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        `${DNS_LABEL_FORMAT}(\\.${DNS_LABEL_FORMAT})*`,
        'example.com',
      ),
    );
  return problems;
}

const DNS_LABEL_UNDERSCORE_FORMAT = '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const DNS_SUBDOMAIN_UNDERSCORE = new RegExp(`^${DNS_LABEL_UNDERSCORE_FORMAT}(\\.${DNS_LABEL_UNDERSCORE_FORMAT})*$`);

/** IsDNS1123SubdomainWithUnderscore (a DNS search domain), in the apiserver's words. */
export function dnsSubdomainWithUnderscoreProblems(v: string): string[] {
  const problems: string[] = [];
  if (v.length > MAX_NAME) problems.push(`must be no more than ${MAX_NAME} characters`);
  if (!DNS_SUBDOMAIN_UNDERSCORE.test(v))
    problems.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character",
        `${DNS_LABEL_UNDERSCORE_FORMAT}(\\.${DNS_LABEL_UNDERSCORE_FORMAT})*`,
        'example.com',
      ),
    );
  return problems;
}

/** IsQualifiedName (content.IsLabelKey), in the apiserver's words: its lengths are in bytes. */
export function qualifiedNameProblems(key: string): string[] {
  const problems: string[] = [];
  const parts = key.split('/');
  if (parts.length > 2)
    return [
      `a valid label key ${regexError(LABEL_KEY_MESSAGE, LABEL_KEY_FORMAT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  const name = parts.at(-1)!;
  if (parts.length === 2) {
    if (parts[0] === '') problems.push('prefix part must be non-empty');
    else problems.push(...dnsSubdomainProblems(parts[0], MAX_NAME, 'bytes').map((p) => `prefix part ${p}`));
  }
  if (name === '') problems.push('name part must be non-empty');
  else if (Buffer.byteLength(name) > 63) problems.push('name part must be no more than 63 bytes');
  if (!QUALIFIED_NAME.test(name))
    problems.push(`name part ${regexError(LABEL_KEY_MESSAGE, LABEL_KEY_FORMAT, 'MyName', 'my.name', '123-abc')}`);
  return problems;
}

/** IsValidLabelValue (content.IsLabelValue), in the apiserver's words. */
export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (Buffer.byteLength(value) > 63) problems.push('must be no more than 63 bytes');
  if (!LABEL_VALUE.test(value))
    problems.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        `(${LABEL_KEY_FORMAT})?`,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  return problems;
}

export function truncate(v: string): string {
  return v.length > 64 ? `${v.slice(0, 61)}...` : v;
}
