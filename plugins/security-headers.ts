import fp from 'fastify-plugin'
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet'

/**
 * Security headers with @fastify/helmet (docs/security.md). By default every
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
type RouteHelmet = Omit<FastifyHelmetOptions, 'global'>

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Cache-Control: no-store on every answer of the route. */
    noStore?: boolean
    /**
     * Where @fastify/helmet reads a route's policy at request time; set it in
     * an onRoute hook for routes a plugin registers (static files, the docs),
     * whose `helmet` route option we cannot pass.
     */
    helmet?: RouteHelmet
  }
}

/** Nothing may run or load: JSON and files that are not pages. */
const NOTHING = { defaultSrc: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"], frameAncestors: ["'none'"] }

function pagePolicy (frameAncestors: string): RouteHelmet {
  return {
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

export const HELMET = {
  playPage: pagePolicy("'self'"),
  loginPage: pagePolicy("'none'"),
  /** A hosted game: framed by the play page; its own code is trusted (docs/security.md). */
  gameFiles: {
    // Anything, on purpose: a game loads what it needs, once an operator approved it.
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ['*', 'data:', 'blob:', "'unsafe-inline'", "'unsafe-eval'"], frameAncestors: ["'self'"] } },
    frameguard: { action: 'sameorigin' },
    crossOriginOpenerPolicy: false
  } satisfies RouteHelmet,
  /** The API reference page (@fastify/swagger-ui): its own scripts and styles, inline styles included. */
  docs: {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'self'"], imgSrc: ["'self'", 'data:'], styleSrc: ["'self'", "'unsafe-inline'"], objectSrc: ["'none'"], baseUri: ["'none'"], frameAncestors: ["'none'"] }
    }
  } satisfies RouteHelmet,
  /** The API-key actions: other sites' pages read them. */
  crossOrigin: { crossOriginResourcePolicy: { policy: 'cross-origin' } } satisfies RouteHelmet
}

export default fp(async (fastify) => {
  const production = fastify.config.nodeEnv === 'production'
  await fastify.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: NOTHING },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // HTTPS is the proxy's in development too; browsers ignore HSTS over plain HTTP anyway.
    strictTransportSecurity: production ? { maxAge: 31_536_000 } : false
  })
}, { name: 'security-headers', dependencies: ['config'] })

/**
 * Cache-Control: no-store on routes that ask for it and on every answer that
 * sets a cookie. Registered after the session plugin: @fastify/cookie writes
 * Set-Cookie in an onSend hook of its own, which must have run before this one.
 */
export const noStore = fp(async (fastify) => {
  fastify.addHook('onSend', async (request, reply) => {
    if (request.routeOptions.config.noStore === true || reply.hasHeader('set-cookie')) reply.header('cache-control', 'no-store')
  })
}, { name: 'no-store', dependencies: ['session'] })
