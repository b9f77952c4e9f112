# The bot with Debian's ffmpeg, as a non-root user under tini.
# Build: docker build -t tts-bot .     Run: docker compose up (bot + Redis), or
#        docker run --env-file .env -v tts-data:/app/data -p 127.0.0.1:8080:8080 tts-bot
# (/healthz, /readyz and /metrics on the host's loopback only, as compose does).
# Operator commands run in the image too: append one to the run line without -p, e.g.
#   npm run secrets:rotate, npm run deploy-commands, npm run tts -- --help, npm run emulator
# (in compose: docker compose run --rm bot npm run secrets:rotate).
# Back up the data volume (secret.key: without it stored API keys cannot be opened; bot.sqlite:
# the store), e.g. docker run --rm -v tts-data:/app/data tts-bot tar czf - -C /app/data . > data.tgz
# Proven by `npm run test:docker` (builds this image and runs it against the fake Discord).
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. Optional ones are kept: DAVE's native binding
# (@snazzah/davey-linux-x64-gnu) is optional, and @discordjs/voice does not load without it.
# Two optional packages are removed: node-linux-<cpu> (the project's pinned Node 24 for
# `npm start`, 189 MB; the base image has Node 24) and ffmpeg-static (the image uses Debian's
# ffmpeg). Install scripts are skipped: only ffmpeg-static has one (a download from GitHub).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/node-linux-* node_modules/ffmpeg-static \
      node_modules/.bin/node node_modules/.bin/ffmpeg-static

FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /app/data && chown node:node /app/data
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/app/data HTTP_PORT=8080
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY commands ./commands
COPY src ./src
# The operator tools (.dockerignore keeps only these): secret rotation, the TTS CLI, the emulator.
COPY tools ./tools
USER node
VOLUME ["/app/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["node", "src/healthcheck.ts"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# The same V8 flag as `npm start` (see package.json): a smaller young generation keeps RSS low.
CMD ["node", "--max-semi-space-size=8", "src/main.ts"]
