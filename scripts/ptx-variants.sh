#!/usr/bin/env bash
# ptx-variants: variants of the kernel's PTX, into .gpu/ptx/ (git-ignored,
# carried with .gpu to a GPU machine), for scripts/gpu-check.sh to measure
# with the trace it builds there (TRACE_GPU_PTX, kernels/ptxenv.go):
#
#   scripts/ptx-variants.sh [NAME='CLANG FLAGS'...]
#
#   lineinfo   always: trace.cu as `make kernels` compiles it, with line
#              directives (-gline-directives-only): the same machine code
#              (ptxas gives it the same registers and stack), and ncu's
#              source view can name the source line of each instruction
#              (gpu-check's ncu-source step)
#   NAME       a variant of your own: make kernels with these flags added,
#              e.g. ptx-variants.sh lockstep=-DTRACE_MEGA_LOCKSTEP (the
#              megakernels without path regeneration, trace.cu);
#              gpu-check's ptx-variants step renders frames on each: their
#              times, and whether their bytes are the embedded kernel's; on
#              the megakernels, or for a NAME that starts with wf- (e.g.
#              wf-shade3=-DTRACE_SHADE_ALL_QUARTERS=3), on the wavefront
#
# Variants from an earlier call are removed. It needs what `make kernels`
# needs (clang-19).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
dest=.gpu/ptx
rm -rf "$dest"
mkdir -p "$dest"
if ! git check-ignore -q "$dest/lineinfo.ptx"; then
	echo "ptx-variants: $dest is not ignored by git; run scripts/gpu-pack.sh first" >&2
	exit 2
fi
make -s kernels PTX="$dest/lineinfo.ptx" PTXEXTRA=-gline-directives-only
for v in "$@"; do
	name=${v%%=*}
	flags=${v#*=}
	if [[ ! $name =~ ^[A-Za-z0-9_-]+$ ]] || [ "$name" = "$v" ] || [ "$name" = lineinfo ]; then
		echo "ptx-variants: '$v': want NAME='CLANG FLAGS', NAME letters, digits, - and _, not lineinfo" >&2
		exit 2
	fi
	make -s kernels PTX="$dest/$name.ptx" PTXEXTRA="$flags"
done
ls -l "$dest" | tail -n +2
