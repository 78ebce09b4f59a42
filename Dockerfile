# Node 22 LTS, by its exact version (Node 20 is end of life since April 2026; the package still
# runs on Node >= 20.19, `engines`). To pin the image by digest as well, pass the digest of this
# tag as you resolved it (`docker buildx imagetools inspect node:22.23.3-bookworm-slim`):
#   docker build --build-arg NODE_DIGEST=@sha256:<digest> .
# The repository names no digest it could not check; an empty NODE_DIGEST builds from the tag.
ARG NODE_VERSION=22.23.3
ARG NODE_DIGEST=

# Build stage: dev dependencies compile the TypeScript and the browser bundles.
FROM node:${NODE_VERSION}-bookworm-slim${NODE_DIGEST} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm ci` runs `prepare`, which finds no sources yet and builds nothing (scripts/prepare.mjs).
COPY scripts/prepare.mjs scripts/ensure-built.mjs scripts/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

# Runtime: the built service and its production dependencies, run as the image's `node` user.
FROM node:${NODE_VERSION}-bookworm-slim${NODE_DIGEST}
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
