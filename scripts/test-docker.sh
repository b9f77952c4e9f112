#!/usr/bin/env bash
# npm run test:docker — proves the Docker image: builds it with a local Docker daemon and runs it
# against the fake Discord and the TTS emulator on loopback (host network), checking that it logs
# in, registers its commands, turns healthy and answers a /say; then brings docker-compose.yml up
# (bot and Redis, with docker-compose.host.yml) and runs the same /say against it. Not part of
# `npm test` (a build takes about 12 minutes on 2 cores with the vfs storage driver). Needs root
# for what it installs. Docker works at nice 19 (the machine is shared).
#  - installs docker.io, debootstrap and docker-compose (1.29) when missing (apt);
#  - starts dockerd (vfs, no bridge, no iptables) when none answers, and stops only that one;
#  - builds the local stand-in for node:24-bookworm-slim with ../shared/tools/node-base-image.sh,
#    and for redis:7-bookworm with test/docker/redis-stand-in.Dockerfile, when absent (no
#    container registry is reachable here);
#  - builds the project image with --network host, then runs test/docker/run.ts (the image) and
#    test/docker/compose.ts (the compose file, on the image just built: no second build);
#  - whatever happens, removes the compose project's containers and volumes before it exits.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${TEST_DOCKER_IMAGE:-tts-bot:test}
PROJECT=ttsbot-compose-test-$$

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test:docker: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

dockerd_pid=""
cleanup() {
  # The compose runner runs `docker-compose down -v` itself; this is for a run cut short.
  if docker info >/dev/null 2>&1; then
    local left
    left=$(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT")
    [ -z "$left" ] || docker rm -f $left >/dev/null 2>&1 || true
    left=$(docker volume ls -q --filter "label=com.docker.compose.project=$PROJECT")
    [ -z "$left" ] || docker volume rm -f $left >/dev/null 2>&1 || true
  fi
  if [ -n "$dockerd_pid" ]; then
    echo "test:docker: stopping the dockerd it started (pid $dockerd_pid)"
    kill "$dockerd_pid" 2>/dev/null || true
    wait "$dockerd_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
if ! docker info >/dev/null 2>&1; then
  log=$(mktemp /tmp/test-docker-dockerd.XXXXXX.log)
  echo "test:docker: starting dockerd (log: $log)"
  # In its own session, so a Ctrl-C of this script does not stop it before the cleanup has run.
  setsid nice -n 19 dockerd --storage-driver=vfs --bridge=none --iptables=false >"$log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "test:docker: dockerd did not start; see $log" >&2; exit 1; }
fi

if ! docker image inspect node:24-bookworm-slim >/dev/null 2>&1; then
  script=""
  for candidate in "${NODE_BASE_IMAGE_SCRIPT:-}" ../shared/tools/node-base-image.sh ../../shared/tools/node-base-image.sh; do
    if [ -n "$candidate" ] && [ -f "$candidate" ]; then script=$candidate; break; fi
  done
  if [ -z "$script" ]; then
    echo "test:docker: node:24-bookworm-slim is absent and no node-base-image.sh was found (set NODE_BASE_IMAGE_SCRIPT)" >&2
    exit 1
  fi
  echo "test:docker: building the base image with $script"
  nice -n 19 bash "$script"
fi
if ! docker image inspect redis:7-bookworm >/dev/null 2>&1; then
  echo "test:docker: building the stand-in for redis:7-bookworm"
  nice -n 19 docker build --network host -t redis:7-bookworm - <test/docker/redis-stand-in.Dockerfile
fi

echo "test:docker: building $IMAGE"
started=$(date +%s)
nice -n 19 docker build --network host -t "$IMAGE" .
echo "test:docker: image built in $(( $(date +%s) - started )) s"
# Node 24 from the project (npm run puts it first on PATH; called directly, this finds it too).
node=node
[ -x node_modules/.bin/node ] && node=node_modules/.bin/node
"$node" test/docker/run.ts "$IMAGE"
"$node" test/docker/compose.ts "$IMAGE" "$PROJECT"
