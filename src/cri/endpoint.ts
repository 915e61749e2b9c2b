import { isAbsolute, resolve } from 'node:path';

/**
 * Turns a runtime endpoint as users write it (`unix:///run/containerd/containerd.sock`,
 * `unix:relative.sock`, or a bare path) into the socket path. Only unix sockets are
 * accepted, as the kubelet does on Linux.
 */
export function socketPathOf(endpoint: string): string {
  let path = endpoint;
  if (endpoint.startsWith('unix://')) path = endpoint.slice('unix://'.length);
  else if (endpoint.startsWith('unix:')) path = endpoint.slice('unix:'.length);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint)) {
    throw new Error(`unsupported runtime endpoint "${endpoint}": only unix:// sockets are supported`);
  }
  if (path === '') throw new Error('empty runtime endpoint');
  return isAbsolute(path) ? path : resolve(path);
}
