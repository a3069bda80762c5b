import fp from 'fastify-plugin'
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import helmet, { type HelmetOptions } from 'helmet'

/**
 * Security headers with helmet (docs/security.md). By default every
 * answer is one that nothing may frame, load as a page or sniff: the JSON
 * API, the operator API, static assets. The pages that must differ say so
 * in their route options with the policies below:
 *
 * - the play page may be framed by nothing but its own origin, runs only its
 *   own scripts (and its one inline script, by nonce), and frames the game;
 * - the login page may be framed by nothing, so no hosted game can overlay it;
 * - a hosted game's files may be framed by the play page only; what the game
 *   itself runs is the operator's to review (a game is trusted code);
 * - the API-key actions are read from other sites' pages (CORS), so their
 *   answers may be loaded cross-origin.
 *
 * Answers that carry a session id or a secret (the operator and login
 * routes, and any answer that sets a cookie) and per-user pages are never
 * stored by a cache: `Cache-Control: no-store` (route option `noStore`).
 */
/** A route's policy: helmet's options over the defaults below, and per-request CSP nonces for pages with an inline script. */
export type RouteHelmet = HelmetOptions & { enableCSPNonces?: boolean }

declare module 'fastify' {
  interface RouteShorthandOptions {
    /** This route's security-header policy, over the defaults (see HELMET). */
    helmet?: RouteHelmet
  }
  interface FastifyContextConfig {
    /** Cache-Control: no-store on every answer of the route. */
    noStore?: boolean
    /**
     * The route's policy as the request sees it; set it in an onRoute hook
     * for routes a plugin registers (static files, the docs), whose
     * `helmet` route option we cannot pass.
     */
    helmet?: RouteHelmet
  }
  interface FastifyReply {
    /** The nonces of a page whose policy enables them: its inline script and style carry them. */
    cspNonce: { script: string, style: string }
  }
}

/** Nothing may run or load: JSON and files that are not pages. */
const NOTHING = { defaultSrc: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"], frameAncestors: ["'none'"] }

/**
 * Helmet's headers that only a browser rendering a document reads (the
 * opener, the agent cluster, DNS prefetching, IE8's download prompt, Flash's
 * cross-domain policies, the old XSS auditor). Pages send them; a JSON answer
 * or a file does not, which makes every API answer about 200 bytes shorter.
 */
const DOCUMENT_ONLY = {
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false
} as const satisfies HelmetOptions
const ON_PAGES = Object.fromEntries(Object.keys(DOCUMENT_ONLY).map(name => [name, true])) as Record<keyof typeof DOCUMENT_ONLY, true>

function pagePolicy (frameAncestors: string): RouteHelmet {
  return {
    ...ON_PAGES,
    enableCSPNonces: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        frameSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: [frameAncestors]
      }
    },
    frameguard: { action: frameAncestors === "'self'" ? 'sameorigin' : 'deny' }
  }
}

/**
 * A page's policy, also framed by `origins` (PLAY_FRAME_ORIGINS: the
 * platform's pages that frame the play page, and through it the game).
 * X-Frame-Options cannot name other origins: browsers that read
 * frame-ancestors ignore it, so it is left out then.
 */
export function framedBy (policy: RouteHelmet, origins: string[]): RouteHelmet {
  if (origins.length === 0) return policy
  const csp = policy.contentSecurityPolicy as { useDefaults: boolean, directives: Record<string, string[]> }
  return { ...policy, frameguard: false, contentSecurityPolicy: { ...csp, directives: { ...csp.directives, frameAncestors: [...(csp.directives.frameAncestors ?? []), ...origins] } } } as RouteHelmet
}

export const HELMET = {
  playPage: pagePolicy("'self'"),
  loginPage: pagePolicy("'none'"),
  /** A hosted game: framed by the play page; its own code is trusted (docs/security.md). */
  gameFiles: {
    ...ON_PAGES,
    // Anything, on purpose: a game loads what it needs, once an operator approved it.
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ['*', 'data:', 'blob:', "'unsafe-inline'", "'unsafe-eval'"], frameAncestors: ["'self'"] } },
    frameguard: { action: 'sameorigin' },
    crossOriginOpenerPolicy: false
  } satisfies RouteHelmet,
  /** The Game Jolt worker's script (public/gamejolt-worker.js): a service worker runs under its script's policy, and its one need is to fetch this origin. */
  gamejoltWorker: {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], connectSrc: ["'self'"] } }
  } satisfies RouteHelmet,
  /** The API reference page (@fastify/swagger-ui): its own scripts and styles, inline styles included. */
  docs: {
    ...ON_PAGES,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'self'"], imgSrc: ["'self'", 'data:'], styleSrc: ["'self'", "'unsafe-inline'"], objectSrc: ["'none'"], baseUri: ["'none'"], frameAncestors: ["'none'"] }
    }
  } satisfies RouteHelmet,
  /**
   * The operator console (dist/console): its own scripts and styles only, no
   * inline code (a bundle from Vite), talking to this origin only; framed by
   * nothing, so no page can overlay it.
   */
  console: {
    ...ON_PAGES,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'self'"], scriptSrc: ["'self'"], styleSrc: ["'self'"], imgSrc: ["'self'", 'data:'], connectSrc: ["'self'"], objectSrc: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"], frameAncestors: ["'none'"] }
    },
    referrerPolicy: { policy: 'no-referrer' }
  } satisfies RouteHelmet,
  /** The API-key actions: other sites' pages read them. */
  crossOrigin: { crossOriginResourcePolicy: { policy: 'cross-origin' } } satisfies RouteHelmet
}

