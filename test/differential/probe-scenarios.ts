// The differential's probe scenarios beyond exec: TCP, HTTP and gRPC probes
// against a port nothing listens on (closed), one that answers, and one that
// accepts and never answers (slow: busybox `nc -ll -e sleep 30` holds each
// connection), plus a probe's own grace period. Every pod is on the host
// network, so each scenario has a port of its own (18081-18099); the agents
// run one after the other, never together.
import type { Container } from '../../src/engine/api/v1.js';
import { exec, pod, sh, SLEEP, STUBBORN } from './scenario-parts.js';
import type { Scenario } from './scenarios.js';

/** A container serving busybox httpd on PORT from /www (an index.html saying ok), as PID 1. */
function httpd(port: number, extra: Partial<Container>): Container {
  return sh('main', `mkdir -p /www && echo ok > /www/index.html && exec httpd -f -p ${port} -h /www`, extra);
}

/** A container whose port accepts connections and never answers on them. */
function silent(port: number, extra: Partial<Container>): Container {
  return sh('main', `exec nc -ll -p ${port} -e sleep 30`, extra);
}

const tcp = (port: number) => ({ tcpSocket: { port } });
const http = (port: number, path = '/') => ({ httpGet: { path, port } });
const grpc = (port: number) => ({ grpc: { port } });
/** Probe often, give up at the first failure. */
const FAST = { periodSeconds: 3, failureThreshold: 1 };

export const probeScenarios: Scenario[] = [
  {
    name: 'liveness-tcp-closed',
    what: 'a TCP liveness probe on a closed port: killed and restarted',
    spec: pod([sh('main', STUBBORN, { livenessProbe: { ...tcp(18081), ...FAST } })]),
    loop: true,
  },
  {
    name: 'readiness-tcp-open',
    what: 'a TCP readiness probe on the port the container listens on: ready',
    spec: pod([sh('main', 'exec nc -ll -p 18082 -e true', { readinessProbe: { ...tcp(18082), periodSeconds: 3 } })]),
  },
  {
    name: 'readiness-tcp-closed',
    what: 'a TCP readiness probe on a closed port: never ready',
    spec: pod([sh('main', SLEEP, { readinessProbe: { ...tcp(18083), periodSeconds: 3 } })]),
  },
  {
    name: 'readiness-http-ok',
    what: 'an HTTP readiness probe answered 200 by busybox httpd: ready',
    spec: pod([httpd(18084, { readinessProbe: { ...http(18084), periodSeconds: 3 } })]),
  },
  {
    name: 'liveness-http-404',
    what: 'an HTTP liveness probe answered 404: killed and restarted',
    spec: pod([httpd(18085, { livenessProbe: { ...http(18085, '/missing'), ...FAST } })]),
    loop: true,
  },
  {
    name: 'readiness-http-closed',
    what: 'an HTTP readiness probe on a closed port: never ready',
    spec: pod([sh('main', SLEEP, { readinessProbe: { ...http(18086), periodSeconds: 3 } })]),
  },
  {
    name: 'liveness-http-slow',
    what: 'an HTTP liveness probe on a port that never answers (timeoutSeconds 1): killed and restarted',
    spec: pod([silent(18087, { livenessProbe: { ...http(18087), ...FAST, timeoutSeconds: 1 } })]),
    loop: true,
  },
  {
    name: 'readiness-grpc-closed',
    what: 'a gRPC readiness probe on a closed port: never ready',
    spec: pod([sh('main', SLEEP, { readinessProbe: { ...grpc(18088), periodSeconds: 3 } })]),
  },
  {
    name: 'liveness-grpc-closed',
    what: 'a gRPC liveness probe on a closed port: killed and restarted',
    spec: pod([sh('main', STUBBORN, { livenessProbe: { ...grpc(18089), ...FAST } })]),
    loop: true,
  },
  {
    name: 'readiness-grpc-slow',
    what: 'a gRPC readiness probe on a port that never answers (timeoutSeconds 1): never ready',
    spec: pod([silent(18091, { readinessProbe: { ...grpc(18091), periodSeconds: 3, timeoutSeconds: 1 } })]),
  },
  {
    name: 'startup-tcp-closed',
    what: 'a TCP startup probe on a closed port (threshold 2): killed and restarted',
    spec: pod([sh('main', STUBBORN, { startupProbe: { ...tcp(18090), periodSeconds: 3, failureThreshold: 2 } })]),
    loop: true,
  },
  {
    name: 'liveness-probe-grace',
    what: "a failing liveness probe with terminationGracePeriodSeconds 1 of its own in a pod's 60: killed after 1 s",
    spec: pod([sh('main', STUBBORN, { livenessProbe: { ...exec('false'), ...FAST, terminationGracePeriodSeconds: 1 } })], {
      terminationGracePeriodSeconds: 60,
    }),
    loop: true,
  },
];
