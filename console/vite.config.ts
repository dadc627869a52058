import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The console, bundled into dist-console/ and served by the service at /console/. */
export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [preact({ prerender: { enabled: false } })],
  build: {
    outDir: fileURLToPath(new URL('../dist-console', import.meta.url)),
    emptyOutDir: true,
    // Every asset is a file of its own: no data: URLs, nothing inline (strict CSP).
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
});
