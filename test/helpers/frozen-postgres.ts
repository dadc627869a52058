import fs from 'node:fs';
import type { PrivatePostgres } from './private-services.js';

export interface FrozenPostgres {
  /** SIGCONT to every process stopped; safe to call twice. */
  thaw(): void;
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid …`; the command name may hold spaces and parentheses.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * SIGSTOP to a private PostgreSQL (never the shared one): its postmaster and every process
 * it started, so it accepts connections (the kernel completes them) and answers nothing, on
 * the connections it has as on new ones. Thaw it in a finally or an afterAll.
 */
export async function freezePostgres(server: PrivatePostgres): Promise<FrozenPostgres> {
  const { rows } = await server.query(
    "select pid from pg_stat_activity where backend_type = 'checkpointer'",
  );
  const postmaster = parentOf(Number(rows[0].pid));
  if (!postmaster) throw new Error('the private PostgreSQL has no postmaster to freeze');
  const stopped: number[] = [];
  // The postmaster first: stopped, it starts no process that would escape the freeze.
  process.kill(postmaster, 'SIGSTOP');
  stopped.push(postmaster);
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || parentOf(pid) !== postmaster) continue;
    try {
      process.kill(pid, 'SIGSTOP');
      stopped.push(pid);
    } catch {
      // Ended meanwhile.
    }
  }
  return {
    thaw() {
      for (const pid of stopped) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // Ended meanwhile.
        }
      }
    },
  };
}
