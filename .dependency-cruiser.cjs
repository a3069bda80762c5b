/*
 * The layers of the service, lowest first (docs/architecture.md#layers).
 * A module may import from its own layer and the layers below it, never
 * from one above; and nothing may import in a circle, type-only imports
 * included (a reader would go round it). `npm run lint` runs this.
 */
const LAYERS = [
  { name: 'base', path: '^src/(errors\\.ts|lib/)', what: 'error codes and helpers with no knowledge of the service' },
  { name: 'rules', path: '^src/rules/', what: 'pure rules: fields, names, periods, playable games, the signature' },
  { name: 'store', path: '^src/store/', what: 'Redis: keys, the client, the script loader, the repositories, the Lua' },
  { name: 'services', path: '^src/(live|webhooks|signin)/', what: 'live boards, webhook delivery and sign-in with the platform, on the store' },
  { name: 'operations', path: '^src/operations/', what: 'what an operator can do, shared by the routes, the CLI and the console' },
  { name: 'config', path: '^src/config(\\.ts$|/)', what: 'the environment, read once' },
  { name: 'plugins', path: '^plugins/', what: 'Fastify plugins: wrapped packages (external/) and our decorators (app/)' },
  { name: 'routes', path: '^src/routes/', what: 'the HTTP routes, one folder per URL family' },
  { name: 'app', path: '^src/(app|server-options)\\.ts$', what: 'the Fastify app: its server options, its plugins and routes in order' },
  { name: 'entries', path: '^src/((server|cli)\\.ts$|cli/)', what: 'the process entry points' }
]

const upward = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `no-upward-from-${layer.name}`,
  comment: `${layer.name} (${layer.what}) may not import from a layer above it: ${LAYERS.slice(index + 1).map(above => above.name).join(', ')}`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: LAYERS.slice(index + 1).map(above => above.path) }
}))

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle, type-only imports included: break it by moving the shared part down a layer.',
      severity: 'error',
      from: {},
      to: { circular: true }
    },
    ...upward,
    {
      name: 'no-app-plugins-from-external',
      comment: 'plugins/external wraps published packages and knows nothing of our decorators in plugins/app.',
      severity: 'error',
      from: { path: '^plugins/external/' },
      to: { path: '^plugins/app/' }
    },
    {
      name: 'no-tooling-from-the-service',
      comment: 'The service imports none of the tests, benchmarks, scripts or the console.',
      severity: 'error',
      from: { path: '^(src|plugins)/' },
      to: { path: '^(test|bench|scripts|console)/' }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] }
  }
}
