/*
 * harness.c: Intel Embree's single-ray queries (rtcIntersect1, rtcOccluded1)
 * on the meshes and rays of `trace bench`, one thread, for comparison with
 * trace's figures. Built and run by scripts/embree-bench.sh, which installs
 * Debian's libembree-dev; not part of `make test`.
 *
 *     harness [-runs N] [-tsv] DIR
 *
 * DIR holds what `go run ./bench/embree/export DIR` wrote: for each mesh
 * workload a file mesh-N.bin (format in bench/embree.go) and trace.tsv, one
 * line per workload with trace's own rays/s on the same rays. Trace's
 * packets of four primary rays (query primary-packet: the rays of 2×2
 * pixels) are set against Embree's packets of four, rtcIntersect4 on the
 * same quads with the coherent flag. The harness
 * prints one table: each workload's rays/s for trace and Embree and their
 * ratio, every figure the median of N runs (default 5), in rays per second
 * of CPU time. With -tsv it prints Embree's figures in trace.tsv's format
 * instead, for scripts/embree-bench.sh, which alternates rounds of trace
 * and Embree and takes the medians over the rounds.
 */
#include <embree3/rtcore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RUNS 64

/* runs is how many times each query and build is timed. */
static int runs = 5;

/* now returns the process's CPU time, in seconds: on a shared machine the
 * wall clock also counts the time other processes hold the core. The
 * queries run on this one thread; the builds may use Embree's threads too
 * (threads=1 keeps them to one). */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* v, int n) {
    qsort(v, n, sizeof v[0], cmp_double);
    return v[n / 2];
}

/* A ray set: 7 floats per ray, origin, direction, tMax. */
typedef struct {
    uint32_t n;
    float* r;
} RaySet;

typedef struct {
    uint32_t ntri;
    float* tri; /* 9 floats per triangle: its three corners */
    RaySet primary, random;
} Workload;

static void* read_exact(FILE* f, size_t size, const char* path) {
    void* p = malloc(size ? size : 1);
    if (!p || fread(p, 1, size, f) != size) {
        fprintf(stderr, "%s: short file\n", path);
        exit(1);
    }
    return p;
}

static Workload load(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    uint32_t* h = read_exact(f, 16, path);
    if (memcmp(h, "TRB1", 4) != 0) {
        fprintf(stderr, "%s: not a trace ray file\n", path);
        exit(1);
    }
    Workload w;
    w.ntri = h[1];
    w.primary.n = h[2];
    w.random.n = h[3];
    free(h);
    w.tri = read_exact(f, (size_t)w.ntri * 9 * sizeof(float), path);
    w.primary.r = read_exact(f, (size_t)w.primary.n * 7 * sizeof(float), path);
    w.random.r = read_exact(f, (size_t)w.random.n * 7 * sizeof(float), path);
    fclose(f);
    return w;
}

static void on_error(void* user, enum RTCError code, const char* str) {
    (void)user;
    fprintf(stderr, "embree error %d: %s\n", (int)code, str);
    exit(1);
}

/* build returns the committed scene of the mesh, and the median build time. */
static RTCScene build(RTCDevice dev, const Workload* w, double* secs) {
    double t[MAX_RUNS];
    RTCScene scene = NULL;
    for (int run = 0; run < runs; run++) {
        if (scene) {
            rtcReleaseScene(scene);
        }
        double t0 = now();
        scene = rtcNewScene(dev);
        RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
        float* v = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), (size_t)w->ntri * 3);
        unsigned* idx = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), w->ntri);
        memcpy(v, w->tri, (size_t)w->ntri * 9 * sizeof(float));
        for (uint32_t i = 0; i < w->ntri * 3; i++) {
            idx[i] = i;
        }
        rtcCommitGeometry(g);
        rtcAttachGeometry(scene, g);
        rtcReleaseGeometry(g);
        rtcCommitScene(scene);
        t[run] = now() - t0;
    }
    *secs = median(t, runs);
    return scene;
}

static volatile unsigned sink;

/* packets4 is the rtcIntersect4 loop: the primary rays of a side×side
 * image (in rows) four at a time, the rays of 2×2 pixels, quad by quad in
 * rows of quads, as trace's renderer and its primary-packet query take
 * them. It returns the hits. */
static unsigned packets4(RTCScene scene, const RaySet* rs) {
    struct RTCIntersectContext ctx;
    unsigned hits = 0;
    uint32_t side = 1;
    while ((side + 1) * (side + 1) <= rs->n) {
        side++;
    }
    for (uint32_t q = 0; q < side / 2 * (side / 2); q++) {
        uint32_t x = 2 * (q % (side / 2)), y = 2 * (q / (side / 2));
        int valid[4];
        struct RTCRayHit4 rh;
        for (int k = 0; k < 4; k++) {
            uint32_t j = (y + (k >> 1)) * side + x + (k & 1);
            const float* r = &rs->r[7 * j];
            valid[k] = -1;
            rh.ray.org_x[k] = r[0], rh.ray.org_y[k] = r[1], rh.ray.org_z[k] = r[2];
            rh.ray.dir_x[k] = r[3], rh.ray.dir_y[k] = r[4], rh.ray.dir_z[k] = r[5];
            rh.ray.tnear[k] = 0, rh.ray.tfar[k] = r[6], rh.ray.time[k] = 0;
            rh.ray.mask[k] = ~0u, rh.ray.id[k] = 0, rh.ray.flags[k] = 0;
            rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
            rh.hit.instID[0][k] = RTC_INVALID_GEOMETRY_ID;
        }
        rtcInitIntersectContext(&ctx);
        ctx.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
        rtcIntersect4(valid, scene, &ctx, &rh);
        for (int k = 0; k < 4; k++) {
            hits += valid[k] && rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID;
        }
    }
    return hits;
}

