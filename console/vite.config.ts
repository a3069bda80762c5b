import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// The operator console (docs/console.md): built into dist/console, which the
// service serves at /console/ (plugins/console.ts). `npm run console:dev`
// serves it with hot reload and sends /admin to a service on :3000.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // One bundle for the console; Chart.js is most of it.
    chunkSizeWarningLimit: 400
  },
  server: { proxy: { '/admin': 'http://127.0.0.1:3000' } }
})
