import type { ServiceError } from '@grpc/grpc-js';

/**
 * gRPC's status codes (the same numbers as grpc-js's `status`), here so
 * that the CRI client does not load grpc-js, which it does not use.
 */
export enum GrpcCode {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
}

/**
 * A failed CRI call. `code` is the gRPC status code the runtime answered
 * (NOT_FOUND, INVALID_ARGUMENT, UNIMPLEMENTED ...), so callers branch on codes,
 * never on message text; `method` names the call for error messages.
 */
export class CriError extends Error {
  override readonly name = 'CriError';
  constructor(
    readonly method: string,
    readonly code: GrpcCode,
    readonly details: string,
  ) {
    super(`${method}: ${GrpcCode[code] ?? code}: ${details}`);
  }

  static from(method: string, err: ServiceError | Error): CriError {
    if (err instanceof CriError) return err;
    const code: unknown = (err as ServiceError).code;
    const details = (err as ServiceError).details ?? err.message;
    return new CriError(method, typeof code === 'number' ? (code as GrpcCode) : GrpcCode.UNKNOWN, details);
  }
}

export function isCode(err: unknown, code: GrpcCode): boolean {
  return err instanceof CriError && err.code === code;
}

/**
 * What the runtime said, without knode's call frame: a CRI error's details, any
 * other error's message. The kubelet puts this (gRPC's `status.Message()`) in
 * container statuses and events.
 */
export function runtimeMessage(err: unknown): string {
  if (err instanceof CriError) return err.details;
  return err instanceof Error ? err.message : String(err);
}

/**
 * A CRI error as the kubelet's Go client prints it (`rpc error: code =
 * NotFound desc = ...`), where the kubelet quotes the error itself rather
 * than its message.
 */
export function goErrorString(err: unknown): string {
  if (!(err instanceof CriError)) return runtimeMessage(err);
  return `rpc error: code = ${goCodeName(err.code)} desc = ${err.details}`;
}

/** grpc-go's name for a code (codes.Code.String()): NOT_FOUND is NotFound, CANCELLED is Canceled. */
export function goCodeName(code: GrpcCode): string {
  if (code === GrpcCode.CANCELLED) return 'Canceled';
  const name = GrpcCode[code] as string | undefined;
  if (name === undefined) return `Code(${code})`;
  if (name === 'OK') return name;
  return name
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** The call and code of a CRI error, for an event's detail (knode's messages leave them out). */
export function criCallDetail(err: unknown): { call?: string; code?: string } {
  return err instanceof CriError ? { call: err.method, code: GrpcCode[err.code] ?? String(err.code) } : {};
}
