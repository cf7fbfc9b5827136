#!/bin/bash
# The end-to-end tests of deploy/e2e: deploy/slurm/trace.sbatch on a
# one-node Slurm cluster, and the FROM-scratch image and the Kubernetes
# manifests under podman (deploy/README.md, "Tested here"). CI runs this
# (.ci/run), and so does `make e2e`.
#
# As root with apt-get, it first installs what the tests need from
# Debian's packages; without root, apt-get or the packages, the tests skip
# and say why. TRACE_BIN=PATH tests that trace binary (a static one, for
# the image) instead of building one; TRACE_E2E_KEEP=1 keeps a failed
# test's folder (logs, configuration) for a look.
set -eu
cd "$(dirname "$0")/.."

# command -> the Debian package that has it
need=""
for pair in podman:podman runc:runc catatonit:catatonit munged:munge mungekey:munge \
	slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client; do
	cmd=${pair%%:*} pkg=${pair#*:}
	if ! PATH="$PATH:/usr/sbin:/sbin" command -v "$cmd" >/dev/null 2>&1; then
		case " $need " in *" $pkg "*) ;; *) need="$need $pkg" ;; esac
	fi
done
if [ -n "$need" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "e2e: not root, so not installing$need: the tests that need them skip"
	elif ! command -v apt-get >/dev/null 2>&1; then
		echo "e2e: no apt-get to install$need: the tests that need them skip"
	else
		echo "e2e: installing$need"
		# No service may start from the packages' scripts: the tests run
		# munged and Slurm's daemons of their own, and a system munged or
		# slurmd would be left running.
		policy=""
		if [ ! -e /usr/sbin/policy-rc.d ]; then
			policy=/usr/sbin/policy-rc.d
			printf '#!/bin/sh\nexit 101\n' >"$policy"
			chmod 0755 "$policy"
			trap 'rm -f "$policy"' EXIT
		fi
		# shellcheck disable=SC2086 # a list of package names
		if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null; }; then
			echo "e2e: apt-get could not install$need: the tests that need them skip"
		fi
		[ -z "$policy" ] || rm -f "$policy"
	fi
fi

start=$(date +%s)
status=0
PATH="$PATH:/usr/sbin:/sbin" go test -tags e2e -count=1 -v -timeout 15m ./e2e/ || status=$?
echo "e2e: the end-to-end tests took $(($(date +%s) - start))s"
exit "$status"
