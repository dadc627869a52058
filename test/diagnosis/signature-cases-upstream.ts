import { type SignatureCase, signatureCase } from './signature-case.js';

/** Rules-analyzer signature cases: upstream services that reject the call (TLS, credentials, rate limits). */
export const UPSTREAM_CASES: SignatureCase[] = [
  // rate limiting
  signatureCase('python RateLimitError', 'rate-limited', 'strong', ['an upstream API'], {
    type: 'openai.RateLimitError',
    value: 'Error code: 429 - Rate limit reached for requests',
  }),
  signatureCase('node axios 429', 'rate-limited', 'partial', ['an upstream API'], {
    type: 'AxiosError',
    value: 'Request failed with status code 429',
  }),
  signatureCase('java DynamoDB throttling', 'rate-limited', 'partial', ['rate limit'], {
    type: 'com.amazonaws.services.dynamodbv2.model.AmazonDynamoDBException',
    value:
      'Rate exceeded (Service: AmazonDynamoDBv2; Status Code: 400; Error Code: ThrottlingException)',
  }),
  // certificates
  signatureCase(
    'python certificate expired',
    'tls-certificate',
    'strong',
    ["reason 'certificate has expired'"],
    {
      type: 'requests.exceptions.SSLError',
      value:
        "HTTPSConnectionPool(host='partner.example', port=443): Max retries exceeded (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate has expired (_ssl.c:1006)')))",
    },
  ),
  signatureCase('node CERT_HAS_EXPIRED', 'tls-certificate', 'partial', ['certificate'], {
    type: 'Error',
    value: 'certificate has expired',
  }),
  signatureCase('java PKIX', 'tls-certificate', 'strong', ["reason 'PKIX path building failed'"], {
    type: 'javax.net.ssl.SSLHandshakeException',
    value:
      'PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target',
  }),
  signatureCase(
    'go x509 unknown authority',
    'tls-certificate',
    'partial',
    ["reason 'certificate signed by unknown authority'"],
    {
      type: '*url.Error',
      value:
        'Get "https://vault.internal:8200/v1/sys/health": tls: failed to verify certificate: x509: certificate signed by unknown authority',
    },
  ),
  // authentication
  signatureCase(
    'python postgres password',
    'authentication-failed',
    'partial',
    ["user 'billing'"],
    {
      type: 'OperationalError',
      value:
        'connection to server at "db.internal" (10.0.0.5), port 5432 failed: FATAL:  password authentication failed for user "billing"',
    },
  ),
  signatureCase('node jwt expired', 'authentication-failed', 'strong', ['the service it called'], {
    type: 'TokenExpiredError',
    value: 'jwt expired',
  }),
  signatureCase('java bad credentials', 'authentication-failed', 'strong', ['credentials'], {
    type: 'org.springframework.security.authentication.BadCredentialsException',
    value: 'Bad credentials',
  }),
  signatureCase(
    'go 401 from registry',
    'authentication-failed',
    'partial',
    ["service 'registry.internal'"],
    {
      type: '*errors.errorString',
      value: 'unexpected status: 401 Unauthorized from https://registry.internal/v2/',
    },
  ),
];
