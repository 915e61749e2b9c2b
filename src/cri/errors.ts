import { status, type ServiceError } from '@grpc/grpc-js';

export { status as GrpcCode };

/**
 * A failed CRI call. `code` is the gRPC status code the runtime answered
 * (NOT_FOUND, INVALID_ARGUMENT, UNIMPLEMENTED ...), so callers branch on codes,
 * never on message text; `method` names the call for error messages.
 */
export class CriError extends Error {
  override readonly name = 'CriError';
  constructor(
    readonly method: string,
    readonly code: status,
    readonly details: string,
  ) {
    super(`${method}: ${status[code] ?? code}: ${details}`);
  }

  static from(method: string, err: ServiceError | Error): CriError {
    if (err instanceof CriError) return err;
    const code = (err as ServiceError).code;
    const details = (err as ServiceError).details ?? err.message;
    return new CriError(method, typeof code === 'number' ? code : status.UNKNOWN, details);
  }
}

export function isCode(err: unknown, code: status): boolean {
  return err instanceof CriError && err.code === code;
}
