import { status } from '@grpc/grpc-js';

/**
 * An error the embedded runtime answers a CRI call with. `code` becomes the
 * gRPC status the client sees, so a kubelet (or critest) can tell a missing
 * container (NOT_FOUND) from a malformed request (INVALID_ARGUMENT).
 */
export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string, id: string) => new RuntimeError(status.NOT_FOUND, `${what} "${id}" not found`);
export const invalid = (message: string) => new RuntimeError(status.INVALID_ARGUMENT, message);
export const precondition = (message: string) => new RuntimeError(status.FAILED_PRECONDITION, message);
export const alreadyExists = (message: string) => new RuntimeError(status.ALREADY_EXISTS, message);
export const unknown = (message: string) => new RuntimeError(status.UNKNOWN, message);
export const cancelled = (message: string) => new RuntimeError(status.CANCELLED, message);
export const unimplemented = (message: string) => new RuntimeError(status.UNIMPLEMENTED, message);

/** A file the runtime could not write (its state, a log): a full disk is RESOURCE_EXHAUSTED, anything else UNKNOWN. */
export const storageFailed = (doing: string, err: unknown) =>
  new RuntimeError(
    (err as NodeJS.ErrnoException).code === 'ENOSPC' ? status.RESOURCE_EXHAUSTED : status.UNKNOWN,
    `${doing}: ${(err as Error).message}`,
  );
