// The floor of the benchmark: a bare Fastify server answering GET and POST /
// with {"ok":true}, run as its own process on 127.0.0.1, so the harness can
// load it with the same client and settings as the service.
//
//   node bench/floor.mjs <port>
import Fastify from 'fastify'

const port = Number(process.argv[2] ?? process.env.PORT ?? 0)
const fastify = Fastify({ logger: false })

const answer = async () => ({ ok: true })
fastify.get('/', answer)
fastify.post('/', answer)

await fastify.listen({ port, host: '127.0.0.1' })

const stop = () => { fastify.close().then(() => process.exit(0), () => process.exit(1)) }
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