/* The queries trace times. */
enum { NEAREST, OCCLUDED, PACKET4 };

/* trace returns the median rays per second of rtcIntersect1 (NEAREST),
 * rtcOccluded1 (OCCLUDED) or rtcIntersect4 (PACKET4) over the ray set. */
static double trace(RTCScene scene, const RaySet* rs, int query) {
    struct RTCIntersectContext ctx;
    double t[MAX_RUNS];
    int occluded = query == OCCLUDED;
    for (int run = 0; run < runs; run++) {
        unsigned hits = 0;
        double t0 = now();
        if (query == PACKET4) {
            hits = packets4(scene, rs);
            t[run] = now() - t0;
            sink += hits;
            continue;
        }
        for (uint32_t i = 0; i < rs->n; i++) {
            const float* r = &rs->r[7 * i];
            rtcInitIntersectContext(&ctx);
            if (occluded) {
                struct RTCRay ray;
                ray.org_x = r[0], ray.org_y = r[1], ray.org_z = r[2];
                ray.dir_x = r[3], ray.dir_y = r[4], ray.dir_z = r[5];
                ray.tnear = 0, ray.tfar = r[6], ray.time = 0, ray.mask = ~0u, ray.id = 0, ray.flags = 0;
                rtcOccluded1(scene, &ctx, &ray);
                hits += ray.tfar < 0;
            } else {
                struct RTCRayHit rh;
                rh.ray.org_x = r[0], rh.ray.org_y = r[1], rh.ray.org_z = r[2];
                rh.ray.dir_x = r[3], rh.ray.dir_y = r[4], rh.ray.dir_z = r[5];
                rh.ray.tnear = 0, rh.ray.tfar = r[6], rh.ray.time = 0, rh.ray.mask = ~0u, rh.ray.id = 0, rh.ray.flags = 0;
                rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
                rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
                rtcIntersect1(scene, &ctx, &rh);
                hits += rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
            }
        }
        t[run] = now() - t0;
        sink += hits;
    }
    return rs->n / median(t, runs);
}

int main(int argc, char** argv) {
    int tsv = 0;
    const char* dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-tsv") == 0) {
            tsv = 1;
        } else if (strcmp(argv[i], "-runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
        } else if (!dir && argv[i][0] != '-') {
            dir = argv[i];
        } else {
            dir = NULL;
            break;
        }
    }
    if (!dir || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: harness [-runs N (1-%d)] [-tsv] DIR\n", MAX_RUNS);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/trace.tsv", dir);
    FILE* tf = fopen(path, "r");
    if (!tf) {
        perror(path);
        return 1;
    }
    /* threads=1: one thread, as `trace bench --threads 1`. */
    RTCDevice dev = rtcNewDevice("threads=1");
    if (!dev) {
        fprintf(stderr, "rtcNewDevice failed\n");
        return 1;
    }
    rtcSetDeviceErrorFunction(dev, on_error, NULL);
    if (!tsv) {
        printf("%-34s %12s %12s %7s\n", "workload (one thread)", "trace M/s", "Embree M/s", "ratio");
    }
    char line[512];
    int cur = -1;
    Workload w;
    RTCScene scene = NULL;
    double buildSecs = 0;
    while (fgets(line, sizeof line, tf)) {
        /* mesh index, query, trace's rays (or triangles for "build") per s, name */
        int mesh;
        char query[32], name[256];
        double traceRate;
        if (sscanf(line, "%d\t%31s\t%lf\t%255[^\n]", &mesh, query, &traceRate, name) != 4) {
            fprintf(stderr, "%s: bad line: %s", path, line);
            return 1;
        }
        if (mesh != cur) {
            if (scene) {
                rtcReleaseScene(scene);
                free(w.tri), free(w.primary.r), free(w.random.r);
            }
            char mp[4096];
            snprintf(mp, sizeof mp, "%s/mesh-%d.bin", dir, mesh);
            w = load(mp);
            scene = build(dev, &w, &buildSecs);
            cur = mesh;
        }
        double e;
        if (strcmp(query, "build") == 0) {
            e = w.ntri / buildSecs;
        } else {
            const RaySet* rs = strncmp(query, "primary", 7) == 0 ? &w.primary : &w.random;
            int q = strstr(query, "occluded") ? OCCLUDED : strstr(query, "packet") ? PACKET4 : NEAREST;
            e = trace(scene, rs, q);
        }
        if (tsv) {
            printf("%d\t%s\t%g\t%s\n", mesh, query, e, name);
        } else {
            printf("%-34s %12.2f %12.2f %7.2f\n", name, traceRate / 1e6, e / 1e6, traceRate / e);
        }
        fflush(stdout);
    }
    return 0;
}
