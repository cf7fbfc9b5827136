#!/usr/bin/env bash
# gpu-pack: what scripts/gpu-check.sh needs on a GPU machine that has no Go
# and no network, into .gpu/ (git-ignored), to be carried by the device tool
# (carry [".gpu"]):
#
#   .gpu/go.tar.xz      this machine's Go toolchain, trimmed (about 25 MB),
#                       remade only when the Go version changes
#   .gpu/go.version     its version
#   .gpu/vendor.tar.gz  the modules of go.mod (go mod vendor), compressed:
#                       about 4 MB instead of 23 MB of files
#
# Run from anywhere in the checkout, a git worktree too. It fails when the
# working tree that travels (tracked and untracked, not ignored files) and
# .gpu together pass the device tool's 64 MiB. GPU_PACK_GOROOT packs
# another Go root (tests).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
dest=.gpu
mkdir -p "$dest"
# .gpu/ is in .gitignore; a checkout whose .gitignore lacks it gets it in
# the repository's exclude file, which git rev-parse finds in a worktree
# too (where .git is a file, not a folder).
if ! git check-ignore -q "$dest/go.tar.xz"; then
	exclude=$(git rev-parse --git-path info/exclude)
	mkdir -p "$(dirname "$exclude")"
	echo "/$dest/" >>"$exclude"
fi

goroot=${GPU_PACK_GOROOT:-$(go env GOROOT)}
version=$(go env GOVERSION)
[ -n "${GPU_PACK_GOROOT:-}" ] && version="$version ($goroot)"
if [ ! -s "$dest/go.tar.xz" ] || [ "$(cat "$dest/go.version" 2>/dev/null)" != "$version" ]; then
	XZ_OPT=${XZ_OPT:--6 -T0} tar -C "$(dirname "$goroot")" -cJf "$dest/go.tar.xz.tmp" \
		--exclude=go/test --exclude=go/api --exclude=go/doc --exclude=go/misc \
		--exclude=go/lib/wasm --exclude=testdata --exclude=go/src/cmd --exclude='*_test.go' \
		--transform="s,^$(basename "$goroot"),go," "$(basename "$goroot")"
	mv "$dest/go.tar.xz.tmp" "$dest/go.tar.xz"
	echo "$version" >"$dest/go.version"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go mod vendor -o "$tmp/vendor"
tar -C "$tmp" -czf "$dest/vendor.tar.gz.tmp" vendor
mv "$dest/vendor.tar.gz.tmp" "$dest/vendor.tar.gz"
rm -rf "$dest/vendor" # the uncompressed form of earlier packs

limit=$((64 << 20))
tree=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1)
packed=$(du -cb "$dest/go.tar.xz" "$dest/go.version" "$dest/vendor.tar.gz" | tail -n 1 | cut -f1)
total=$((tree + packed))
printf '.gpu: %s MiB (toolchain %s, modules %s); with the working tree %s MiB of the 64 MiB the device tool carries\n' \
	$((packed >> 20)) "$(du -h "$dest/go.tar.xz" | cut -f1)" "$(du -h "$dest/vendor.tar.gz" | cut -f1)" $((total >> 20))
if [ "$total" -gt "$limit" ]; then
	echo "gpu-pack: the working tree ($((tree >> 20)) MiB) and .gpu ($((packed >> 20)) MiB) are over 64 MiB: the device tool would refuse them" >&2
	exit 1
fi
echo 'device tool: run {command: "bash scripts/gpu-check.sh", carry: [".gpu"], timeout_s: 360}'
