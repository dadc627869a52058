// The registry this project is built against serves only the Linux builds of packages
// that ship one binary package per platform (Biome, esbuild's peers, msgpackr-extract).
// npm then leaves the other platforms out of package-lock.json, and `npm ci` refuses the
// lock as out of sync. This adds an entry, with its os/cpu, for every optional dependency
// the lock lacks; npm skips such entries on other platforms, so nothing else changes.
// Run after `npm install`: node scripts/complete-lockfile.mjs
import fs from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;
let added = 0;

function platformOf(name) {
  const os = ['darwin', 'win32', 'android', 'freebsd', 'openbsd', 'sunos', 'aix'].find(
    (candidate) => name.includes(candidate),
  );
  const cpu = /arm64/.test(name)
    ? 'arm64'
    : /-arm\b(?!64)/.test(name)
      ? 'arm'
      : /ia32/.test(name)
        ? 'ia32'
        : 'x64';
  return { os: [os ?? 'linux'], cpu: [cpu], ...(/musl/.test(name) ? { libc: ['musl'] } : {}) };
}

for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (packages[`node_modules/${name}`] || packages[`${path}/node_modules/${name}`]) continue;
    packages[`node_modules/${name}`] = {
      version,
      optional: true,
      ...(entry.dev ? { dev: true } : {}),
      ...platformOf(name),
    };
    added += 1;
  }
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
