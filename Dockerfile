# syntax=docker/dockerfile:1
# The operator image: `docker build -t tfjob-operator:0.1.0 .` (or podman/buildah/kaniko).
# Stage 1 compiles TypeScript to dist/ with every dependency; stage 2 installs production
# dependencies only; the final stage holds dist/, those node_modules and package.json (ESM), and
# runs as a numeric non-root user, so `runAsNonRoot` can verify it and a read-only root filesystem
# works (the operator writes nothing to disk; logs go to stdout).
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# 65532: the conventional "nonroot" UID; it owns nothing in the image, which it only reads.
USER 65532:65532
# 8080 /metrics, 8081 /healthz and /readyz (config/manager/manager.yaml).
EXPOSE 8080 8081
ENTRYPOINT ["node", "dist/cli/main.js", "run"]
