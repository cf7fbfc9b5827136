"""Equal-CPU-time noise benchmark of trace against Blender's Cycles.

Run by scripts/cycles-compare.sh (see there for the usage); by hand:

    /usr/bin/python3 scripts/cycles/compare.py --trace bin/trace --out cycles-out \
        [--size 128] [--scenes "cornell-box materials mesh"] [--ref-spp 4096] \
        [--spp "16 64 256"] [--repeat 3] [--blender blender]

Per scene (scenes/examples/NAME.json, rendered square, --size a side):

1. mask: which trace material the camera ray through each pixel centre
   first hits (render.py --mask), 0 for the background. Matched materials
   (tracescene.classify: diffuse, emissive, mirror metal, and the
   background) are compared; unmatched ones (phong, rough metal, and
   dielectric, whose Fresnel differs) are not, nor any pixel within 1 px
   (3x3 neighbourhood) of an unmatched one.
2. reference: Cycles at --ref-spp.
3. trace and Cycles at each of --spp, with the CPU seconds (user + sys) of
   the render: trace's from the child's rusage; Cycles' from rusage around
   bpy.ops.render.render inside Blender (all threads), and the whole
   Blender process' too. Each level is rendered --repeat times by each
   renderer (seed 1, seed 2, then seed 1 again), the two renderers taking
   turns, and the CPU seconds are the least of those runs: on a shared
   machine a run is only ever slowed down by others, so the minimum is the
   steadiest estimate of what a render costs (the median is recorded too).
4. RMSE over matched pixels (linear RGB, all three channels) against the
   reference, and the noise alone (from a second render at the same spp
   with seed 2: RMS of (a - b)/sqrt 2), free of any bias between the two; efficiency RMSE^2 x CPU seconds (lower is better) per level,
   and its median over the levels; the ratio trace / Cycles; the bias:
   trace's mean at its highest spp against the reference's, over the
   matched pixels and per material region.
5. cornell-box also gets its Cycles side rendered at a geometry scale of
   1e-3 (millimetres to metres; radiance is scale-invariant), with its own
   reference, and trace's renders are compared against both.

Writes to --out: every image (PFM), side-by-side PNGs
(NAME[-VARIANT]-side.png: trace at the highest spp | Cycles reference |
mask: grey matched, red unmatched, black left out as within 1 px),
results.jsonl (one JSON object per line) and table.txt (what is printed).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, HERE)
import imgio  # noqa: E402
import tracescene  # noqa: E402


def run_timed(cmd, log):
    """Runs cmd; returns the CPU seconds (user + sys) of the child and its
    descendants, and the wall seconds."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.time()
    with open(log, "w") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    w1 = time.time()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("failed (status %d): %s\nsee %s" % (p.returncode, " ".join(cmd), log))
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), w1 - w0


