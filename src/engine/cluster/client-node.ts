// The parts of @kubernetes/client-node knode uses, by name. The modules that
// talk to an apiserver load this one (on demand) instead of the package, so
// the bundle (scripts/bundle.js) keeps these and what they need, not all of
// the package's 842 exports: a node joining a cluster loads 66 MiB and
// 195 ms of it instead of 86 MiB and 370 ms.
export {
  AuthenticationV1Api,
  AuthorizationV1Api,
  CertificatesV1Api,
  CoordinationV1Api,
  CoreV1Api,
  createConfiguration,
  IsomorphicFetchHttpLibrary,
  KubeConfig,
  PatchStrategy,
  ResponseContext,
  ServerConfiguration,
  setHeaderOptions,
  Watch,
  wrapHttpLibrary,
} from '@kubernetes/client-node';
