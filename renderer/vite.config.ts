import { defineConfig } from 'vite';

// The admin UI: Preact components in TSX, compiled by the esbuild inside Vite (no framework plugin). Everything
// is bundled (no CDN: air-gapped machines); pages that need large libraries (Yjs, uPlot) load them as chunks of
// their own, so the first paint needs only the shell. The output has no inline script or style: the server's CSP
// is `script-src 'self'; style-src 'self'`.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // no inlined data: URLs for assets (img-src allows data:, but fonts and the rest stay files)
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
