"""Adaptive sampling in trace against Cycles' own: the samples a pixel
takes and the noise left at each noise threshold.

Run by scripts/adaptive-noise.sh -c (see there for the usage); by hand:

    /usr/bin/python3 scripts/cycles/adaptive_compare.py --trace bin/trace --out DIR \\
        [--size 128] [--spp 256] [--ref-spp 4096] [--thresholds "0.003 0.01 0.05"] \\
        [--scenes "cornell-box materials pbr"] [--threads 2] [--blender blender] [--scale K]

Per scene (NAME.json in scenes/examples, or a path; square, --size a
side), both renderers with the scene converted as compare.py does
(render.py, pbr as its Lambert-based nodes):

1. mask: which material each pixel centre sees (render.py --mask), for
   the per-region sample counts (none for a scene of glTF files, such as
   pbr, which Cycles renders through Blender's glTF importer,
   gltf_render.py: Principled BSDFs, close to trace's pbr but not the same
   materials, each renderer measured against its own reference);
2. references: each renderer at --ref-spp, no adaptive sampling (seed
   777), kept in --out and reused when there;
3. at no threshold and at each of --thresholds, --spp samples at most,
   min_samples 0 (the automatic count in both): trace's mean samples a
   pixel (its render summary), Cycles' from its Debug Sample Count pass
   (render.py --sample-count; Cycles writes it divided by the samples it
   rendered: --spp, or fewer when every pixel converged before (the last
   "Sample N/spp" of its log, which this reads), 1 at every pixel without
   adaptive sampling, which this checks), per pixel and so per region
   too; the CPU seconds of the render (trace: the
   process; Cycles: bpy.ops.render.render, one run each, so noisy on a
   shared machine); RMSE^2 against the renderer's own reference (every
   pixel and channel; the reference's noise adds spp/ref-spp of a render's
   variance at --spp), and that over the RMSE^2 at no threshold (×none);
   the same ratio for the median over the pixels of a pixel's squared
   error (med×), which the few fireflies that decide RMSE^2 in pbr leave
   alone;
4. unless --no-match, the trace threshold T' at which trace takes as many
   samples a pixel as Cycles at T (bisection, within 2 %), and trace's
   RMSE^2 there over its RMSE^2 at no threshold, beside Cycles' at T: how
   far apart the thresholds are, and whether the same work buys the same
   noise; and trace's samples a pixel with min_samples at Cycles' fewest
   (the first test Cycles makes: the multiple of 16 above its minimum),
   which separates that difference from the others (Cycles' 3x3
   neighbourhood, its single draw of |I - A|).

--scale K also renders trace at K times each threshold (its automatic
min_samples computed from K·T too, as `--noise-threshold K·T` does) and
prints its samples a pixel, their ratio to Cycles' at T and its noise
factors beside Cycles': a fixed remapping of the threshold, checked on
scenes it was not fitted on (0.34 was fitted on cornell-box, materials
and pbr by scripts/adaptive-neighbourhood, checked with --scale 0.34 on
mesh, spheres and clearcoat, and is trace's own since pixel version 12,
tracer.NoiseThresholdScale: K now multiplies it; README, Adaptive
sampling).

--reuse-cycles keeps the Cycles renders already in --out and renders only
trace. The references are kept in --out and reused whatever the flags:
remove them (or use another --out) after changing either renderer.

Prints a table and writes table.txt and results.jsonl in --out.
"""

import argparse
import json
import math
import os
import re
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, HERE)
import compare  # noqa: E402
import imgio  # noqa: E402
import tracescene  # noqa: E402

REF_SEED = 777


def is_gltf(path):
    """Whether the scene's objects are glTF files, which render.py does not
    convert: Cycles renders them through Blender's glTF importer
    (gltf_render.py, Principled BSDFs) and no mask is made."""
    with open(path) as f:
        objs = json.load(f)["objects"]
    return any(o.get("file", "").endswith((".gltf", ".glb")) for o in objs)


