# Build stage: compile the TypeScript, then keep only runtime dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY plugins ./plugins
COPY sdk ./sdk
COPY console ./console
COPY examples ./examples
COPY scripts/build-web.mjs ./scripts/build-web.mjs
RUN npm run build && npm prune --omit=dev

# Runtime stage: the compiled service only, as the unprivileged node user.
# The image has no redis-server: set REDIS_URL (docker-compose.yml does).
# Its files belong to root: the service only reads them, and a compromised
# process cannot rewrite its own code.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json redis.conf ./
COPY public ./public
# The Lua scripts are read at start-up from src/store/lua (tsc does not copy them).
COPY src/store/lua ./src/store/lua
# The operator CLI on the PATH: docker exec <container> ranking-admin keys create <game_id>
RUN printf '#!/bin/sh\nexec node /app/dist/src/cli.js "$@"\n' > /usr/local/bin/ranking-admin \
 && chmod 755 /usr/local/bin/ranking-admin
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then(r => r.json()).then(b => process.exit(b.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM from `docker stop` drains in-flight requests, then exits: up to
# SHUTDOWN_TIMEOUT_MS (7 s) + 2.5 s, inside the runtime's default 10 s. A longer
# drain needs a longer grace (`docker run --stop-timeout`, stop_grace_period).
CMD ["node", "dist/src/server.js"]
