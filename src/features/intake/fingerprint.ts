import { createHash } from 'node:crypto';

/**
 * CONTRACT, Alert webhook: "Fingerprint: the first 32 hex characters of SHA-256 over
 * `<namespace>:<workload>:<alert_type>`". Inputs are hashed exactly as given; defaults
 * (namespace `default`, workload from the target) are applied before this is called.
 */
export function fingerprintAlert(namespace: string, workload: string, alertType: string): string {
  return fingerprintOf(`${namespace}:${workload}:${alertType}`);
}

const fingerprintOf = (text: string) =>
  createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);

/**
 * A storm repeats a few fingerprints thousands of times a second, and a hash costs more
 * than a lookup: the last few thousand hashed are remembered (first in, first out). Long
 * texts are hashed each time, so what is kept stays within a few megabytes.
 */
const REMEMBERED_LIMIT = 4096;
const REMEMBERED_TEXT_LIMIT = 256;

/** fingerprintAlert, remembering what it hashed last; the intake builds one for its life. */
export function createFingerprinter(): typeof fingerprintAlert {
  const recent = new Map<string, string>();
  return (namespace, workload, alertType) => {
    const text = `${namespace}:${workload}:${alertType}`;
    let fingerprint = recent.get(text);
    if (fingerprint === undefined) {
      fingerprint = fingerprintOf(text);
      if (text.length <= REMEMBERED_TEXT_LIMIT) {
        if (recent.size >= REMEMBERED_LIMIT) recent.delete(recent.keys().next().value as string);
        recent.set(text, fingerprint);
      }
    }
    return fingerprint;
  };
}

/**
 * Kubernetes generated name suffixes use only these characters (apimachinery's
 * `rand.SafeEncodeString`: no vowels, no 0/1/3, so no words). A suffix like `-cache` or
 * `-nginx` therefore is never mistaken for one.
 */
const SAFE = '[bcdfghjklmnpqrstvwxz2456789]';

/**
 * Tried in order; the first match gives the workload. StatefulSet ordinals (`db-0`) are
 * deliberately not stripped: each ordinal is a stable identity with its own volume, so
 * `db-0` and `db-1` failing are two problems, not one.
 */
const GENERATED_SUFFIXES: readonly RegExp[] = [
  // CronJob pod: <cronjob>-<scheduled time in minutes, 8+ digits>-<5 random>
  new RegExp(`^(.+)-\\d{8,}-${SAFE}{5}$`),
  // Deployment pod: <deployment>-<pod-template-hash, 5-10>-<5 random>
  new RegExp(`^(.+)-${SAFE}{5,10}-${SAFE}{5}$`),
  // CronJob's Job (as in a `job_name` label): <cronjob>-<scheduled time in minutes>, so
  // every run of one CronJob converges
  /^(.+)-\d{8,}$/,
  // DaemonSet, Job or bare ReplicaSet pod: <owner>-<5 random>
  new RegExp(`^(.+)-${SAFE}{5}$`),
];

/**
 * A `kind/` prefix as kubectl prints it (`pod/api-…`, `deployment/api`) names the same
 * workload as the bare name, so it is dropped. Other prefixes (`node/…`, `ns/name`) are kept:
 * they are not workload kinds and guessing at them could merge unrelated alerts.
 */
const KIND_PREFIX =
  /^(?:pods?|po|deployments?|deploy|statefulsets?|sts|daemonsets?|ds|replicasets?|rs|jobs?|cronjobs?|cj)(?:\.[a-z0-9.]+)?\//i;

/**
 * CONTRACT, Alert webhook: `workload` defaults to "the target resource with pod hash
 * suffixes removed". Empty or whitespace-only targets give an empty workload.
 */
export function workloadOf(targetResource: string | undefined): string {
  const name = (targetResource ?? '').trim().replace(KIND_PREFIX, '');
  for (const pattern of GENERATED_SUFFIXES) {
    const owner = pattern.exec(name)?.[1];
    if (owner !== undefined) return owner;
  }
  return name;
}