def samples_rendered(log, spp):
    """The samples Cycles rendered, from its log's progress lines ("Sample
    N/spp"): spp, or fewer when adaptive sampling had every pixel
    converged before (the render then stops, and the Debug Sample Count
    pass is divided by N, not spp)."""
    with open(log) as f:
        n = [int(m) for m in re.findall(r"\| Sample ([0-9]+)/%d\b" % spp, f.read())]
    if not n:
        sys.exit("%s: no \"Sample N/%d\" progress line: cannot tell how many samples Cycles rendered" % (log, spp))
    return max(n)


def sample_counts(out, spp):
    """Cycles' samples a pixel, (h, w), from the render's Debug Sample Count
    pass and its log (samples_rendered); each a whole number, or exit."""
    n = samples_rendered(out + ".log", spp)
    count = imgio.read_pfm(out + ".count.pfm")[:, :, 0] * n
    if np.abs(count - np.round(count)).max() > 1e-3 * n:
        sys.exit("%s: the sample count pass times the %d samples rendered is not whole: its normalisation "
                 "changed" % (out, n))
    return np.round(count)


def cycles(a, scene, out, spp, threshold=0.0, mask=False, seed=1):
    """Renders with Cycles (render.py, or gltf_render.py for glTF scenes);
    returns its stats and the sample count image (samples a pixel, (h, w);
    None for a mask)."""
    stats = out + ".stats.json"
    count = out + ".count.pfm"
    if a.reuse_cycles and os.path.exists(out) and os.path.exists(stats) and \
            (mask or (os.path.exists(count) and os.path.exists(out + ".log"))):
        with open(stats) as f:
            st = json.load(f)
        if st["spp"] == (1 if mask else spp) and st["size"] == a.size and \
                (mask or abs(st["noise_threshold"] - threshold) <= 1e-6 * threshold):
            return st, None if mask else sample_counts(out, spp)
    script = "gltf_render.py" if is_gltf(scene) else "render.py"
    cmd = [a.blender, "-b", "--factory-startup", "--python", os.path.join(HERE, script), "--",
           "--scene", scene, "--size", str(a.size), "--spp", str(spp), "--out", out,
           "--threads", str(a.threads), "--seed", str(seed), "--stats", stats]
    if mask:
        cmd.append("--mask")
    else:
        cmd += ["--noise-threshold", repr(threshold), "--min-samples", "0", "--sample-count", count]
    compare.run_timed(cmd, out + ".log")
    with open(stats) as f:
        st = json.load(f)
    if mask:
        return st, None
    return st, sample_counts(out, spp)


def trace(a, scene, out, spp, threshold=0.0, seed=1, min_samples=0):
    """Renders with trace; returns (CPU seconds, mean samples a pixel)."""
    cmd = [a.trace, "render", scene, "--width", str(a.size), "--height", str(a.size),
           "--samples", str(spp), "--noise-threshold", repr(threshold), "--min-samples", str(min_samples),
           "--threads", str(a.threads), "--seed", str(seed), "-o", out]
    cpu, _ = compare.run_timed(cmd, out + ".log")
    with open(out + ".log") as f:
        m = re.search(r", ([0-9.]+) of [0-9]+ samples a pixel", f.read())
    return cpu, float(m.group(1)) if m else float(spp)


def match(a, scene, base, t, target, ref):
    """The trace threshold at which trace's mean samples a pixel come
    within 2 % of target (Cycles' at t): bisection on log T between t/64
    and 4t, at most 8 renders. Returns (threshold, samples a pixel,
    RMSE² against ref)."""
    lo, hi = math.log(t / 64), math.log(4 * t)
    best = None
    for _ in range(8):
        tm = math.exp((lo + hi) / 2)
        out = "%s-trace-match-%g.pfm" % (base, t)
        _, spp = trace(a, scene, out, a.spp, threshold=tm)
        if best is None or abs(spp - target) < abs(best[1] - target):
            best = (tm, spp, rmse2(imgio.read_pfm(out), ref))
        if abs(spp - target) <= 0.02 * target:
            break
        if spp > target:
            lo = math.log(tm)
        else:
            hi = math.log(tm)
    return best


