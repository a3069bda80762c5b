# Build stage: compile the TypeScript, then keep only runtime dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY plugins ./plugins
COPY sdk ./sdk
RUN npm run build && npm prune --omit=dev

# Runtime stage: the compiled service only, as the unprivileged node user.
# The image has no redis-server: set REDIS_URL (docker-compose.yml does).
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json redis.conf ./
COPY --chown=node:node public ./public
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then(r => r.json()).then(b => process.exit(b.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM from `docker stop` drains in-flight requests, then exits.
CMD ["node", "dist/src/server.js"]
