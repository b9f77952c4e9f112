# A local stand-in for redis:7-bookworm (the image docker-compose.yml names), for machines that
# reach no container registry: Debian bookworm's Redis 7 on the local node:24-bookworm-slim
# stand-in, run as the redis user in /data like the official image. Built by
# scripts/test-docker.sh when redis:7-bookworm is absent (docker build - < this file); never pushed.
FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
WORKDIR /data
USER redis
CMD ["redis-server"]
