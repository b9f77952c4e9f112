#!/usr/bin/env bash
# Installs the system programs the project uses, when missing. With no
# arguments: everything the tests need — ffmpeg (audio), espeak-ng (real
# speech in the emulator), redis-server (Redis store tests), openssl (TLS
# for the fake voice server). With arguments: only those programs (the bot
# itself needs only ffmpeg). Quiet when everything is present.
set -euo pipefail
wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=(ffmpeg espeak-ng redis-server openssl)
missing=()
for tool in "${wanted[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: missing ${missing[*]}; install them with your package manager" >&2
  exit 1
fi
echo "system-deps: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
