import { type FailureSignature, HOST_EXTRACTORS, TEXT, TYPE, WHERE } from './signature-types.js';

/**
 * Failure signatures of reaching another service: timeouts, refused or reset connections, DNS.
 */
export const NETWORK_SIGNATURES: readonly FailureSignature[] = [
  {
    id: 'timeout',
    name: 'Upstream timeout',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:ReadTimeout|ConnectTimeout|Timeout|TimeoutError|ReadTimeoutError|ConnectTimeoutError|(?:Socket|Http|Connect)?TimeoutException|DeadlineExceeded|timeout)$/,
        weight: 0.45,
      },
      {
        fields: TEXT,
        pattern:
          /\bE(?:SOCKET)?TIMEDOUT\b|\bUND_ERR_(?:CONNECT|HEADERS|BODY)_TIMEOUT\b|context deadline exceeded|Client\.Timeout exceeded|i\/o timeout|DEADLINE_EXCEEDED/,
        weight: 0.55,
      },
      {
        fields: TEXT,
        pattern:
          /Read timed out|Connect(?:ion)? timed out|read operation timed out|request timed out|operation timed out|timeout of \d+ ?ms exceeded|socket timeout/i,
        weight: 0.45,
      },
      { fields: TEXT, pattern: /\btime[d ]?out\b/i, weight: 0.3 },
      {
        fields: WHERE,
        pattern:
          /urllib3[/\\]connectionpool|requests[/\\]adapters|SocketInputStream|net\/http\.\(\*Client\)|undici/,
        weight: 0.15,
      },
    ],
    subject: { label: 'upstream', unknown: 'an upstream dependency', extractors: HOST_EXTRACTORS },
    rootCause:
      'A call made at {location} to {subject} did not answer within its timeout. Either the upstream is slow or overloaded (long queries, GC pauses, saturation), the network path drops packets, or the client timeout is shorter than the operation legitimately takes.',
    impact:
      'Requests in {project} that depend on {subject} fail or stall for the full timeout, tying up workers and connections while they wait.',
    fix: 'Check the latency and saturation of {subject} for the time of the errors; if it is healthy, raise the timeout at {location} to match the real operation time, otherwise fix the slow upstream. Retry idempotent calls with backoff and jitter.',
    prevention:
      'Set explicit connect and read timeouts on every client, alert on upstream latency percentiles, and put a circuit breaker in front of dependencies that can stall.',
  },
  {
    id: 'connection-refused',
    name: 'Connection refused',
    matchers: [
      {
        fields: TYPE,
        pattern: /(?:^|\.)(?:ConnectionRefusedError|ConnectException|HttpHostConnectException)$/,
        weight: 0.5,
      },
      {
        fields: TYPE,
        pattern: /(?:^|\.)(?:ConnectionError|NewConnectionError|OperationalError)$/,
        weight: 0.15,
      },
      {
        fields: TEXT,
        pattern: /\bECONNREFUSED\b|Connection refused|actively refused/i,
        weight: 0.6,
      },
    ],
    subject: { label: 'endpoint', unknown: 'the target endpoint', extractors: HOST_EXTRACTORS },
    rootCause:
      'Code at {location} tried to connect to {subject} and the connection was refused: nothing was listening there. The service is down or restarting, the port or host in configuration is wrong for this environment, or a container/pod is not ready yet.',
    impact:
      'Every operation in {project} that needs {subject} fails immediately while it is unreachable.',
    fix: 'Check that {subject} is running and listening (pod status, health checks, recent deploys) and that the configured host and port are right for this environment.',
    prevention:
      'Gate startup and traffic on readiness checks of required dependencies, alert on dependency health, and retry connects briefly with backoff during restarts.',
  },
  {
    id: 'connection-reset',
    name: 'Connection reset / broken pipe',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:ConnectionResetError|BrokenPipeError|ConnectionAbortedError|RemoteDisconnected|ClosedChannelException)$/,
        weight: 0.45,
      },
      {
        fields: TYPE,
        pattern: /(?:^|\.)(?:ProtocolError|ChunkedEncodingError|EOFException)$/,
        weight: 0.25,
      },
      {
        fields: TEXT,
        pattern:
          /\bECONNRESET\b|connection reset by peer|Connection reset|\bEPIPE\b|broken pipe|socket hang up|Remote end closed connection|server closed the connection unexpectedly|Connection aborted/i,
        weight: 0.55,
      },
      { fields: TEXT, pattern: /\bunexpected EOF\b/i, weight: 0.3 },
    ],
    subject: { label: 'peer', unknown: 'the remote peer', extractors: HOST_EXTRACTORS },
    rootCause:
      'An established connection used at {location} was closed by {subject} or something in between (load balancer, NAT, proxy) while the code was still using it. Common causes: reusing a pooled keep-alive connection after the server or proxy idle timeout closed it, the peer restarting, or the peer rejecting an oversized request.',
    impact:
      'Calls in {project} to {subject} fail intermittently; non-idempotent calls may have been partly applied.',
    fix: 'Make the client idle timeout shorter than the server/proxy keep-alive timeout and validate pooled connections before use (pool_pre_ping, testOnBorrow); retry idempotent calls once on reset.',
    prevention:
      'Align keep-alive settings across client, proxy and server, and track resets per upstream so restarts and proxy changes are visible.',
  },
  {
    id: 'dns-failure',
    name: 'DNS resolution failure',
    matchers: [
      {
        fields: TYPE,
        pattern: /(?:^|\.)(?:UnknownHostException|gaierror|DNSError|\*net\.DNSError)$/,
        weight: 0.5,
      },
      {
        fields: TEXT,
        pattern:
          /\bENOTFOUND\b|\bEAI_AGAIN\b|Name or service not known|nodename nor servname|Temporary failure in name resolution|no such host|No address associated with hostname|Could not resolve host|Name does not resolve|UnknownHostException/i,
        weight: 0.6,
      },
      { fields: TEXT, pattern: /\blookup [\w.-]+ on [\d.:[\]]+: /, weight: 0.6 },
      {
        fields: WHERE,
        pattern: /getaddrinfo|\bdns\.js|InetAddress|net\.\(\*Resolver\)/,
        weight: 0.2,
      },
    ],
    subject: {
      label: 'hostname',
      unknown: 'a hostname',
      extractors: [
        { fields: TEXT, pattern: /(?:ENOTFOUND|EAI_AGAIN) (?<h>[\w.-]+)/, template: "'{h}'" },
        { fields: TEXT, pattern: /\blookup (?<h>[\w.-]+)/, template: "'{h}'" },
        { fields: TEXT, pattern: /Could not resolve host: (?<h>[\w.-]+)/, template: "'{h}'" },
        { fields: ['value'], pattern: /^(?<h>[\w-]+(?:\.[\w-]+)*)(?::\s|$)/, template: "'{h}'" },
        ...HOST_EXTRACTORS,
      ],
    },
    rootCause:
      'Code at {location} could not resolve {subject} to an address. The name is wrong or missing for this environment (typo, deleted service, wrong namespace or search domain), or the resolver itself failed (EAI_AGAIN / temporary failure: DNS overloaded or unreachable).',
    impact:
      'Every call in {project} that needs {subject} fails before a connection is even attempted.',
    fix: 'Resolve {subject} from inside the failing pod/host (nslookup/dig) to see whether the name or the resolver is at fault; correct the configured hostname, or fix the DNS/service record.',
    prevention:
      'Validate configured hostnames at startup, monitor cluster DNS error rates, and use fully-qualified service names to avoid search-domain surprises.',
  },
];
