import type { LockfileBlocker, LockfileFacts, ManagerCommands } from './workspace-set.js';

/** A lock file we could not compare: nothing counted, nothing compared. */
export function emptyFacts(ref: string, version: string): LockfileFacts {
  return {
    ref,
    version,
    importerCount: 0,
    packageEntryCount: 0,
    snapshotEntryCount: 0,
    settings: {},
  };
}

export function regenerateLockfile(ref: string, commands: ManagerCommands): string {
  return `Run \`${commands.syncLockfile}\` at the workspace root, commit ${ref}, and confirm with \`${commands.verifyLockfile}\``;
}

export function lockfileMissing(ref: string, commands: ManagerCommands): LockfileBlocker {
  return {
    code: 'lockfile_missing',
    workspaceDirs: [],
    summary: `${ref} does not exist: installs are not reproducible and drift cannot be checked`,
    evidenceRefs: [ref],
    nextAction: regenerateLockfile(ref, commands),
  };
}

export function lockfileMergeConflict(ref: string, commands: ManagerCommands): LockfileBlocker {
  return {
    code: 'lockfile_merge_conflict',
    workspaceDirs: [],
    summary: `${ref} holds unresolved merge conflict markers`,
    evidenceRefs: [ref],
    // pnpm, npm and Yarn all resolve conflict markers in their own lock file on the next install
    nextAction: `${regenerateLockfile(ref, commands)}; the install resolves the conflict markers`,
  };
}

export function lockfileVersionUnsupported(
  ref: string,
  versionRef: string,
  version: string,
  supported: string,
  commands: ManagerCommands,
): LockfileBlocker {
  return {
    code: 'lockfile_version_unsupported',
    workspaceDirs: [],
    summary: `${ref} has lockfile version ${version}; this inventory reads ${supported}`,
    evidenceRefs: [versionRef],
    nextAction: `Upgrade the package manager, then: ${regenerateLockfile(ref, commands)}`,
  };
}
