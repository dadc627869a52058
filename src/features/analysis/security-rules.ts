import type { AnalysisSubject, Opinion } from './analysis-types.js';
import {
  baselineAction,
  readMetrics,
  ruleOpinion,
  severityRisk,
  shiftRisk,
  subjectText,
} from './expert-kit.js';

/** Signs of an attack or a weakness: act only after a security review. */
const INTRUSION =
  /\b(cve-\d+|vulnerab\w*|exploit\w*|intrusion|malware|suspicious|port ?scan\w*|ddos|privilege|rootkit|crypto ?min\w*)\b/;
/** Signs that credentials are rejected, leaked or being guessed. */
const CREDENTIALS =
  /\b(unauthori[sz]ed|forbidden|401|403|credentials?|password|secrets?|tokens?|api[-_ ]?keys?|brute\w*|login|authentication)\b/;
const CERTIFICATES = /\b(certificate\w*|tls|ssl|x509)\b/;

/**
 * Looks for security indicators in the alert names, types, labels, message and context. With
 * none it has no objection to the operational fix, at low risk and low confidence.
 */
export function securityOpinion(subject: AnalysisSubject): Opinion {
  const metrics = readMetrics(subject.context);
  const text = subjectText(subject);
  const severe = severityRisk(subject.severity);
  const intrusion = INTRUSION.exec(text)?.[0];
  if (intrusion) {
    return ruleOpinion('security', subject, metrics, {
      action: 'investigate',
      risk: 'critical',
      confidence: 0.75,
      reasons: [
        `"${intrusion}" points to an attack or a vulnerability.`,
        'Restarting, scaling or rolling back first would destroy evidence or feed the attacker; review access logs and isolate the workload before any change.',
      ],
    });
  }
  const credential = CREDENTIALS.exec(text)?.[0];
  if (credential) {
    return ruleOpinion('security', subject, metrics, {
      action: 'rotate_credentials',
      risk: shiftRisk(severe, 1),
      confidence: 0.7,
      reasons: [
        `"${credential}" points to credentials that are rejected, expired or exposed.`,
        'Rotate them and redeploy with the new secret; check the audit log for use of the old one.',
      ],
    });
  }
  if (subject.alert_types.includes('certificate_expiry') || CERTIFICATES.test(text)) {
    return ruleOpinion('security', subject, metrics, {
      action: 'renew_certificate',
      risk: shiftRisk(severe, 1),
      confidence: 0.8,
      reasons: [
        'An expiring or invalid certificate breaks TLS for every client; renew it before clients start failing or falling back to insecure connections.',
      ],
    });
  }
  const baseline = baselineAction(subject);
  return ruleOpinion('security', subject, metrics, {
    action: baseline,
    risk: 'low',
    confidence: 0.4,
    reasons: [
      'No security indicators in the alert names, types, labels or message.',
      `No security objection to ${baseline}.`,
    ],
  });
}
