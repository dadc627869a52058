import { Fragment } from 'preact';
import { api } from './api';
import type { PackageInventory } from './api-types';
import { Outside } from './outside';
import { when } from './time-text';
import { Loading, useLoad } from './views-common';

/** What a drift note needs of an entry; the three kinds of drift share these fields. */
interface DriftEntry {
  workspace_id: string | null;
  dependency_name: string | null;
}

/** A drift note: the page's label, then the dependency's name (outside text). */
interface DriftNote {
  label: string;
  name: string | null;
}

export function InventoryView() {
  const { data, error, reload } = useLoad(
    () => api<PackageInventory>('/api/v1/agents/javascript-package-inventory'),
    [],
  );
  if (!data)
    return (
      <section aria-labelledby="inventory-title">
        <h1 id="inventory-title">Inventory</h1>
        <Loading error={error} />
      </section>
    );
  const drift = data.lockfile_drift;
  const driftByWorkspace = new Map<string, DriftNote[]>();
  const note = (list: DriftEntry[], label: string) => {
    for (const entry of list) {
      if (!entry.workspace_id) continue;
      const notes = driftByWorkspace.get(entry.workspace_id) ?? [];
      notes.push({ label, name: entry.dependency_name });
      driftByWorkspace.set(entry.workspace_id, notes);
    }
  };
  note(drift.missing_in_lockfile, 'missing in lock file:');
  note(drift.specifier_mismatches, 'specifier mismatch:');
  note(drift.extra_in_lockfile, 'extra in lock file:');
  const open = data.drift_findings.filter((finding) => finding.status !== 'accepted');
  return (
    <section aria-labelledby="inventory-title">
      <h1 id="inventory-title">Inventory</h1>
      <p class="muted">
        Package inventory derived live from the workspace, generated {when(data.generated_at)}.{' '}
        <button type="button" class="link" onClick={reload}>
          Refresh
        </button>
      </p>
      <p>
        Lock file drift:{' '}
        <span class={`badge drift-${drift.status}`} data-testid="drift-status">
          <Outside>{drift.status}</Outside>
        </span>{' '}
        ({drift.missing_in_lockfile.length} missing, {drift.specifier_mismatches.length} mismatched,{' '}
        {drift.extra_in_lockfile.length} extra)
      </p>
      <h2>Drift findings</h2>
      {data.drift_findings.length === 0 ? (
        <p class="ok">No drift finding.</p>
      ) : (
        <ul class="findings">
          {data.drift_findings.map((finding) => (
            <li
              key={finding.finding_id}
              class={`finding finding-${finding.status}`}
              data-finding={finding.finding_id}
            >
              <div class="card-head">
                <strong>
                  <Outside>{finding.summary}</Outside>
                </strong>
                <span>
                  <span class={`badge severity-${finding.severity}`}>
                    <Outside>{finding.severity}</Outside>
                  </span>{' '}
                  <span class={`badge drift-${finding.status}`}>
                    <Outside>{finding.status}</Outside>
                  </span>
                </span>
              </div>
              <p class="small">
                Next: <Outside>{finding.next_action}</Outside>
              </p>
              <p class="small muted wrap">
                {finding.evidence_refs.map((ref, index) => (
                  <Fragment key={`${index}-${ref}`}>
                    {index > 0 && ', '}
                    <Outside>{ref}</Outside>
                  </Fragment>
                ))}
              </p>
            </li>
          ))}
        </ul>
      )}
      {open.length > 0 && (
        <p class="small muted">{open.length} finding(s) not accepted are highlighted.</p>
      )}
      <h2>Workspaces</h2>
      <div class="table-wrap">
        <table class="data">
          <caption class="visually-hidden">Workspaces with their drift</caption>
          <thead>
            <tr>
              <th scope="col">Workspace</th>
              <th scope="col">Status</th>
              <th scope="col">Deps</th>
              <th scope="col">Drift</th>
            </tr>
          </thead>
          <tbody>
            {data.workspaces.map((workspace) => {
              const notes = driftByWorkspace.get(workspace.workspace_id) ?? [];
              const drifting = notes.length > 0 || workspace.status !== 'ready';
              return (
                <tr
                  key={workspace.workspace_id}
                  class={drifting ? 'drifting' : undefined}
                  data-workspace={workspace.workspace_id}
                >
                  <td>
                    <strong>
                      <Outside>{workspace.display_name}</Outside>
                    </strong>
                    <div class="small muted wrap">
                      <Outside>{workspace.manifest_ref}</Outside>
                    </div>
                  </td>
                  <td>
                    <span class={`badge drift-${workspace.status}`}>
                      <Outside>{workspace.status}</Outside>
                    </span>
                    <div class="small">
                      risk <Outside>{workspace.risk_level}</Outside>
                    </div>
                  </td>
                  <td>{workspace.dependency_counts.total}</td>
                  <td>
                    {notes.length ? (
                      <ul class="plain small">
                        {notes.map((note, index) => (
                          <li key={`${index}-${note.label}-${note.name}`}>
                            {note.label}
                            {note.name !== null && (
                              <>
                                {' '}
                                <Outside>{note.name}</Outside>
                              </>
                            )}
                          </li>
                        ))}
                      </ul>
                    ) : (
                      <span class="small muted">
                        <Outside>{workspace.next_action}</Outside>
                      </span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