def rmse2(img, ref):
    """The mean squared difference over every pixel and channel, and the
    median over the pixels of a pixel's mean over its channels (robust to
    the few fireflies that decide the mean in pbr, say)."""
    d = img - ref
    d = (d * d).mean(axis=2)
    return float(d.mean()), float(np.median(d))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trace", required=True)
    p.add_argument("--blender", default="blender")
    p.add_argument("--out", required=True)
    p.add_argument("--size", type=int, default=128)
    p.add_argument("--scenes", default="cornell-box materials pbr")
    p.add_argument("--scene-dir", default=os.path.join(ROOT, "scenes", "examples"))
    p.add_argument("--spp", type=int, default=256, help="the most samples a pixel takes")
    p.add_argument("--ref-spp", type=int, default=4096)
    p.add_argument("--thresholds", default="0.003 0.01 0.05")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reuse-cycles", action="store_true",
                   help="reuse the Cycles renders already in --out (same size, spp and threshold): "
                        "only trace renders, to measure another trace")
    p.add_argument("--scale", type=float, default=0.0,
                   help="also trace at this times each threshold, against Cycles at the threshold (0: not)")
    p.add_argument("--no-match", action="store_true",
                   help="skip the search for the trace threshold that takes Cycles' samples a pixel")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    thresholds = [0.0] + [float(t) for t in a.thresholds.split()]
    lines = []
    results = []

    def say(s):
        print(s, flush=True)
        lines.append(s)

    t0 = time.time()
    head = "%-11s %-6s %9s %7s %5s %8s %8s %7s %7s %7s %7s %6s %6s" % (
        "scene", "T", "spp trace", "Cycles", "ratio", "RMSE² tr", "Cycles", "×none", "Cycles",
        "med×", "Cycles", "cpu-s", "Cycles")
    for entry in a.scenes.split():
        path, name = compare.scene_path(a, entry)
        base = os.path.join(a.out, name)
        idx, names = None, []
        if not is_gltf(path):
            mpath = base + "-mask.pfm"
            if not os.path.exists(mpath):
                cycles(a, path, mpath, 1, mask=True)
            idx, _, _, names, _, _ = compare.masks(tracescene.load(path), imgio.read_pfm(mpath))
        refs = {}
        for r in ("trace", "cycles"):
            rp = "%s-%s-ref-%d-%d.pfm" % (base, r, a.size, a.ref_spp)
            if not os.path.exists(rp):
                if r == "trace":
                    trace(a, path, rp, a.ref_spp, seed=REF_SEED)
                else:
                    cycles(a, path, rp, a.ref_spp, seed=REF_SEED)
            refs[r] = imgio.read_pfm(rp)
        say(head)
        none = {}
        for t in thresholds:
            tp = "%s-trace-%g.pfm" % (base, t)
            tcpu, tspp = trace(a, path, tp, a.spp, threshold=t)
            cp = "%s-cycles-%g.pfm" % (base, t)
            st, count = cycles(a, path, cp, a.spp, threshold=t)
            if t == 0 and not np.all(count == a.spp):
                sys.exit("%s: Cycles' sample count without adaptive sampling is not --spp everywhere "
                         "(%g to %g): its normalisation changed" % (cp, count.min(), count.max()))
            e = {"trace": rmse2(imgio.read_pfm(tp), refs["trace"]),
                 "cycles": rmse2(imgio.read_pfm(cp), refs["cycles"])}
            x = {k: (e[k][0] / (none or e)[k][0], e[k][1] / (none or e)[k][1]) for k in e}
            if t == 0:
                none = e
            cspp = float(count.mean())
            regions = {}
            for i, n in enumerate(names):
                sel = idx == i
                if sel.any() and n not in regions:
                    regions[n] = {"pixels": int(sel.sum()), "cycles_spp": float(count[sel].mean())}
            rec = {"scene": name, "threshold": t, "size": a.size, "max_spp": a.spp, "ref_spp": a.ref_spp,
                   "trace_spp": tspp, "cycles_spp": cspp, "trace_cpu_s": tcpu, "cycles_cpu_s": st["render_cpu_s"],
                   "trace_rmse2": e["trace"][0], "cycles_rmse2": e["cycles"][0],
                   "trace_median_se": e["trace"][1], "cycles_median_se": e["cycles"][1],
                   "cycles_spp_min": float(count.min()), "cycles_regions": regions}
            results.append(rec)
            say("%-11s %-6s %9.1f %7.1f %5.2f %8.3g %8.3g %7.2f %7.2f %7.2f %7.2f %6.2f %6.2f" % (
                name, "none" if t == 0 else "%g" % t, tspp, cspp, tspp / cspp, e["trace"][0], e["cycles"][0],
                x["trace"][0], x["cycles"][0], x["trace"][1], x["cycles"][1], tcpu, st["render_cpu_s"]))
        if not a.no_match:
            say("    trace at Cycles' samples a pixel: T → trace's T' (T'/T), samples a pixel, "
                "×none and med× (trace | Cycles at T)")
            for r in results[-len(thresholds) + 1:]:
                tm, spp, e = match(a, path, base, r["threshold"], r["cycles_spp"], refs["trace"])
                r.update(match_threshold=tm, match_spp=spp, match_rmse2=e[0], match_median_se=e[1])
                say("    %-6g → %-8.3g (%5.3f) %6.1f (Cycles %6.1f)   %5.2f | %5.2f   %5.2f | %5.2f" % (
                    r["threshold"], tm, tm / r["threshold"], spp, r["cycles_spp"], e[0] / none["trace"][0],
                    r["cycles_rmse2"] / none["cycles"][0], e[1] / none["trace"][1],
                    r["cycles_median_se"] / none["cycles"][1]))
            say("    trace with min_samples at Cycles' fewest samples a pixel (its first test): T (min) → "
                "samples a pixel (trace at min 0 | Cycles)")
            for r in results[-len(thresholds) + 1:]:
                first = int(r["cycles_spp_min"])
                _, spp = trace(a, path, "%s-trace-first-%g.pfm" % (base, r["threshold"]), a.spp,
                               threshold=r["threshold"], min_samples=first)
                r.update(first_test=first, first_test_trace_spp=spp)
                say("    %-6g (%3d) → %6.1f (%6.1f | %6.1f)" % (r["threshold"], first, spp, r["trace_spp"],
                                                            r["cycles_spp"]))
        if a.scale > 0:
            say("    trace at %g·T: T → %g·T, samples a pixel (Cycles at T, ratio), ×none and med× "
                "(trace at %g·T | Cycles at T)" % (a.scale, a.scale, a.scale))
            for r in results[-len(thresholds) + 1:]:
                ts = a.scale * r["threshold"]
                out = "%s-trace-scaled-%g.pfm" % (base, r["threshold"])
                cpu, spp = trace(a, path, out, a.spp, threshold=ts)
                e = rmse2(imgio.read_pfm(out), refs["trace"])
                r.update(scale=a.scale, scaled_spp=spp, scaled_cpu_s=cpu, scaled_rmse2=e[0], scaled_median_se=e[1])
                say("    %-6g → %-8.3g %6.1f (Cycles %6.1f, %4.2f)   %5.2f | %5.2f   %5.2f | %5.2f" % (
                    r["threshold"], ts, spp, r["cycles_spp"], spp / r["cycles_spp"], e[0] / none["trace"][0],
                    r["cycles_rmse2"] / none["cycles"][0], e[1] / none["trace"][1],
                    r["cycles_median_se"] / none["cycles"][1]))
        # Cycles' samples a pixel per region, at each threshold.
        for n in results[-1]["cycles_regions"]:
            say("    Cycles, %-22s %5d px: %s" % (n, results[-1]["cycles_regions"][n]["pixels"], "  ".join(
                "%g: %.0f" % (r["threshold"], r["cycles_regions"][n]["cycles_spp"])
                for r in results[-len(thresholds) + 1:])))
    say("(%.0f s; RMSE² against each renderer's own %d-spp reference; ×none: RMSE² over that at no "
        "threshold; med×: the same for the median pixel's squared error)" % (time.time() - t0, a.ref_spp))
    with open(os.path.join(a.out, "table.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "results.jsonl"), "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
