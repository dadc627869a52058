import { type FailureSignature, HOST_EXTRACTORS, TEXT, TYPE, WHERE } from './signature-types.js';

/**
 * Failure signatures where another service was reached but rejected the call: TLS
 * certificate, credentials, rate limit.
 */
export const UPSTREAM_SIGNATURES: readonly FailureSignature[] = [
  {
    id: 'tls-certificate',
    name: 'TLS certificate failure',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:SSLError|SSLCertVerificationError|SSLHandshakeException|SSLPeerUnverifiedException|CertificateExpiredException|CertPathValidatorException|CertificateError|\*?tls\.CertificateVerificationError|\*?x509\.\w+Error)$/,
        weight: 0.45,
      },
      {
        fields: TEXT,
        pattern:
          /CERT_HAS_EXPIRED|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID|UNABLE_TO_GET_ISSUER_CERT|CERT_NOT_YET_VALID/,
        weight: 0.6,
      },
      {
        fields: TEXT,
        pattern:
          /certificate verify failed|x509: certificate|tls: failed to verify certificate|PKIX path (?:building|validation) failed|unable to find valid certification path|No subject alternative (?:DNS )?name|does not match certificate's altnames|certificate has expired/i,
        weight: 0.55,
      },
      {
        fields: TEXT,
        pattern: /handshake[_ ]failure|SSLV3_ALERT|wrong version number/i,
        weight: 0.35,
      },
      {
        fields: WHERE,
        pattern: /ssl\.py|_ssl\.c|_tls_wrap|crypto\/tls|sun\.security\.ssl/,
        weight: 0.2,
      },
    ],
    subject: {
      label: 'host',
      unknown: 'the remote host',
      extractors: [
        {
          fields: TEXT,
          pattern:
            /\b(?<r>CERT_HAS_EXPIRED|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|CERT_NOT_YET_VALID)\b/,
          template: '{r}',
          label: 'reason',
        },
        {
          fields: TEXT,
          pattern: /certificate verify failed: (?<r>[^(\n]{4,80})/,
          template: "'{r}'",
          label: 'reason',
        },
        { fields: TEXT, pattern: /x509: (?<r>[^\n]{4,80})/, template: "'{r}'", label: 'reason' },
        {
          fields: TEXT,
          pattern:
            /(?<r>PKIX path building failed|No subject alternative (?:DNS )?name matching [\w.-]+ found|certificate has expired)/,
          template: "'{r}'",
          label: 'reason',
        },
        ...HOST_EXTRACTORS,
      ],
    },
    rootCause:
      'The TLS handshake made at {location} rejected the server certificate ({subject}): it has expired, is self-signed or signed by a CA missing from the trust store, or does not name the host being called.',
    impact:
      'Every HTTPS/TLS call in {project} to that endpoint fails until the certificate or the trust store is fixed; retries cannot help.',
    fix: 'Inspect the served chain (openssl s_client -connect host:443 -servername host) and renew or correct the certificate, or add the internal CA to the client trust store. Do not disable verification.',
    prevention:
      'Automate certificate renewal (cert-manager, ACME) and alert on expiry 30 days ahead; ship the internal CA bundle in the image.',
  },
  {
    id: 'authentication-failed',
    name: 'Authentication failure',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:AuthenticationError|Authentication(?:Failed)?Exception|NotAuthenticated|Unauthorized(?:Error)?|InvalidTokenError|ExpiredSignatureError|TokenExpiredError|JsonWebTokenError|BadCredentialsException|InvalidPassword)$/,
        weight: 0.45,
      },
      // Above permission-denied's "Access Denied" (0.55): MySQL words a bad password that way.
      {
        fields: TEXT,
        pattern:
          /password authentication failed for user|Access denied for user '|Login failed for user|authentication failed/i,
        weight: 0.6,
      },
      {
        fields: TEXT,
        pattern:
          /\bUnauthorized\b|invalid[_ ]token|token (?:is )?expired|jwt expired|invalid api key|Incorrect API key|invalid credentials|Bad credentials|Signature has expired/i,
        weight: 0.45,
      },
      {
        fields: TEXT,
        pattern:
          /\b(?:status(?: code)?:? ?|HTTP\/[\d.]+ |Error: )401\b|\b401 (?:Unauthorized|Client Error)/i,
        weight: 0.5,
      },
    ],
    subject: {
      label: 'service',
      unknown: 'the service it called',
      extractors: [
        {
          fields: TEXT,
          pattern: /(?:for user|Login failed for user) ["'](?<u>[^"']+)["']/,
          template: "'{u}'",
          label: 'user',
        },
        {
          fields: TEXT,
          pattern: /Access denied for user '(?<u>[^']+)'@/,
          template: "'{u}'",
          label: 'user',
        },
        ...HOST_EXTRACTORS,
      ],
    },
    rootCause:
      'The credentials presented at {location} were rejected by {subject}: the password or API key was rotated or is wrong for this environment, the token expired and was not refreshed, or the secret was not mounted.',
    impact:
      'Every call in {project} that uses these credentials fails until they are fixed; retries only add load and may lock the account.',
    fix: 'Compare the credential in use by {project} with the current one for {subject} (secret store, deployment env), redeploy or refresh it, and make token refresh happen before expiry.',
    prevention:
      'Rotate secrets through a secret manager with the consumers updated in the same change, refresh tokens proactively, and alert on 401 rates per upstream.',
  },
  {
    id: 'rate-limited',
    name: 'Rate limited / throttled',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:RateLimitError|RateLimitExceeded|TooManyRequests|Throttl\w*Exception|ProvisionedThroughputExceededException|RequestLimitExceeded|SlowDown)$/,
        weight: 0.5,
      },
      {
        fields: TEXT,
        pattern:
          /\b429\b|Too Many Requests|rate[- ]?limit|throttl|quota exceeded|Rate exceeded|\bSlowDown\b/i,
        weight: 0.5,
      },
    ],
    subject: { label: 'upstream', unknown: 'an upstream API', extractors: HOST_EXTRACTORS },
    rootCause:
      'Calls made at {location} to {subject} were rejected for exceeding its rate limit or quota: the caller sends more requests than allowed (bursts, fan-out, retries without backoff) or the quota is shared with other clients.',
    impact:
      'Part of the calls in {project} to {subject} fail during bursts; retries without backoff prolong the throttling.',
    fix: 'Honour Retry-After and back off with jitter at {location}; reduce the call volume (batch, cache, deduplicate) or raise the quota with the provider.',
    prevention:
      'Put a client-side rate limiter in front of {subject} sized below the quota, and alert on 429 rates before they become errors.',
  },
];
