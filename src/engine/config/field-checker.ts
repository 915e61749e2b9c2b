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
      this.fail(field, `must be between ${min} and ${max}, got ${v}`);
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

  /** A label or annotation key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
  qualifiedName(field: string, key: string): void {
    const slash = key.lastIndexOf('/');
    const [prefix, name] = slash < 0 ? ['', key] : [key.slice(0, slash), key.slice(slash + 1)];
    const nameOk = name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
    const prefixOk = slash < 0 || (prefix.length > 0 && prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
    if (!nameOk || !prefixOk) {
      this.fail(
        field,
        `Invalid value: "${truncate(key)}": a qualified name must be at most 63 alphanumeric characters, '-', '_' or '.' (starting and ending alphanumeric), with an optional DNS subdomain prefix and '/'`,
      );
    }
  }

  labels(field: string, v: unknown): void {
    if (!this.object(field, v)) return;
    for (const [key, value] of Object.entries(v)) {
      this.qualifiedName(field, key);
      // The apiserver names the map for a bad value as for a bad key.
      if (this.string(`${field}[${key}]`, value) && (value.length > 63 || !LABEL_VALUE.test(value))) {
        this.fail(
          field,
          `Invalid value: "${truncate(value)}": a label value must be empty or at most 63 alphanumeric characters, '-', '_' or '.', starting and ending alphanumeric`,
        );
      }
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
    if (v.length > 63 || !DNS_LABEL.test(v)) {
      this.fail(field, `Invalid value: "${truncate(v)}": must be a lowercase RFC 1123 label (a-z, 0-9, '-', at most 63 characters)`);
    }
  }

  dnsSubdomain(field: string, v: unknown, maxLength = MAX_NAME): void {
    if (!this.string(field, v, true)) return;
    if (v.length > maxLength || !DNS_SUBDOMAIN.test(v)) {
      this.fail(
        field,
        `Invalid value: "${truncate(v)}": must be a lowercase RFC 1123 subdomain (a-z, 0-9, '-', '.', at most ${maxLength} characters)`,
      );
    }
  }
}

export function truncate(v: string): string {
  return v.length > 64 ? `${v.slice(0, 61)}...` : v;
}
