import fs from 'node:fs';
import path from 'node:path';
import { InventoryReadError } from './inventory-errors.js';
import type { WorkspaceFiles } from './workspace-set.js';

// pnpm ignores node_modules and bower_components when it looks for workspaces; dot dirs hold
// caches and VCS data (.git, .yarn, .pnpm-store).
function skipped(name: string): boolean {
  return name === 'node_modules' || name === 'bower_components' || name.startsWith('.');
}

/** The inventoried root on disk: read-only, no symlinked directories followed. */
export function fsWorkspaceFiles(root: string): WorkspaceFiles {
  return {
    read(relativePath) {
      const file = path.join(root, relativePath);
      try {
        return fs.readFileSync(file, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
        throw new InventoryReadError(relativePath, `cannot be read (${code ?? 'error'})`);
      }
    },
    packageDirs(maxDepth) {
      const found: string[] = [];
      const walk = (relative: string, depth: number) => {
        if (depth >= maxDepth) return;
        let entries: fs.Dirent[];
        try {
          entries = fs.readdirSync(path.join(root, relative), { withFileTypes: true });
        } catch {
          return; // an unreadable directory holds no workspace we could read anyway
        }
        for (const entry of entries) {
          if (!entry.isDirectory() || skipped(entry.name)) continue;
          const child = relative ? `${relative}/${entry.name}` : entry.name;
          if (fs.existsSync(path.join(root, child, 'package.json'))) found.push(child);
          walk(child, depth + 1);
        }
      };
      walk('', 0);
      return found.sort();
    },
  };
}
