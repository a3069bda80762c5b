// Where a service process spends its CPU, from a V8 .cpuprofile (node
// --cpu-prof): each sample is charged to the function on top of the stack,
// and each function to a phase of a request by the file it lives in. Only
// the samples taken while the load ran count (the profile's clock and
// process.hrtime are both CLOCK_MONOTONIC, so the harness can say when).

/** Phases, first match wins: [name, test of the frame's url or function name]. */
const PHASES = [
  ['idle', (url, name) => name === '(idle)'],
  ['garbage collection', (url, name) => name === '(garbage collector)'],
  ['Redis client (ioredis)', (url) => /\/node_modules\/(ioredis|redis-parser|redis-errors|denque|cluster-key-slot|standard-as-callback)\//.test(url)],
  ['logging (pino)', (url) => /\/node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream|fast-redact|on-exit-leak-free)\//.test(url)],
  ['serialization', (url) => /\/node_modules\/(fast-json-stringify|@fastify\/fast-json-stringify-compiler|json-schema-ref-resolver|fast-uri)\//.test(url)],
  ['validation (schemas, params)', (url) => /\/node_modules\/(ajv|ajv-formats|@fastify\/ajv-compiler|@sinclair\/typebox)\//.test(url) || /\/src\/(rules\/fields|routes\/((\w+\/)?schemas|board-schemas|rank\/answers))\.js$/.test(url)],
  ['signature (HMAC)', (url) => /\/src\/http\/signature\.js$|\/sdk\/index\.js$|node:internal\/crypto\//.test(url)],
  ['body parsing', (url) => /\/node_modules\/(@fastify\/formbody|@fastify\/multipart|busboy|fast-querystring|secure-json-parse)\//.test(url) || /\/plugins\/forms\.js$/.test(url)],
  ['rate limiting', (url) => /\/node_modules\/@fastify\/rate-limit\//.test(url) || /\/plugins\/rate-limit\.js$/.test(url)],
  ['security headers, CORS, cookies', (url) => /\/node_modules\/(@fastify\/helmet|helmet|@fastify\/cors|@fastify\/cookie|cookie|cookie-signature)\//.test(url) || /\/plugins\/security-headers\.js$/.test(url)],
  ['Fastify (routing, hooks, reply)', (url) => /\/node_modules\/(fastify|find-my-way|avvio|light-my-request|@fastify\/error|fastq|toad-cache|rfdc|process-warning|abstract-logging)\//.test(url)],
  ['service code (src/, plugins/)', (url) => /\/dist\/(src|plugins)\//.test(url) || /\/bench\/minimal\.mjs$/.test(url)],
  ['Node HTTP and sockets', (url) => /^node:(internal\/)?(http|_http|net|stream|internal\/streams|internal\/stream_base_commons|internal\/http|events|internal\/timers|timers|internal\/async_hooks|internal\/process\/task_queues|buffer|internal\/buffer|internal\/url|url)/.test(url) || /^node:_http_/.test(url)],
  ['other Node internals', (url) => url.startsWith('node:')],
  ['V8 and native, no JavaScript caller', (url, name) => name === '(program)' || url === '']
]

/**
 * CPU by phase between fromUs and toUs (CLOCK_MONOTONIC microseconds), and
 * the functions with the most self time. Returns { totalUs, busyUs, phases:
 * [{ name, us }], functions: [{ name, where, us }] }.
 */
export function analyzeProfile (profile, fromUs, toUs) {
  const nodes = new Map(profile.nodes.map(node => [node.id, node]))
  const parents = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
  // A native function (no url: HMAC, JSON, socket writes) counts in the phase of the JavaScript that called it.
  const phaseOf = (id) => {
    const { functionName, url } = nodes.get(id).callFrame
    const name = functionName === '' ? '(anonymous)' : functionName
    if (url === '' && !name.startsWith('(')) {
      for (let up = parents.get(id); up !== undefined; up = parents.get(up)) {
        if (nodes.get(up).callFrame.url !== '') return phaseOf(up)
      }
    }
    return PHASES.find(([, test]) => test(url, name))?.[0] ?? 'other'
  }
  const selfUs = new Map()
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]
    if (at < fromUs || at > toUs) continue
    const delta = profile.timeDeltas[i + 1] ?? 0
    const id = profile.samples[i]
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta)
  }
  const phases = new Map(PHASES.map(([name]) => [name, 0]))
  const functions = new Map()
  let totalUs = 0
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame
    const name = functionName === '' ? '(anonymous)' : functionName
    const phase = phaseOf(id)
    phases.set(phase, (phases.get(phase) ?? 0) + us)
    totalUs += us
    const where = url === '' ? '' : `${url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`
    const key = `${name} ${where}`
    const entry = functions.get(key) ?? { name, where, us: 0, phase }
    entry.us += us
    functions.set(key, entry)
  }
  const busyUs = totalUs - (phases.get('idle') ?? 0)
  return {
    totalUs,
    busyUs,
    phases: [...phases].map(([name, us]) => ({ name, us })).filter(phase => phase.us > 0).sort((a, b) => b.us - a.us),
    functions: [...functions.values()].filter(fn => fn.phase !== 'idle').sort((a, b) => b.us - a.us).slice(0, 15)
  }
}
