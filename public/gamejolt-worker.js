// The Game Jolt worker (docs/gamejolt.md#hosted-builds). The play page
// registers it for one hosted game's folder, /games/<game_id>/, when the game
// has Game Jolt's API on. An engine's HTML5 export calls Game Jolt's own
// address (http or https, api.gamejolt.com or gamejolt.com); this sends each
// such request to this service, which answers Game Jolt's API at the same
// path, with its method, body and content type. The signature still holds:
// the service checks it over Game Jolt's address too. Every other request is
// left to the browser. After a score or a trophy it tells the game's play
// page, which shows the achievement toast.
/* global self */ // a service worker's global scope
'use strict'

const HOSTS = new Set(['api.gamejolt.com', 'gamejolt.com'])

function isGameJolt (url) {
  return (url.protocol === 'https:' || url.protocol === 'http:') && HOSTS.has(url.hostname) && url.pathname.startsWith('/api/game/')
}

async function forward (request, url) {
  const init = { method: request.method, headers: {}, credentials: 'omit', redirect: 'manual' }
  const type = request.headers.get('content-type')
  if (type !== null) init.headers['content-type'] = type
  if (request.method !== 'GET' && request.method !== 'HEAD') init.body = await request.arrayBuffer()
  return await fetch(`${self.location.origin}${url.pathname}${url.search}`, init)
}

// Calls after which the play page reads the player's standing and achievements again, and shows a toast for a
// new one, as it does when a game of our own API tells it (public/play.js, platform.refresh).
const SCORING = /\/(?:scores\/add|trophies\/add[-_]achieved|batch)\/?$/

async function tellPlayPages () {
  const play = `/play/${new URL(self.registration.scope).pathname.split('/')[2]}`
  for (const page of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) {
    if (new URL(page.url).pathname === play) page.postMessage({ type: 'ranking:submitted' })
  }
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url)
  if (!isGameJolt(url)) return
  const answer = forward(event.request, url)
  event.respondWith(answer)
  if (SCORING.test(url.pathname)) event.waitUntil(answer.then(tellPlayPages, () => {}))
})

// A new version of this file takes over at once, open games included: it only forwards requests.
self.addEventListener('install', () => { self.skipWaiting() })
self.addEventListener('activate', (event) => { event.waitUntil(self.clients.claim()) })
