FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev
EXPOSE 8080
CMD ["node", "--max-semi-space-size=64", "dist/src/cli/main.js", "serve"]