class Runner:
    def __init__(self, a):
        self.a = a

    def trace(self, scene, spp, out, seed=1):
        cmd = ["nice", "-n", "10", self.a.trace, "render", scene, "--width", str(self.a.size),
               "--height", str(self.a.size), "--samples", str(spp), "-o", out,
               "--threads", str(self.a.threads), "--seed", str(seed), "-q"]
        cpu, wall = run_timed(cmd, out + ".log")
        return {"cpu_s": cpu, "wall_s": wall}

    def timed_pair(self, path, spp, base, scale):
        """Renders one level with trace and Cycles, --repeat times each,
        taking turns (seed 1, seed 2, then seed 1 again into a scratch
        file). Returns {renderer: (stats of the seed-1 render, [CPU s of
        every run], image, seed-2 image)}; trace's renders are shared by
        every scale of a scene, so they are made once (base names the
        scene, scale the Cycles variant)."""
        tb = base["trace"]
        cb = base["cycles"]
        res = {"trace": [None, [], None, None], "cycles": [None, [], None, None]}
        if tb is None:
            del res["trace"]
        for i in range(max(self.a.repeat, 2)):
            seed = 2 if i == 1 else 1
            suffix = "" if i == 0 else "-seed2" if i == 1 else "-again"
            for k in res:
                out = "%s-%d%s.pfm" % (tb if k == "trace" else cb, spp, suffix)
                if k == "trace":
                    st = self.trace(path, spp, out, seed=seed)
                else:
                    st = self.cycles(path, spp, out, scale=scale, seed=seed, run=i)
                res[k][1].append(st["cpu_s"])
                if i == 0:
                    res[k][0] = st
                    res[k][2] = imgio.read_pfm(out)
                elif i == 1:
                    res[k][3] = imgio.read_pfm(out)
        return res

    def cycles(self, scene, spp, out, scale=1.0, mask=False, seed=1, run=0):
        stats = out + ".stats.json"
        cmd = ["nice", "-n", "10", self.a.blender, "-b", "--factory-startup", "--python",
               os.path.join(HERE, "render.py"), "--", "--scene", scene, "--size", str(self.a.size),
               "--spp", str(spp), "--out", out, "--scale", repr(scale), "--threads", str(self.a.threads),
               "--seed", str(seed), "--stats", stats] + (["--mask"] if mask else [])
        proc = out + ".process.json"
        again = out.replace("-again.pfm", ".pfm") + ".again-%d.json" % run
        if self.a.reuse_cycles and run >= 2 and os.path.exists(again):
            # A repeated run's time, as recorded by the run that made it.
            with open(again) as f:
                return json.load(f)
        if self.a.reuse_cycles and run < 2 and os.path.exists(out) and os.path.exists(stats):
            # --reuse-cycles: the Cycles side of an earlier run with the
            # same settings (only trace changed).
            with open(stats) as f:
                st = json.load(f)
            if st.get("spp") != (1 if mask else spp) or st.get("size") != self.a.size or st.get("scale") != scale:
                sys.exit("--reuse-cycles: %s was made with other settings" % out)
            pr = {"process_cpu_s": float("nan"), "process_wall_s": float("nan")}
            if os.path.exists(proc):
                with open(proc) as f:
                    pr = json.load(f)
            return {"cpu_s": st["render_cpu_s"], "wall_s": st["render_wall_s"], **pr}
        cpu, wall = run_timed(cmd, out + ".log")
        with open(stats) as f:
            st = json.load(f)
        with open(proc, "w") as f:
            json.dump({"process_cpu_s": cpu, "process_wall_s": wall}, f)
        rec = {"cpu_s": st["render_cpu_s"], "wall_s": st["render_wall_s"],
               "process_cpu_s": cpu, "process_wall_s": wall}
        if run >= 2:
            # Recorded under the name of the render it repeats, for
            # --reuse-cycles (the scratch image itself is overwritten).
            with open(again, "w") as f:
                json.dump(rec, f)
        return rec


def dilate(m):
    """m OR'ed with its 8 neighbours."""
    p = np.pad(m, 1)
    out = np.zeros_like(m)
    h, w = m.shape
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            out |= p[dy:dy + h, dx:dx + w]
    return out


def masks(scene, mask_img):
    """Returns (index (h,w) ints, clean (h,w) bool: matched and not within
    1 px of an unmatched material, region names by index, matched flag by
    index, reasons)."""
    idx = np.rint(mask_img[:, :, 0]).astype(int)
    names = ["background"] + scene["material_list"]
    matched = [True]
    why = ["background"]
    for n in scene["material_list"]:
        ok, w = tracescene.classify(scene["materials"][n])
        matched.append(ok)
        why.append(w)
    good = np.array(matched)[np.clip(idx, 0, len(names) - 1)]
    clean = good & ~dilate(~good)
    return idx, clean, names, matched, why


def rmse(img, ref, sel):
    d = (img - ref)[sel]
    return float(np.sqrt(np.mean(d * d)))


def noise(a, b, sel):
    """The noise (standard deviation per pixel and channel, RMS over sel)
    of one render, from two renders that differ only in the seed:
    E[(a - b)^2] = 2 var. Bias-free, unlike the RMSE against the
    reference, which holds the renderers' disagreement too."""
    d = (a - b)[sel]
    return float(np.sqrt(np.mean(d * d) / 2))


