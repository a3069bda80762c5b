// The Game Jolt worker (docs/gamejolt.md#hosted-builds). The play page
// registers it for one hosted game's folder, /games/<game_id>/, when the game
// has Game Jolt's API on. An engine's HTML5 export calls Game Jolt's own
// address (http or https, api.gamejolt.com or gamejolt.com); this sends each
// such request to this service, which answers Game Jolt's API at the same
// path, with its method, body and content type. The signature still holds:
// the service checks it over Game Jolt's address too. Every other request is
// left to the browser.
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

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url)
  if (isGameJolt(url)) event.respondWith(forward(event.request, url))
})

// A new version of this file takes over at once, open games included: it only forwards requests.
self.addEventListener('install', () => { self.skipWaiting() })
self.addEventListener('activate', (event) => { event.waitUntil(self.clients.claim()) })
