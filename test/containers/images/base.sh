#!/usr/bin/env bash
# The test's stand-in for the official node:20-bookworm-slim image, which no registry here can give:
# Debian bookworm (debootstrap minbase) from this host's apt mirror, with this host's Node 20 copied to the
# official image's paths (/usr/local/bin/node, /usr/local/lib/node_modules/npm), written as a tar of the root
# file system to $1. Its apt sources and CA certificates are the host's, so apt and npm reach what the host
# reaches (a registry behind a proxy with its own CA included).
set -euo pipefail
out=$1
rootfs=$(mktemp -d /var/tmp/pagewatch-test-base.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT

# The first deb822 source of the host (Debian's default layout since bookworm), else its sources.list.
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list)
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >&2

if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  rm -f "$rootfs/etc/apt/sources.list"
  cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/debian.sources"
fi
mkdir -p "$rootfs/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb

node=$(readlink -f "$(command -v node)")
npm_dir=$(dirname "$(dirname "$node")")/lib/node_modules/npm
install -D -m 0755 "$node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
# Node's headers, as the official image has them: node-gyp builds native addons (better-sqlite3) against them.
cp -a /usr/include/node "$rootfs/usr/local/include/node"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
# npm and node trust the host's CA bundle, as the host's do.
mkdir -p "$rootfs/usr/local/etc"
printf 'cafile=/etc/ssl/certs/ca-certificates.crt\n' >"$rootfs/usr/local/etc/npmrc"
chroot "$rootfs" /usr/local/bin/node --version >&2

tar -C "$rootfs" --numeric-owner -cf "$out" .