def side_by_side(path, trace_img, ref, idx, clean, matched):
    vis = np.zeros(idx.shape + (3,), dtype=np.uint8)
    good = np.array(matched)[np.clip(idx, 0, len(matched) - 1)]
    vis[good] = (110, 110, 110)
    vis[clean] = (190, 190, 190)
    vis[~good] = (200, 40, 40)
    gap = np.full((trace_img.shape[0], 4, 3), 255, dtype=np.uint8)
    row = np.concatenate([imgio.to_srgb8(trace_img), gap, imgio.to_srgb8(ref), gap, vis], axis=1)
    imgio.write_png(path, imgio.upscale(row, 2))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trace", required=True)
    p.add_argument("--blender", default="blender")
    p.add_argument("--out", required=True)
    p.add_argument("--size", type=int, default=128)
    p.add_argument("--scenes", default="cornell-box materials mesh")
    p.add_argument("--spp", default="16 64 256", help="spp levels for both renderers")
    p.add_argument("--ref-spp", type=int, default=4096)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3,
                   help="timed runs per level and renderer (at least 2: seed 1 and seed 2); the least CPU time counts")
    p.add_argument("--reuse-cycles", action="store_true",
                   help="reuse the Cycles images and timings already in --out (to benchmark another trace binary)")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    levels = [int(x) for x in a.spp.split()]
    run = Runner(a)
    results = []
    lines = []

    def emit(rec):
        # NaN (a reused Cycles render's unknown process time) as null.
        rec = {k: (None if isinstance(v, float) and v != v else v) for k, v in rec.items()}
        results.append(rec)
        with open(os.path.join(a.out, "results.jsonl"), "a") as f:
            f.write(json.dumps(rec) + "\n")

    open(os.path.join(a.out, "results.jsonl"), "w").close()
    t_start = time.time()
    for name in a.scenes.split():
        path = os.path.join(ROOT, "scenes", "examples", name + ".json")
        scene = tracescene.load(path)
        base = os.path.join(a.out, name)
        print("== %s" % name, flush=True)
        # Mask from the (unscaled) Cycles scene: pixel centres, first hit.
        mpath = base + "-mask.pfm"
        run.cycles(path, 1, mpath, mask=True)
        idx, clean, names, matched, why = masks(scene, imgio.read_pfm(mpath))
        frac = float(clean.mean())
        variants = [("", 1.0)] + ([("m", 1e-3)] if name == "cornell-box" else [])
        refs = {}
        for vname, scale in variants:
            label = name + ("-" + vname if vname else "")
            vbase = base + ("-" + vname if vname else "")
            refpath = "%s-cycles-ref-%d.pfm" % (vbase, a.ref_spp)
            rst = run.cycles(path, a.ref_spp, refpath, scale=scale)
            refs[vname] = imgio.read_pfm(refpath)
            print("  %s: Cycles reference %d spp, %.1f s CPU (%.1f s wall)" % (label, a.ref_spp, rst["cpu_s"], rst["wall_s"]), flush=True)
            emit({"kind": "reference", "scene": label, "scale": scale, "spp": a.ref_spp, **rst,
                  "matched_fraction": frac, "size": a.size})
        # Every level, trace and Cycles taking turns (Runner.timed_pair);
        # trace's renders serve every variant.
        runs = {}
        for s in levels:
            for i, (vname, scale) in enumerate(variants):
                vbase = base + ("-" + vname if vname else "")
                r = run.timed_pair(path, s, {"trace": base + "-trace" if i == 0 else None,
                                             "cycles": vbase + "-cycles"}, scale)
                if i == 0:
                    runs[("trace", s)] = r["trace"]
                runs[(vname, s)] = r["cycles"]
                print("  %-14s %5d spp  CPU s trace %s, Cycles %s" % (
                    name + ("-" + vname if vname else ""), s,
                    " ".join("%.2f" % c for c in runs[("trace", s)][1]), " ".join("%.2f" % c for c in r["cycles"][1])), flush=True)
        timgs = {s: runs[("trace", s)][2] for s in levels}
        for vname, scale in variants:
            label = name + ("-" + vname if vname else "")
            vbase = base + ("-" + vname if vname else "")
            ref = refs[vname]
            eff = {"trace": [], "cycles": []}
            for k in ("trace", "cycles"):
                for s in levels:
                    st, cpus, img, img2 = runs[("trace" if k == "trace" else vname, s)]
                    cpu = min(cpus)
                    e = rmse(img, ref, clean)
                    n = noise(img, img2, clean)
                    rec = {"kind": "level", "scene": label, "renderer": k, "spp": s, "cpu_s": cpu,
                           "cpu_runs_s": cpus, "cpu_median_s": float(np.median(cpus)), "wall_s": st["wall_s"],
                           "rmse": e, "rmse2_cpu": e * e * cpu, "noise": n, "noise2_cpu": n * n * cpu}
                    if k == "cycles":
                        rec["process_cpu_s"] = st["process_cpu_s"]
                        rec["rmse2_process_cpu"] = e * e * st["process_cpu_s"]
                    emit(rec)
                    eff[k].append(rec)
            med = {k: float(np.median([r["rmse2_cpu"] for r in v])) for k, v in eff.items()}
            medn = {k: float(np.median([r["noise2_cpu"] for r in v])) for k, v in eff.items()}
            top = timgs[levels[-1]]
            tm, rm = float(top[clean].mean()), float(ref[clean].mean())
            summ = {"kind": "summary", "scene": label, "matched_fraction": frac,
                    "median_rmse2_cpu_trace": med["trace"], "median_rmse2_cpu_cycles": med["cycles"],
                    "ratio_trace_over_cycles": med["trace"] / med["cycles"],
                    "median_noise2_cpu_trace": medn["trace"], "median_noise2_cpu_cycles": medn["cycles"],
                    "noise_ratio_trace_over_cycles": medn["trace"] / medn["cycles"],
                    "bias_pct": 100 * (tm / rm - 1), "trace_mean": tm, "ref_mean": rm,
                    "trace_spp": levels[-1], "ref_spp": a.ref_spp}
            emit(summ)
            regions = []
            for i, n in enumerate(names):
                sel = (idx == i) & (clean if matched[i] else np.ones_like(clean))
                if not sel.any():
                    continue
                t_, r_ = float(top[sel].mean()), float(ref[sel].mean())
                rec = {"kind": "region", "scene": label, "region": n, "matched": matched[i], "why": why[i],
                       "pixels": int(sel.sum()), "trace_mean": t_, "ref_mean": r_,
                       "bias_pct": 100 * (t_ / r_ - 1) if r_ > 0 else None,
                       "trace_mean_rgb": top[sel].mean(axis=0).tolist(), "ref_mean_rgb": ref[sel].mean(axis=0).tolist()}
                emit(rec)
                regions.append(rec)
            side_by_side(vbase + "-side.png", top, ref, idx, clean, matched)
            lines.append((label, eff, summ, regions))

    # The table.
    out = []
    out.append("trace vs Cycles %s, %dx%d, Cycles reference %d spp, %d threads; CPU s = user+sys of the render, least of %d runs"
               % ("3.4", a.size, a.size, a.ref_spp, a.threads, max(a.repeat, 2)))
    out.append("(Cycles: of bpy.ops.render.render; in brackets the whole Blender process). eff = RMSE^2 x CPU s, lower is better;")
    out.append("RMSE against the Cycles reference over matched pixels; noise = RMS std. dev. from a second render with another seed")
    out.append("(bias-free); eff(noise) = noise^2 x CPU s; eff(proc) = RMSE^2 x the Blender process' CPU s.")
    out.append("")
    hdr = "%-14s %-7s %5s %16s %9s %10s %10s %9s %10s" % ("scene", "render", "spp", "CPU s (process)", "RMSE", "eff",
                                                         "eff(proc)", "noise", "eff(noise)")
    out.append(hdr)
    out.append("-" * len(hdr))
    for label, eff, summ, regions in lines:
        for k in ("trace", "cycles"):
            for r in eff[k]:
                proc = ""
                cpu = "%7.2f" % r["cpu_s"] + " " * 9
                if k == "cycles" and r["process_cpu_s"] is not None:
                    proc = "%10.3e" % r["rmse2_process_cpu"]
                    cpu = "%7.2f" % r["cpu_s"] + " (%6.2f)" % r["process_cpu_s"]
                elif k == "cycles":
                    proc = "n/a"
                    cpu = "%7.2f" % r["cpu_s"] + " (   n/a)"
                out.append("%-14s %-7s %5d %16s %9.5f %10.3e %10s %9.5f %10.3e" % (
                    label, k, r["spp"], cpu, r["rmse"], r["rmse2_cpu"], proc, r["noise"], r["noise2_cpu"]))
        out.append("%-14s median eff: trace %.3e, Cycles %.3e, trace/Cycles %.2f; noise only: trace/Cycles %.2f; matched pixels %.1f %%"
                   % (label, summ["median_rmse2_cpu_trace"], summ["median_rmse2_cpu_cycles"],
                      summ["ratio_trace_over_cycles"], summ["noise_ratio_trace_over_cycles"], 100 * summ["matched_fraction"]))
        out.append("%-14s bias (trace %d spp vs reference, matched pixels): %+.2f %%" % (label, summ["trace_spp"], summ["bias_pct"]))
        for r in regions:
            tag = "matched" if r["matched"] else "UNMATCHED"
            b = "%+7.2f %%" % r["bias_pct"] if r["bias_pct"] is not None else "    n/a"
            out.append("    region %-12s %-9s %6d px  trace %.4f  ref %.4f  %s%s" % (
                r["region"], tag, r["pixels"], r["trace_mean"], r["ref_mean"], b,
                "" if r["matched"] else "  (" + r["why"].split(":")[0] + ")"))
        out.append("")
    out.append("total wall time %.0f s" % (time.time() - t_start))
    text = "\n".join(out)
    print()
    print(text)
    with open(os.path.join(a.out, "table.txt"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
