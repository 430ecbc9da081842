import { resolve } from 'node:path';
import { defineConfig } from 'vite';

/**
 * The website's app (issue 24 points 1, 11): one module entry, `app/main.ts`, that the server-rendered pages
 * load. No HTML of its own (the pages are its shell, so an unknown path never answers an app shell) and no CSS
 * (the pages' one stylesheet, shared/pages/style.ts, styles the app too). Every file is named by its content's
 * hash, so the stack and the local runtime serve `assets/` as immutable; `.vite/manifest.json` tells the pages
 * the entry's name (lib/site-build.ts).
 */
export default defineConfig({
  root: resolve(import.meta.dirname, 'app'),
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: resolve(import.meta.dirname, 'build/site'),
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    sourcemap: false,
    // Clerk's library (only fetched on AWS, app/auth/clerk.ts) is one large chunk by design.
    chunkSizeWarningLimit: 2000,
    rollupOptions: {
      // The service worker (app/sw.ts) is served at `/sw.js`, unhashed, so its scope is the whole origin.
      input: { main: resolve(import.meta.dirname, 'app/main.ts'), sw: resolve(import.meta.dirname, 'app/sw.ts') },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js'),
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
});