/** Where engines' HTML5 exports call Game Jolt's API; the Game Jolt worker answers them from this origin (docs/gamejolt.md#hosted-builds). */
export const GAMEJOLT_ORIGINS = ['https://api.gamejolt.com', 'http://api.gamejolt.com', 'https://gamejolt.com', 'http://gamejolt.com']

/**
 * A hosted game's files when the game has Game Jolt's API on: its requests
 * to Game Jolt may leave (for the worker to answer). Over HTTPS an `http://`
 * build's requests are made `https://` first, which mixed-content blocking
 * would otherwise stop before the worker sees them; over plain HTTP that
 * would break a game on localhost, so it is only there over HTTPS.
 */
export function withGamejoltApi (policy: RouteHelmet, https: boolean): RouteHelmet {
  const csp = policy.contentSecurityPolicy as { useDefaults: boolean, directives: Record<string, string[]> }
  const { defaultSrc = [] } = csp.directives
  const directives = { ...csp.directives, connectSrc: [...defaultSrc, ...GAMEJOLT_ORIGINS], ...(https ? { upgradeInsecureRequests: [] } : {}) }
  return { ...policy, contentSecurityPolicy: { ...csp, directives } } as RouteHelmet
}

/** A policy's Content-Security-Policy header, for an answer that needs another than its route's (set after the route's). */
export function cspHeaderOf (policy: RouteHelmet): string {
  return headersOf(policy)['content-security-policy'] ?? ''
}

/** The policy of every answer whose route sets none: nothing may run, load or frame it. */
function defaultPolicy (production: boolean): HelmetOptions {
  return {
    ...DOCUMENT_ONLY,
    contentSecurityPolicy: { useDefaults: false, directives: NOTHING },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // HTTPS is the proxy's in development too; browsers ignore HSTS over plain HTTP anyway.
    strictTransportSecurity: production ? { maxAge: 31_536_000 } : false
  }
}

/**
 * The default policy's headers, for the answers given before any route is
 * found (a malformed URL, a request Node cannot parse), which the plugin's
 * hook never sees.
 */
export function defaultSecurityHeaders (production: boolean): Record<string, string> {
  return headersOf(defaultPolicy(production))
}

/**
 * Sets a route's security headers with helmet. The headers of a policy are
 * worked out once (headersOf), the first time one of its routes answers, not for every
 * request as @fastify/helmet does (docs/decisions/0062-hot-path-choices-measured.md). Pages with
 * CSP nonces get fresh ones, and their own policy, on every request.
 */
export default fp(async (fastify) => {
  const defaults = defaultPolicy(fastify.config.nodeEnv === 'production')
  type Apply = (request: FastifyRequest, reply: FastifyReply) => void

  function compile (policy: RouteHelmet = {}): Apply {
    const { enableCSPNonces = false, ...options } = policy
    const merged = { ...defaults, ...options } as HelmetOptions
    if (!enableCSPNonces || typeof merged.contentSecurityPolicy !== 'object') {
      const headers = headersOf(merged)
      return (_request, reply) => { reply.headers(headers) }
    }
    const { directives = {}, ...csp } = merged.contentSecurityPolicy
    const withNonce = (sources: unknown, nonce: string): string[] => [...(Array.isArray(sources) ? sources as string[] : []), `'nonce-${nonce}'`]
    return (request, reply) => {
      const nonce = { script: randomBytes(16).toString('hex'), style: randomBytes(16).toString('hex') }
      reply.cspNonce = nonce
      const policyWithNonces = { ...directives, scriptSrc: withNonce(directives.scriptSrc, nonce.script), styleSrc: withNonce(directives.styleSrc, nonce.style) }
      helmet({ ...merged, contentSecurityPolicy: { ...csp, directives: policyWithNonces } })(request.raw, reply.raw, rethrow)
    }
  }

  // By the route's config object, which is one per route: policies set by
  // other plugins' onRoute hooks are there by the first request.
  const compiled = new WeakMap<object, Apply>()
  fastify.decorateReply('cspNonce', null as unknown as FastifyReply['cspNonce'])
  fastify.addHook('onRoute', (route) => {
    if (route.helmet !== undefined) route.config = { ...route.config, helmet: route.helmet }
  })
  fastify.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config
    let apply = compiled.get(config)
    if (apply === undefined) {
      apply = compile(config.helmet)
      compiled.set(config, apply)
    }
    apply(request, reply)
    done()
  })
}, { name: 'security-headers', dependencies: ['config'] })

/**
 * The headers helmet sets for a policy, worked out once: its middleware run
 * on a response that only records them. Handed to Fastify's reply.headers,
 * they reach Node with the rest of the answer's headers in one writeHead,
 * not header by header on the raw response.
 */
function headersOf (options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const recorder = {
    setHeader (name: string, value: string) { headers[name.toLowerCase()] = value },
    removeHeader (name: string) { delete headers[name.toLowerCase()] }
  }
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, rethrow)
  return headers
}

function rethrow (error?: unknown): void {
  if (error !== undefined && error !== null) throw error
}

/**
 * Cache-Control: no-store on routes that ask for it and on every answer that
 * sets a cookie. Registered after the session plugin: @fastify/cookie writes
 * Set-Cookie in an onSend hook of its own, which must have run before this one.
 */
export const noStore = fp(async (fastify) => {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (request.routeOptions.config.noStore === true || reply.hasHeader('set-cookie')) reply.header('cache-control', 'no-store')
    done(null, payload)
  })
}, { name: 'no-store', dependencies: ['session'] })
