# The bot, with ffmpeg from Debian. Build: docker build -t tts-bot .
# Run:   docker run --env-file .env -v tts-data:/app/data tts-bot
FROM node:24-bookworm-slim AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund

FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production DATA_DIR=/app/data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY commands ./commands
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# The same V8 flag as `npm start` (see package.json): a smaller young generation keeps RSS low.
CMD ["node", "--max-semi-space-size=8", "src/main.ts"]
