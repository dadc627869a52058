/**
 * The static data of alert-type resolution: the closed set of built-in alert types and the
 * table of well-known alert names. Spec, Alert payload: "The alert type is derived from the
 * alert name: first from the match rules (rule type or rule id), then from a static
 * name-to-type table, then the value `custom`".
 *
 * The set is kept small on purpose: the alert type is part of the fingerprint
 * (`<namespace>:<workload>:<alert_type>`), so two alert names that describe the same problem
 * of the same workload should map to the same type and converge into one incident.
 */
export const ALERT_TYPES = [
  'crash_loop',
  'oom_killed',
  'pod_not_ready',
  'replica_mismatch',
  'rollout_stuck',
  'job_failed',
  'image_pull_failure',
  'high_cpu',
  'cpu_throttling',
  'high_memory',
  // space, inodes and I/O saturation of a disk or volume
  'disk_pressure',
  'volume_errors',
  'node_not_ready',
  'error_rate',
  'latency',
  // a Prometheus scrape target is gone (the monitoring system's view)
  'target_down',
  'certificate_expiry',
  // quotas and headroom: overcommit, HPA at its maximum, pod or conntrack limits
  'capacity',
  'clock_skew',
  'network_errors',
  // the alerting pipeline itself is failing (rule evaluation, notification delivery)
  'monitoring_pipeline',
  // the always-firing dead man's switch
  'heartbeat',
  // a service, endpoint, probe or unit is down (the user's view)
  'service_down',
] as const;

export type AlertType = (typeof ALERT_TYPES)[number];

/** Spec, Alert payload: "... then the value `custom`". */
export const CUSTOM_ALERT_TYPE = 'custom';

/**
 * Well-known alert names (kube-prometheus / kubernetes-mixin, node-exporter mixin, the
 * Prometheus and Alertmanager mixins, and common hand-written names) and their alert type.
 * Keys are written as the alert is usually spelled; lookup ignores case and separators.
 */
export const ALERT_NAME_TABLE: Readonly<Record<string, AlertType>> = {
  // kubernetes-mixin: workloads
  KubePodCrashLooping: 'crash_loop',
  PodRestartingTooOften: 'crash_loop',
  KubePodNotReady: 'pod_not_ready',
  // a container stuck in Waiting keeps its pod from becoming ready
  KubeContainerWaiting: 'pod_not_ready',
  KubeDeploymentReplicasMismatch: 'replica_mismatch',
  KubeStatefulSetReplicasMismatch: 'replica_mismatch',
  KubeDeploymentRolloutStuck: 'rollout_stuck',
  KubeDeploymentGenerationMismatch: 'rollout_stuck',
  KubeStatefulSetUpdateNotRolledOut: 'rollout_stuck',
  KubeDaemonSetRolloutStuck: 'rollout_stuck',
  KubeJobFailed: 'job_failed',
  KubeJobNotCompleted: 'job_failed',
  // kubernetes-mixin: resources and capacity
  KubeHpaMaxedOut: 'capacity',
  KubeMemoryOvercommit: 'capacity',
  KubeCPUOvercommit: 'capacity',
  KubeletTooManyPods: 'capacity',
  CPUThrottlingHigh: 'cpu_throttling',
  // kubernetes-mixin: storage
  KubePersistentVolumeFillingUp: 'disk_pressure',
  KubePersistentVolumeErrors: 'volume_errors',
  // kubernetes-mixin: nodes and control plane
  KubeNodeNotReady: 'node_not_ready',
  KubeNodeUnreachable: 'node_not_ready',
  KubeNodeReadinessFlapping: 'node_not_ready',
  KubeClientCertificateExpiration: 'certificate_expiry',
  KubeAPIErrorBudgetBurn: 'error_rate',
  // kube-prometheus general rules
  TargetDown: 'target_down',
  InstanceDown: 'target_down',
  Watchdog: 'heartbeat',
  // node-exporter mixin
  NodeFilesystemSpaceFillingUp: 'disk_pressure',
  NodeFilesystemAlmostOutOfSpace: 'disk_pressure',
  NodeFilesystemFilesFillingUp: 'disk_pressure',
  NodeFilesystemAlmostOutOfFiles: 'disk_pressure',
  NodeDiskIOSaturation: 'disk_pressure',
  NodeMemoryHighUtilization: 'high_memory',
  NodeCPUHighUsage: 'high_cpu',
  // a full conntrack table drops new connections: a limit, not a link error
  NodeHighNumberConntrackEntriesUsed: 'capacity',
  NodeClockNotSynchronising: 'clock_skew',
  NodeClockSkewDetected: 'clock_skew',
  NodeNetworkReceiveErrs: 'network_errors',
  NodeNetworkTransmitErrs: 'network_errors',
  NodeSystemdServiceFailed: 'service_down',
  // prometheus and alertmanager mixins
  PrometheusRuleFailures: 'monitoring_pipeline',
  AlertmanagerFailedToSendAlerts: 'monitoring_pipeline',
  // common hand-written names
  OOMKilled: 'oom_killed',
  ContainerOOMKilled: 'oom_killed',
  KubePodOOMKilled: 'oom_killed',
  ImagePullBackOff: 'image_pull_failure',
  ErrImagePull: 'image_pull_failure',
  HighErrorRate: 'error_rate',
  High5xxRate: 'error_rate',
  HighLatency: 'latency',
  HighP99Latency: 'latency',
  HighCPUUsage: 'high_cpu',
  HighMemoryUsage: 'high_memory',
  DiskFull: 'disk_pressure',
  CertificateExpiringSoon: 'certificate_expiry',
  SSLCertExpiringSoon: 'certificate_expiry',
  ServiceDown: 'service_down',
  EndpointDown: 'service_down',
  ProbeFailed: 'service_down',
};
