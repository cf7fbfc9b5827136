#!/bin/bash
# Builds the trace image FROM scratch (Containerfile beside this script)
# with no registry: the static binary is compiled here, on the host, and
# copied into an empty image with a passwd entry for user 65532 and /tmp.
#
#   deploy/container/build.sh [-t TAG] [--bin FILE] [--version V]
#
#   -t, --tag TAG    the image's name (default trace:latest)
#   --bin FILE       put FILE in the image instead of compiling one; it must
#                    be a static Go binary (CGO_ENABLED=0): scratch has no libc
#   --version V      the version trace prints (default dev)
#
# ENGINE is the build command with any global flags, split on spaces
# (default: podman if installed, else docker), e.g.
#   ENGINE="podman --storage-driver vfs" deploy/container/build.sh
# GO is the Go command (default go).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tag=trace:latest bin="" version=dev
while [ $# -gt 0 ]; do
	case $1 in
	-t | --tag) tag=${2:?"$1 needs a value"}; shift 2 ;;
	--bin) bin=${2:?"$1 needs a value"}; shift 2 ;;
	--version) version=${2:?"$1 needs a value"}; shift 2 ;;
	-h | --help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "build.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
if [ -z "${ENGINE:-}" ]; then
	if command -v podman >/dev/null; then ENGINE=podman
	elif command -v docker >/dev/null; then ENGINE=docker
	else echo "build.sh: neither podman nor docker is installed (or set ENGINE)" >&2; exit 2
	fi
fi
go=${GO:-go}

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
if [ -n "$bin" ]; then
	# A binary linked against libc would not start in an empty image: say so
	# now rather than at the first `run`.
	if ! "$go" version -m "$bin" 2>/dev/null | grep -q 'CGO_ENABLED=0'; then
		echo "build.sh: $bin is not a Go binary built with CGO_ENABLED=0; scratch has no libc for it" >&2
		exit 2
	fi
	cp "$bin" "$ctx/trace"
else
	# The flags of ../../Dockerfile's build stage: the same binary.
	(cd "$root" && CGO_ENABLED=0 "$go" build -trimpath -buildvcs=false \
		-ldflags "-s -w -X main.version=$version" -o "$ctx/trace" ./cmd/trace)
fi
chmod 0755 "$ctx/trace"

# The root file system: the user the image runs as (named, for tools that
# look it up), and a /tmp as any program expects. COPY keeps these modes.
mkdir -p "$ctx/rootfs/etc" "$ctx/rootfs/tmp"
chmod 1777 "$ctx/rootfs/tmp"
printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >"$ctx/rootfs/etc/passwd"
printf '%s\n' 'root:x:0:' 'nonroot:x:65532:' >"$ctx/rootfs/etc/group"
chmod 0644 "$ctx/rootfs/etc/passwd" "$ctx/rootfs/etc/group"
cp "$here/Containerfile" "$ctx/Containerfile"

# shellcheck disable=SC2086 # ENGINE is a command with its flags
$ENGINE build -f "$ctx/Containerfile" -t "$tag" "$ctx"
echo "build.sh: built $tag FROM scratch"
