/**
 * What each package manager itself reported about a fixture, read from the listings committed
 * next to it. CI has neither pnpm nor Yarn, so the listings were generated once with the real
 * tools (see test/fixtures/inventory/README.md for every command):
 *
 * - pnpm-list.json             `pnpm list -r --json --depth 0` (pnpm 9.15.9; 8.15.9 for pnpm-lock-v6),
 *                              absolute paths rewritten to `./…`
 * - npm-query.json             `npm query ':root, .workspace'` (npm 11.19.1), paths rewritten
 * - npm-ls.json                `npm ls --workspaces --json --depth=0`, paths rewritten
 * - yarn-workspaces-info.json  `yarn workspaces --json info` (Yarn 1.22.22), verbatim
 * - yarn-workspaces-list.jsonl `yarn workspaces list --json -v` (Yarn 4.18.1), verbatim
 * - yarn-info.jsonl            `yarn info --all --recursive --json` (Yarn 4.18.1), verbatim
 *
 * pnpm list and yarn info report the installed (= locked) state, npm query and npm ls the
 * manifests on disk; the drifted copies were listed after their manifests were edited, with the
 * clean install still in place, so their listings show the lock's view.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface ListedWorkspace {
  dir: string;
  name: string | undefined;
  private?: boolean;
  /** Direct dependency counts by section, where the tool reports them per section. */
  sections?: Partial<
    Record<
      'dependencies' | 'devDependencies' | 'optionalDependencies' | 'peerDependencies',
      string[]
    >
  >;
  /** Direct dependencies the tool reports without sections (npm ls, yarn info). */
  merged?: string[];
  /** Names of the workspaces this one depends on, where the tool reports them. */
  workspaceDependencies?: string[];
}

export interface ManagerListing {
  /** What the listing describes: the manifests, or the installed (locked) state. */
  reflects: 'manifests' | 'lockfile';
  /** Whether the listing includes the root workspace. */
  includesRoot: boolean;
  workspaces: ListedWorkspace[];
}

type Json = Record<string, unknown>;

function readJson(dir: string, file: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
}

function readJsonLines(dir: string, file: string): Json[] {
  return fs
    .readFileSync(path.join(dir, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Json);
}

function keys(value: unknown): string[] {
  return value && typeof value === 'object' ? Object.keys(value) : [];
}

function dirOf(listedPath: string): string {
  return listedPath === '.' || listedPath === '' ? '.' : listedPath.replace(/^\.\//, '');
}

function pnpmListing(dir: string): ManagerListing {
  const projects = readJson(dir, 'pnpm-list.json') as Json[];
  return {
    reflects: 'lockfile',
    includesRoot: true,
    workspaces: projects.map((project) => {
      const linked = ['dependencies', 'devDependencies', 'optionalDependencies'].flatMap(
        (section) =>
          Object.entries((project[section] ?? {}) as Record<string, Json>)
            .filter(([, dep]) => String(dep.version).startsWith('link:'))
            .map(([name]) => name),
      );
      return {
        dir: dirOf(String(project.path)),
        name: project.name as string | undefined,
        private: project.private as boolean,
        sections: {
          dependencies: keys(project.dependencies),
          devDependencies: keys(project.devDependencies),
          optionalDependencies: keys(project.optionalDependencies),
        },
        workspaceDependencies: linked.sort(),
      };
    }),
  };
}

function npmListing(dir: string): ManagerListing {
  const nodes = readJson(dir, 'npm-query.json') as Json[];
  const ls = readJson(dir, 'npm-ls.json') as Json;
  const lsDeps = (ls.dependencies ?? {}) as Record<string, Json>;
  return {
    reflects: 'manifests',
    includesRoot: true,
    workspaces: nodes.map((node) => ({
      dir: dirOf(String(node.location)),
      name: node.name as string | undefined,
      sections: {
        dependencies: keys(node.dependencies),
        devDependencies: keys(node.devDependencies),
        optionalDependencies: keys(node.optionalDependencies),
        peerDependencies: keys(node.peerDependencies),
      },
      // npm ls lists each workspace's edges, peers included; the root's are not per workspace
      merged: node.location === '' ? undefined : keys(lsDeps[String(node.name)]?.dependencies),
    })),
  };
}

function yarnClassicListing(dir: string): ManagerListing {
  const log = readJson(dir, 'yarn-workspaces-info.json') as Json;
  const info = JSON.parse(String(log.data)) as Record<string, Json>;
  return {
    reflects: 'manifests',
    includesRoot: false,
    workspaces: Object.entries(info).map(([name, workspace]) => ({
      dir: String(workspace.location),
      name,
      workspaceDependencies: [...(workspace.workspaceDependencies as string[])].sort(),
    })),
  };
}

function yarnBerryListing(dir: string): ManagerListing {
  const listed = readJsonLines(dir, 'yarn-workspaces-list.jsonl');
  const info = readJsonLines(dir, 'yarn-info.jsonl');
  const nameAt = new Map(listed.map((w) => [String(w.location), String(w.name)]));
  return {
    reflects: 'lockfile',
    includesRoot: true,
    workspaces: listed.map((workspace) => {
      const locator = `${workspace.name}@workspace:${workspace.location}`;
      const children = (info.find((line) => line.value === locator)?.children ?? {}) as Json;
      const deps = (children.Dependencies ?? []) as Array<{ descriptor: string }>;
      return {
        dir: String(workspace.location),
        name: String(workspace.name),
        // a descriptor is `name@range`; scoped names keep their leading `@`
        merged: deps.map((dep) => dep.descriptor.slice(0, dep.descriptor.indexOf('@', 1))),
        workspaceDependencies: (workspace.workspaceDependencies as string[])
          .map((location) => nameAt.get(location) ?? location)
          .sort(),
      };
    }),
  };
}

/** The committed listing of a fixture, whichever manager made it. */
export function managerListing(dir: string): ManagerListing {
  if (fs.existsSync(path.join(dir, 'pnpm-list.json'))) return pnpmListing(dir);
  if (fs.existsSync(path.join(dir, 'npm-query.json'))) return npmListing(dir);
  if (fs.existsSync(path.join(dir, 'yarn-workspaces-info.json'))) return yarnClassicListing(dir);
  return yarnBerryListing(dir);
}
