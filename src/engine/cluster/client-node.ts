// The parts of @kubernetes/client-node knode uses, by name. The modules that
// talk to an apiserver load this one (on demand) instead of the package, so
// the bundle (scripts/bundle.js) keeps these and what they need, not all of
// the package's exports. The typed API classes are not among them: knode's
// calls are plain JSON (json-requests.ts), and a joined node's heap holds
// only the kubeconfig, authentication and watch code.
export { IsomorphicFetchHttpLibrary, KubeConfig, ResponseContext, ServerConfiguration, Watch } from '@kubernetes/client-node';
