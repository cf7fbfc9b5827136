"""Equal-CPU-time noise benchmark of trace against Blender's Cycles.

Run by scripts/cycles-compare.sh (see there for the usage); by hand:

    /usr/bin/python3 scripts/cycles/compare.py --trace bin/trace --out cycles-out \
        [--size 128] [--scenes "cornell-box materials mesh"] [--scene-dir DIR] \
        [--ref-spp 4096] [--trace-ref-spp N] [--spp "16 64 256"] [--repeat 3] \
        [--pbr lambert|principled|both] [--blender blender]

Per scene (NAME.json in --scene-dir, scenes/examples by default, or a path
given in --scenes; rendered square, --size a side):

1. mask: which trace material the camera ray through each pixel centre
   first hits (render.py --mask), 0 for the background. Each material has
   a level (tracescene.classify): exact (diffuse, emissive, mirror metal
   and pbr, smooth glass, and the background), approx (rough metal, glass
   and pbr: the closest Cycles 3.4 nodes differ in their Fresnel and
   Smith terms, in ways stated and measured by ggx_check.py) or none
   (phong). The headline numbers take the exact pixels not within 1 px
   (3x3 neighbourhood) of another level; a second summary takes exact
   and approx pixels not within 1 px of an unmatched one.
2. reference: Cycles at --ref-spp; with --trace-ref-spp, trace too (seed
   3), for the converged per-region means.
3. trace and Cycles at each of --spp, with the CPU seconds (user + sys) of
   the render: trace's from the child's rusage; Cycles' from rusage around
   bpy.ops.render.render inside Blender (all threads), and the whole
   Blender process' too. Each level is rendered --repeat times by each
   renderer (seed 1, seed 2, then seed 1 again), the two renderers taking
   turns, and the CPU seconds are the least of those runs: on a shared
   machine a run is only ever slowed down by others, so the minimum is the
   steadiest estimate of what a render costs (the median is recorded too).
4. RMSE against the reference (linear RGB, all three channels), and the
   noise alone (from a second render at the same spp with seed 2: RMS of
   (a - b)/sqrt 2), free of any bias between the two; efficiency RMSE^2 x
   CPU seconds (lower is better) per level, and its median over the
   levels; the ratio trace / Cycles; the same for the noise at equal
   marginal time (noise^2 x spp x the CPU seconds of one more spp, the
   slope between the lowest and highest level), which leaves out a
   render's fixed cost; the bias: trace's mean (at its highest spp, or
   its reference) against Cycles' reference, over the pixels and per
   material region, with one standard error from the measured noise, and
   each region's noise ratio.
5. Variants, each with its own Cycles reference and renders against the
   same trace renders: cornell-box at a geometry scale of 1e-3
   (millimetres to metres; radiance is scale-invariant); a scene with pbr
   materials, under --pbr both, with pbr as plain Principled BSDFs
   (NAME-principled).

Writes to --out: every image (PFM), side-by-side PNGs
(NAME[-VARIANT]-side.png: trace | Cycles reference | mask: grey exact,
blue approx, red unmatched, darker where left out as within 1 px),
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

    def timed_pair(self, path, spp, base, scale, pbr="lambert"):
        """Renders one level with trace and Cycles, --repeat times each,
        taking turns (seed 1, seed 2, then seed 1 again into a scratch
        file). Returns {renderer: (stats of the seed-1 render, [CPU s of
        every run], image, seed-2 image)}; trace's renders are shared by
        every variant of a scene, so they are made once (base names the
        scene, scale and pbr the Cycles variant)."""
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
                    st = self.cycles(path, spp, out, scale=scale, seed=seed, run=i, pbr=pbr)
                res[k][1].append(st["cpu_s"])
                if i == 0:
                    res[k][0] = st
                    res[k][2] = imgio.read_pfm(out)
                elif i == 1:
                    res[k][3] = imgio.read_pfm(out)
        return res

    def cycles(self, scene, spp, out, scale=1.0, mask=False, seed=1, run=0, pbr="lambert", ref=False):
        stats = out + ".stats.json"
        cmd = ["nice", "-n", "10", self.a.blender, "-b", "--factory-startup", "--python",
               os.path.join(HERE, "render.py"), "--", "--scene", scene, "--size", str(self.a.size),
               "--spp", str(spp), "--out", out, "--scale", repr(scale), "--threads", str(self.a.threads),
               "--seed", str(seed), "--stats", stats, "--pbr", pbr] + (["--mask"] if mask else [])
        proc = out + ".process.json"
        again = out.replace("-again.pfm", ".pfm") + ".again-%d.json" % run
        if self.a.reuse_cycles and run >= 2 and os.path.exists(again):
            # A repeated run's time, as recorded by the run that made it.
            with open(again) as f:
                return json.load(f)
        reuse = self.a.reuse_cycles or (ref and self.a.reuse_references)
        if reuse and run < 2 and os.path.exists(out) and os.path.exists(stats):
            # --reuse-cycles: the Cycles side of an earlier run with the
            # same settings (only trace changed).
            with open(stats) as f:
                st = json.load(f)
            if (st.get("spp") != (1 if mask else spp) or st.get("size") != self.a.size or st.get("scale") != scale
                    or (not mask and st.get("pbr", "lambert") != pbr)):
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


def masks(scene, mask_img, pbr="lambert"):
    """Returns (index (h,w) ints; exact (h,w) bool: materials Cycles renders
    exactly, not within 1 px of any other; compared (h,w) bool: exact or
    approximately matched, not within 1 px of an unmatched one; region
    names by index, level by index (tracescene.LEVELS), reasons)."""
    idx = np.rint(mask_img[:, :, 0]).astype(int)
    names = ["background"] + scene["material_list"]
    levels = ["exact"]
    why = ["background"]
    for n in scene["material_list"]:
        lv, w = tracescene.classify(scene["materials"][n], pbr=pbr)
        levels.append(lv)
        why.append(w)
    lv = np.array(levels)[np.clip(idx, 0, len(names) - 1)]
    ex = lv == "exact"
    ok = lv != "none"
    return idx, ex & ~dilate(~ex), ok & ~dilate(~ok), names, levels, why


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


def side_by_side(path, trace_img, ref, idx, exact, compared, levels):
    """trace | Cycles reference | mask: light grey exact, blue approximately
    matched, red unmatched, darker where left out as within 1 px of
    another level."""
    vis = np.zeros(idx.shape + (3,), dtype=np.uint8)
    lv = np.array(levels)[np.clip(idx, 0, len(levels) - 1)]
    vis[lv == "exact"] = (110, 110, 110)
    vis[exact] = (190, 190, 190)
    vis[lv == "approx"] = (40, 60, 120)
    vis[compared & (lv == "approx")] = (80, 120, 220)
    vis[lv == "none"] = (200, 40, 40)
    gap = np.full((trace_img.shape[0], 4, 3), 255, dtype=np.uint8)
    row = np.concatenate([imgio.to_srgb8(trace_img), gap, imgio.to_srgb8(ref), gap, vis], axis=1)
    imgio.write_png(path, imgio.upscale(row, 2))


def per_sample_cpu(runs, key, levels):
    """The CPU seconds of one more spp: the slope of the least CPU time
    between the lowest and the highest level, which leaves out what a
    render costs whatever its spp (Cycles' scene sync and BVH build);
    None with one level, or when timing noise makes it negative."""
    if len(levels) < 2:
        return None
    lo, hi = levels[0], levels[-1]
    c = (min(runs[(key, hi)][1]) - min(runs[(key, lo)][1])) / (hi - lo)
    return c if c > 0 else None


def scene_path(a, name):
    """The scene file for a --scenes entry and its label: the entry
    itself when it is a path (it ends in .json or holds a /), else
    NAME.json in --scene-dir."""
    if name.endswith(".json") or os.sep in name:
        path = name if name.endswith(".json") else name + ".json"
    else:
        path = os.path.join(a.scene_dir, name + ".json")
    path = os.path.abspath(path)
    if not os.path.exists(path):
        sys.exit("compare.py: no scene %s (%s)" % (name, path))
    return path, os.path.splitext(os.path.basename(path))[0]


def variants_of(a, label, scene):
    """The Cycles variants of a scene: (name, geometry scale, pbr mode).
    The first is the main one; the Cornell box is also rendered at metre
    scale; a scene with pbr materials, with --pbr both, also as plain
    Principled BSDFs (render.py --pbr principled)."""
    main_pbr = "principled" if a.pbr == "principled" else "lambert"
    v = [("", 1.0, main_pbr)]
    if label == "cornell-box":
        v.append(("m", 1e-3, main_pbr))
    if a.pbr == "both" and any(m["type"] == "pbr" for m in scene["materials"].values()):
        v.append(("principled", 1.0, "principled"))
    return v


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trace", required=True)
    p.add_argument("--blender", default="blender")
    p.add_argument("--out", required=True)
    p.add_argument("--size", type=int, default=128)
    p.add_argument("--scenes", default="cornell-box materials mesh",
                   help="names in --scene-dir, or paths to scene files")
    p.add_argument("--scene-dir", default=os.path.join(ROOT, "scenes", "examples"),
                   help="where --scenes names are looked up (default: the gallery, scenes/examples)")
    p.add_argument("--spp", default="16 64 256", help="spp levels for both renderers")
    p.add_argument("--ref-spp", type=int, default=4096)
    p.add_argument("--trace-ref-spp", type=int, default=0,
                   help="also render trace at this spp (seed 3) for the converged per-region means "
                        "(0: use trace's highest --spp level)")
    p.add_argument("--pbr", choices=("lambert", "principled", "both"), default="both",
                   help="how pbr materials become Cycles nodes (render.py --pbr); both: lambert, and "
                        "principled as a second variant of scenes that have pbr materials")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3,
                   help="timed runs per level and renderer (at least 2: seed 1 and seed 2); the least CPU time counts")
    p.add_argument("--reuse-references", action="store_true",
                   help="reuse the Cycles references and masks already in --out; render every level afresh")
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
    for entry in a.scenes.split():
        path, name = scene_path(a, entry)
        scene = tracescene.load(path)
        base = os.path.join(a.out, name)
        print("== %s (%s)" % (name, os.path.relpath(path, ROOT)), flush=True)
        # Mask from the (unscaled) Cycles scene: pixel centres, first hit.
        mpath = base + "-mask.pfm"
        run.cycles(path, 1, mpath, mask=True, ref=True)
        mask_img = imgio.read_pfm(mpath)
        variants = variants_of(a, name, scene)
        refs = {}
        for vname, scale, pbr in variants:
            label = name + ("-" + vname if vname else "")
            vbase = base + ("-" + vname if vname else "")
            refpath = "%s-cycles-ref-%d.pfm" % (vbase, a.ref_spp)
            rst = run.cycles(path, a.ref_spp, refpath, scale=scale, pbr=pbr, ref=True)
            refs[vname] = imgio.read_pfm(refpath)
            frac = float(masks(scene, mask_img, pbr)[1].mean())
            print("  %s: Cycles reference %d spp, %.1f s CPU (%.1f s wall)" % (label, a.ref_spp, rst["cpu_s"], rst["wall_s"]), flush=True)
            emit({"kind": "reference", "scene": label, "scale": scale, "pbr": pbr, "spp": a.ref_spp, **rst,
                  "matched_fraction": frac, "size": a.size})
        tref = None
        if a.trace_ref_spp > 0:
            tpath = "%s-trace-ref-%d.pfm" % (base, a.trace_ref_spp)
            tst = run.trace(path, a.trace_ref_spp, tpath, seed=3)
            tref = imgio.read_pfm(tpath)
            print("  %s: trace reference %d spp, %.1f s CPU (%.1f s wall)" % (name, a.trace_ref_spp, tst["cpu_s"], tst["wall_s"]), flush=True)
            emit({"kind": "trace-reference", "scene": name, "spp": a.trace_ref_spp, **tst, "size": a.size})
        # Every level, trace and Cycles taking turns (Runner.timed_pair);
        # trace's renders serve every variant.
        runs = {}
        for s in levels:
            for i, (vname, scale, pbr) in enumerate(variants):
                vbase = base + ("-" + vname if vname else "")
                r = run.timed_pair(path, s, {"trace": base + "-trace" if i == 0 else None,
                                             "cycles": vbase + "-cycles"}, scale, pbr)
                if i == 0:
                    runs[("trace", s)] = r["trace"]
                runs[(vname, s)] = r["cycles"]
                print("  %-14s %5d spp  CPU s trace %s, Cycles %s" % (
                    name + ("-" + vname if vname else ""), s,
                    " ".join("%.2f" % c for c in runs[("trace", s)][1]), " ".join("%.2f" % c for c in r["cycles"][1])), flush=True)
        timgs = {s: runs[("trace", s)][2] for s in levels}
        top = timgs[levels[-1]] if tref is None else tref
        top_spp = levels[-1] if tref is None else a.trace_ref_spp
        for vname, scale, pbr in variants:
            label = name + ("-" + vname if vname else "")
            vbase = base + ("-" + vname if vname else "")
            ref = refs[vname]
            idx, exact, compared, names, mlevels, why = masks(scene, mask_img, pbr)
            eff = {"trace": [], "cycles": []}
            for k in ("trace", "cycles"):
                for s in levels:
                    st, cpus, img, img2 = runs[("trace" if k == "trace" else vname, s)]
                    cpu = min(cpus)
                    e = rmse(img, ref, exact)
                    n = noise(img, img2, exact)
                    rec = {"kind": "level", "scene": label, "renderer": k, "spp": s, "cpu_s": cpu,
                           "cpu_runs_s": cpus, "cpu_median_s": float(np.median(cpus)), "wall_s": st["wall_s"],
                           "rmse": e, "rmse2_cpu": e * e * cpu, "noise": n, "noise2_cpu": n * n * cpu}
                    if compared.any():
                        ec, nc = rmse(img, ref, compared), noise(img, img2, compared)
                        rec.update({"rmse_compared": ec, "rmse2_cpu_compared": ec * ec * cpu,
                                    "noise_compared": nc, "noise2_cpu_compared": nc * nc * cpu})
                    if k == "cycles":
                        rec["process_cpu_s"] = st["process_cpu_s"]
                        rec["rmse2_process_cpu"] = e * e * st["process_cpu_s"]
                    emit(rec)
                    eff[k].append(rec)

            # Noise at equal marginal time: noise^2 x spp x the CPU s of
            # one more spp (per_sample_cpu), the variance of one sample
            # times its cost, free of the fixed cost of a render.
            slope = {"trace": per_sample_cpu(runs, "trace", levels), "cycles": per_sample_cpu(runs, vname, levels)}
            for k in eff:
                for r in eff[k]:
                    if slope[k] is not None:
                        r["noise2_marginal_cpu"] = r["noise"] ** 2 * r["spp"] * slope[k]
                        if "noise_compared" in r:
                            r["noise2_marginal_cpu_compared"] = r["noise_compared"] ** 2 * r["spp"] * slope[k]

            def med(k, key):
                return float(np.median([r[key] for r in eff[k]])) if all(key in r for r in eff[k]) else float("nan")
            tm, rm = float(top[exact].mean()), float(ref[exact].mean())
            summ = {"kind": "summary", "scene": label, "pbr": pbr, "matched_fraction": float(exact.mean()),
                    "compared_fraction": float(compared.mean()),
                    "median_rmse2_cpu_trace": med("trace", "rmse2_cpu"), "median_rmse2_cpu_cycles": med("cycles", "rmse2_cpu"),
                    "median_noise2_cpu_trace": med("trace", "noise2_cpu"), "median_noise2_cpu_cycles": med("cycles", "noise2_cpu"),
                    "bias_pct": 100 * (tm / rm - 1), "trace_mean": tm, "ref_mean": rm,
                    "trace_spp": top_spp, "ref_spp": a.ref_spp}
            summ["ratio_trace_over_cycles"] = summ["median_rmse2_cpu_trace"] / summ["median_rmse2_cpu_cycles"]
            summ["noise_ratio_trace_over_cycles"] = summ["median_noise2_cpu_trace"] / summ["median_noise2_cpu_cycles"]
            summ["cpu_per_spp_trace"], summ["cpu_per_spp_cycles"] = slope["trace"], slope["cycles"]
            summ["marginal_noise_ratio_trace_over_cycles"] = (med("trace", "noise2_marginal_cpu")
                                                              / med("cycles", "noise2_marginal_cpu"))
            if compared.any():
                tc, rc = float(top[compared].mean()), float(ref[compared].mean())
                summ.update({
                    "median_rmse2_cpu_trace_compared": med("trace", "rmse2_cpu_compared"),
                    "median_rmse2_cpu_cycles_compared": med("cycles", "rmse2_cpu_compared"),
                    "median_noise2_cpu_trace_compared": med("trace", "noise2_cpu_compared"),
                    "median_noise2_cpu_cycles_compared": med("cycles", "noise2_cpu_compared"),
                    "bias_pct_compared": 100 * (tc / rc - 1)})
                summ["ratio_trace_over_cycles_compared"] = (summ["median_rmse2_cpu_trace_compared"]
                                                            / summ["median_rmse2_cpu_cycles_compared"])
                summ["noise_ratio_trace_over_cycles_compared"] = (summ["median_noise2_cpu_trace_compared"]
                                                                  / summ["median_noise2_cpu_cycles_compared"])
                summ["marginal_noise_ratio_trace_over_cycles_compared"] = (
                    med("trace", "noise2_marginal_cpu_compared") / med("cycles", "noise2_marginal_cpu_compared"))
            emit(summ)
            regions = []
            for i, n in enumerate(names):
                sel = (idx == i) & (compared if mlevels[i] != "none" else np.ones_like(compared))
                if not sel.any():
                    continue
                t_, r_ = float(top[sel].mean()), float(ref[sel].mean())
                # Per-region noise at equal time: noise^2 x CPU s of the
                # whole render, trace over Cycles, median over the levels.
                ratios, mratios, iratios, tn, cn = [], [], [], {}, {}
                # Its inner pixels, not within 1 px of another region: the
                # noise of its own light transport, without the edges'
                # (where a pixel's samples see two materials).
                inner = sel & ~dilate(idx != i)
                for s in levels:
                    _, tc_, ti, ti2 = runs[("trace", s)]
                    _, cc_, ci, ci2 = runs[(vname, s)]
                    tn[s], cn[s] = noise(ti, ti2, sel), noise(ci, ci2, sel)
                    if cn[s] > 0:
                        ratios.append(tn[s] ** 2 * min(tc_) / (cn[s] ** 2 * min(cc_)))
                    if inner.any():
                        cin = noise(ci, ci2, inner)
                        if cin > 0:
                            iratios.append(noise(ti, ti2, inner) ** 2 * min(tc_) / (cin ** 2 * min(cc_)))
                        if slope["trace"] is not None and slope["cycles"] is not None:
                            mratios.append(tn[s] ** 2 * slope["trace"] / (cn[s] ** 2 * slope["cycles"]))
                # Standard error of the two means, from the noise at the
                # highest level scaled to the spp of the image (pixels
                # taken as independent, channels as fully correlated).
                hi = levels[-1]
                npx = int(sel.sum())
                se_t = tn[hi] * np.sqrt(hi / top_spp) / np.sqrt(npx)
                se_r = cn[hi] * np.sqrt(hi / a.ref_spp) / np.sqrt(npx)
                rec = {"kind": "region", "scene": label, "region": n, "level": mlevels[i],
                       "matched": mlevels[i] == "exact", "why": why[i],
                       "pixels": npx, "trace_mean": t_, "ref_mean": r_,
                       "bias_pct": 100 * (t_ / r_ - 1) if r_ > 0 else None,
                       "bias_se_pct": 100 * float(np.hypot(se_t, se_r)) / r_ if r_ > 0 else None,
                       "noise_ratio_trace_over_cycles": float(np.median(ratios)) if ratios else None,
                       "inner_pixels": int(inner.sum()),
                       "inner_noise_ratio_trace_over_cycles": float(np.median(iratios)) if iratios else None,
                       "marginal_noise_ratio_trace_over_cycles": float(np.median(mratios)) if mratios else None,
                       "trace_noise": [tn[s] for s in levels], "cycles_noise": [cn[s] for s in levels],
                       "trace_mean_rgb": top[sel].mean(axis=0).tolist(), "ref_mean_rgb": ref[sel].mean(axis=0).tolist()}
                emit(rec)
                regions.append(rec)
            side_by_side(vbase + "-side.png", top, ref, idx, exact, compared, mlevels)
            lines.append((label, eff, summ, regions))

    # The table.
    out = []
    out.append("trace vs Cycles %s, %dx%d, Cycles reference %d spp, %d threads; CPU s = user+sys of the render, least of %d runs"
               % ("3.4", a.size, a.size, a.ref_spp, a.threads, max(a.repeat, 2)))
    out.append("(Cycles: of bpy.ops.render.render; in brackets the whole Blender process). eff = RMSE^2 x CPU s, lower is better;")
    out.append("RMSE against the Cycles reference over the exactly matched pixels; noise = RMS std. dev. from a second render")
    out.append("with another seed (bias-free); eff(noise) = noise^2 x CPU s; eff(proc) = RMSE^2 x the Blender process' CPU s.")
    out.append("Regions: exact = Cycles renders trace's material; approx = the closest Cycles nodes differ in a stated way")
    out.append("(tracescene.classify); trace mean from %s; bias +- one standard error; noise = the region's eff(noise)"
               % ("its %d spp reference" % a.trace_ref_spp if a.trace_ref_spp > 0 else "its highest level"))
    out.append("ratio trace/Cycles, median over the levels (< 1: trace less noisy at equal CPU time); in brackets at equal")
    out.append("marginal CPU time (noise^2 x spp x CPU s of one more spp: a render's fixed cost, Cycles' sync and BVH, left out);")
    out.append("inner: the noise ratio over the region's pixels not within 1 px of another region (its edges, where a pixel's")
    out.append("samples see two materials, left out).")
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
        out.append("%-14s median eff: trace %.3e, Cycles %.3e, trace/Cycles %.2f; noise only: trace/Cycles %.2f; exact pixels %.1f %%"
                   % (label, summ["median_rmse2_cpu_trace"], summ["median_rmse2_cpu_cycles"],
                      summ["ratio_trace_over_cycles"], summ["noise_ratio_trace_over_cycles"], 100 * summ["matched_fraction"]))
        if summ["cpu_per_spp_trace"] and summ["cpu_per_spp_cycles"]:
            out.append("%-14s CPU s per spp (slope): trace %.4f, Cycles %.4f; noise at equal marginal time: trace/Cycles %.2f"
                       % (label, summ["cpu_per_spp_trace"], summ["cpu_per_spp_cycles"],
                          summ["marginal_noise_ratio_trace_over_cycles"]))
        out.append("%-14s bias (trace %d spp vs reference, exact pixels): %+.2f %%" % (label, summ["trace_spp"], summ["bias_pct"]))
        if "bias_pct_compared" in summ and summ["compared_fraction"] > summ["matched_fraction"]:
            out.append("%-14s exact + approx pixels (%.1f %%): eff trace/Cycles %.2f, noise only %.2f (marginal %.2f), bias %+.2f %%"
                       % (label, 100 * summ["compared_fraction"], summ["ratio_trace_over_cycles_compared"],
                          summ["noise_ratio_trace_over_cycles_compared"],
                          summ.get("marginal_noise_ratio_trace_over_cycles_compared", float("nan")),
                          summ["bias_pct_compared"]))
        for r in regions:
            tag = {"exact": "exact", "approx": "approx"}.get(r["level"], "UNMATCHED")
            b = "%+7.2f %% +- %.2f" % (r["bias_pct"], r["bias_se_pct"]) if r["bias_pct"] is not None else "    n/a"
            nr = "%5.2f" % r["noise_ratio_trace_over_cycles"] if r["noise_ratio_trace_over_cycles"] is not None else "  n/a"
            mr = r["marginal_noise_ratio_trace_over_cycles"]
            nr += " (%5.2f)" % mr if mr is not None else ""
            ir = r["inner_noise_ratio_trace_over_cycles"]
            nr += "  inner %d px %s" % (r["inner_pixels"], "%5.2f" % ir if ir is not None else "n/a (no noise)")
            out.append("    region %-12s %-9s %6d px  trace %.4f  ref %.4f  %-18s noise %s%s" % (
                r["region"], tag, r["pixels"], r["trace_mean"], r["ref_mean"], b, nr,
                "" if r["level"] == "exact" else "  (" + r["why"].split(":")[0] + ")"))
        out.append("")
    out.append("total wall time %.0f s" % (time.time() - t_start))
    text = "\n".join(out)
    print()
    print(text)
    with open(os.path.join(a.out, "table.txt"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
