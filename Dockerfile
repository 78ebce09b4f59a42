# Build stage: dev dependencies compile the TypeScript and the browser bundles.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

# Runtime: the built service and its production dependencies, run as the image's `node` user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production DATA_DIR=/data HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json /app/package-lock.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/scripts/healthcheck.mjs ./scripts/healthcheck.mjs
# A named volume mounted here starts with this directory's owner (and /keys its mode), so the service can write it.
RUN mkdir -p /data /keys && chown node:node /data /keys && chmod 700 /keys
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "scripts/healthcheck.mjs", "api"]
CMD ["node", "--max-semi-space-size=64", "dist/src/cli/main.js", "serve"]
