// floor: GET / on bench/floor.mjs, the bare Fastify server every figure is
// compared with. Run at the start and at the end of each pass, without Redis
// cost (the floor has no Redis).

export const floor = {
  name: 'floor',
  makeFeed: () => ({ request: { method: 'GET', path: '/' } })
}
