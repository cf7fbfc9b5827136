/*
 * intersect.h: the nearest hit and the shadow test over the planes and the
 * BVH; a port of tracer/intersect.go. The traversal visits nodes in the
 * same order as the Go binary traversal (nearer child first, ties to the
 * first child), with the same fixed stack; of equal hits it keeps the one
 * the tie rule picks, as every Go traversal does.
 */
#ifndef TRACE_INTERSECT_H
#define TRACE_INTERSECT_H

#include "shape.h"

/* Hit is tracer.Hit. */
typedef struct {
    float T;
    u32 Kind;
    u32 Index;
    float B1, B2;
} Hit;

DEVFN Hit hit(float t, u32 kind, u32 index, float b1, float b2) {
    Hit h;
    h.T = t;
    h.Kind = kind;
    h.Index = index;
    h.B1 = b1;
    h.B2 = b2;
    return h;
}

/* The tie rule (tracer/tie.go, docs/traversal.md): of hits at the same t
 * the smaller primitive reference wins, shapes (planes included) before
 * triangles, then the smaller index, so the hit does not depend on the
 * order the traversal meets them in. After a hit at t the ray's TMax is
 * tie_bound(t), the next float above t, so hits at t are still tested and
 * boxes entered at t still visited. */
DEVFN float tie_bound(float t) { return u2f(f2u(t) + 1u); }

/* takes_triangle: whether a hit on triangle i at t <= h->T replaces *h. */
DEVFN int takes_triangle(const Hit* h, float t, u32 i) {
    return t < h->T || (h->Kind == HitTriangle && i < h->Index);
}

/* takes_shape: whether a hit on shape i at t <= h->T replaces *h. */
DEVFN int takes_shape(const Hit* h, float t, u32 i) {
    return t < h->T || h->Kind == HitTriangle || (h->Kind == HitShape && i < h->Index);
}

/* RayBox is tracer's rayBox: a ray prepared for slab tests. */
typedef struct {
    vec3 o;
    vec3 inv;
} RayBox;

DEVFN RayBox new_ray_box(const Ray* r) {
    RayBox rb;
    rb.o = r->Origin;
    rb.inv.x = port_fmaxf(port_fminf(1.0f / r->Dir.x, TR_MAX_INV_DIR), -TR_MAX_INV_DIR);
    rb.inv.y = port_fmaxf(port_fminf(1.0f / r->Dir.y, TR_MAX_INV_DIR), -TR_MAX_INV_DIR);
    rb.inv.z = port_fmaxf(port_fminf(1.0f / r->Dir.z, TR_MAX_INV_DIR), -TR_MAX_INV_DIR);
    return rb;
}

/* enter_pair: rayBox.enterPair, the slab test of both children of an
 * interior node, a and b.
 *
 * It and new_ray_box take minima and maxima with port_fminf/port_fmaxf
 * (one instruction each on the GPU, where this is the hottest loop)
 * instead of Go's min and max, and the traversal finds the same hit:
 *   - While no slab value is NaN the two kinds of min and max differ only
 *     in the sign of a zero result, and ta, tb, ta1 and tb1 are only
 *     compared (<=, <), where −0 equals +0: same booleans, same order,
 *     same stack.
 *   - A slab value (bound − o)·inv is NaN only when the ray's origin or
 *     direction is not finite: inv is then NaN, or o infinite. (A
 *     direction is never infinite, being normalised or the mirror image
 *     of a unit vector; for a finite one inv is finite and not zero.)
 *     Go's traversal then skips boxes this one may enter; but such a ray
 *     hits no primitive: every test in shape.h then compares a NaN or
 *     infinite parameter, which its range checks reject. Both find no
 *     hit in the BVH and no occluder: only the work differs, never the
 *     result or the ray count. TestNonFiniteParity traces NaN rays. */
DEVFN void enter_pair(const RayBox* rb, const BVHNode* a, const BVHNode* b, float tMax, float* ta, float* tb,
                      int* hitA, int* hitB) {
    float ax0 = (a->Min.x - rb->o.x) * rb->inv.x;
    float ax1 = (a->Max.x - rb->o.x) * rb->inv.x;
    float bx0 = (b->Min.x - rb->o.x) * rb->inv.x;
    float bx1 = (b->Max.x - rb->o.x) * rb->inv.x;
    float ay0 = (a->Min.y - rb->o.y) * rb->inv.y;
    float ay1 = (a->Max.y - rb->o.y) * rb->inv.y;
    float by0 = (b->Min.y - rb->o.y) * rb->inv.y;
    float by1 = (b->Max.y - rb->o.y) * rb->inv.y;
    float az0 = (a->Min.z - rb->o.z) * rb->inv.z;
    float az1 = (a->Max.z - rb->o.z) * rb->inv.z;
    float bz0 = (b->Min.z - rb->o.z) * rb->inv.z;
    float bz1 = (b->Max.z - rb->o.z) * rb->inv.z;
    *ta = port_fmaxf(port_fmaxf(port_fmaxf(port_fminf(ax0, ax1), port_fminf(ay0, ay1)), port_fminf(az0, az1)), 0.0f);
    float ta1 = port_fminf(port_fminf(port_fminf(port_fmaxf(ax0, ax1), port_fmaxf(ay0, ay1)), port_fmaxf(az0, az1)), tMax);
    *tb = port_fmaxf(port_fmaxf(port_fmaxf(port_fminf(bx0, bx1), port_fminf(by0, by1)), port_fminf(bz0, bz1)), 0.0f);
    float tb1 = port_fminf(port_fminf(port_fminf(port_fmaxf(bx0, bx1), port_fmaxf(by0, by1)), port_fmaxf(bz0, bz1)), tMax);
    *hitA = *ta <= ta1;
    *hitB = *tb <= tb1;
}

/* Reading BVH nodes. A node is 32 bytes, two 16-byte halves (Min and
 * Index; Max, Count and Info), and the nodes array starts a device
 * allocation (256-byte aligned): every half is 16-byte aligned, so the GPU
 * reads a node in two read-only vector loads. An interior step of the
 * traversals loads both children whole (four loads, which give their
 * boxes for enter_pair and the links of the one it descends into); a node
 * popped from the stack, or the root, needs only its link, two words. */
PORT_STATIC_ASSERT(sizeof(BVHNode) == 32, "BVHNode is two 16-byte halves");

/* load_node: the node *p, in two 16-byte read-only loads on the GPU. */
DEVFN BVHNode load_node(const BVHNode* p) {
    BVHNode n;
    port_ldg16(&n, p);
    port_ldg16((char*)&n + 16, (const char*)p + 16);
    return n;
}

/* NodeLink: what a traversal needs of the node it visits: where its
 * children or primitives are (Index), how many primitives (Count, 0 for
 * an interior node) and of which kind (Info). */
typedef struct {
    u32 Index;
    u32 Count;
    u32 Info;
} NodeLink;

/* link_of: the link of a node already read. */
DEVFN NodeLink link_of(const BVHNode* n) {
    NodeLink l;
    l.Index = n->Index;
    l.Count = n->Count;
    l.Info = n->Info;
    return l;
}

/* load_link: the link of node *p, in two read-only loads (Index, then
 * Count and Info, the last word of the node). */
DEVFN NodeLink load_link(const BVHNode* p) {
    NodeLink l;
    l.Index = port_ldg_u(&p->Index);
    u32 ci = port_ldg_u((const u32*)(const void*)&p->Count);
    l.Count = ci & 0xffffu; /* little-endian: Count is the word's low half */
    l.Info = ci >> 16;
    return l;
}

/* Reading primitives. A Triangle is 36 bytes, so in an array only every
 * fourth one is 16-byte aligned: the traversals read the triangles from
 * TriangleRecords instead (kernels.TriangleRecord: the same nine floats
 * and three of padding, 48 bytes), three read-only 16-byte loads a
 * triangle where a Triangle was nine 4-byte ones. A Shape is read as far
 * as shape_intersect's test for its kind uses it, the rest left zero. */

/* load_vec3: *p in three read-only loads. */
DEVFN vec3 load_vec3(const vec3* p) {
    vec3 v;
    v.x = port_ldg_f(&p->x);
    v.y = port_ldg_f(&p->y);
    v.z = port_ldg_f(&p->z);
    return v;
}

/* TR_TRIANGLE_RECORD: a TriangleRecord's floats. */
#define TR_TRIANGLE_RECORD 12u
PORT_STATIC_ASSERT(sizeof(Triangle) == 9 * sizeof(float), "a TriangleRecord holds a Triangle's nine floats");

/* load_triangle: triangle i of the records recs, in three 16-byte
 * read-only loads on the GPU. */
DEVFN Triangle load_triangle(const float* recs, u32 i) {
    float w[TR_TRIANGLE_RECORD] __attribute__((aligned(16)));
    const float* p = recs + TR_TRIANGLE_RECORD * (u64)i;
    port_ldg16(&w[0], p);
    port_ldg16(&w[4], p + 4);
    port_ldg16(&w[8], p + 8);
    Triangle t;
    t.P0 = v3(w[0], w[1], w[2]);
    t.E1 = v3(w[3], w[4], w[5]);
    t.E2 = v3(w[6], w[7], w[8]);
    return t;
}

/* load_shape_geometry: of the shape *p, the fields shape_intersect reads
 * for its kind (Kind, P0, and P1.x for a sphere; N too for a plane; P1,
 * P2, N and W too for a quad), the others zero. */
DEVFN Shape load_shape_geometry(const Shape* p) {
    vec3 zero = v3(0.0f, 0.0f, 0.0f);
    Shape sh;
    sh.Kind = port_ldg_u(&p->Kind);
    sh.Material = 0;
    sh.Area = 0.0f;
    sh.P0 = load_vec3(&p->P0);
    sh.P1 = zero;
    sh.P2 = zero;
    sh.N = zero;
    sh.W = zero;
    if (sh.Kind == ShapeSphere) {
        sh.P1.x = port_ldg_f(&p->P1.x);
    } else if (sh.Kind == ShapeQuad || sh.Kind == ShapePlane) {
        sh.N = load_vec3(&p->N);
        if (sh.Kind == ShapeQuad) {
            sh.P1 = load_vec3(&p->P1);
            sh.P2 = load_vec3(&p->P2);
            sh.W = load_vec3(&p->W);
        }
    }
    return sh;
}

/* scene_intersect: Scene.Intersect, the nearest hit along r within
 * (0, r.TMax); Kind HitNone when there is none. */
DEVFN Hit scene_intersect(const TraceScene* s, Ray r) {
    /* The header's fields once, into registers: through s the compiler
     * would read them again after every store it cannot tell apart. */
    const BVHNode* PORT_RESTRICT nodes = s->Nodes;
    const float* PORT_RESTRICT triangles = s->TriangleRecords;
    const Shape* PORT_RESTRICT shapes = s->Shapes;
    u32 numNodes = s->NumNodes, firstPlane = s->FirstPlane, numShapes = s->NumShapes;
    Hit h = hit(r.TMax, HitNone, 0, 0.0f, 0.0f);
    for (u32 i = firstPlane; i < numShapes; i++) {
        float t, b1, b2;
        Shape sh = load_shape_geometry(&shapes[i]);
        if (shape_intersect(&sh, &r, &t, &b1, &b2) && takes_shape(&h, t, i)) {
            r.TMax = tie_bound(t);
            h = hit(t, HitShape, i, b1, b2);
        }
    }
    if (numNodes == 0) {
        return h;
    }
    RayBox rb = new_ray_box(&r);
    u32 stackNode[BVHStackSize];
    float stackT[BVHStackSize];
    int sp = 0;
    NodeLink n = load_link(&nodes[0]);
    for (;;) {
        if (n.Count == 0) {
            u32 a = n.Index, b = n.Index + 1;
            BVHNode na = load_node(&nodes[a]), nb = load_node(&nodes[b]);
            float ta, tb;
            int hitA, hitB;
            enter_pair(&rb, &na, &nb, r.TMax, &ta, &tb, &hitA, &hitB);
            if (hitA && hitB) {
                /* Nearer child first, ties to a; the other waits. */
                if (tb < ta) {
                    stackNode[sp] = a;
                    stackT[sp] = ta;
                    n = link_of(&nb);
                } else {
                    stackNode[sp] = b;
                    stackT[sp] = tb;
                    n = link_of(&na);
                }
                sp++;
                continue;
            }
            if (hitA) {
                n = link_of(&na);
                continue;
            }
            if (hitB) {
                n = link_of(&nb);
                continue;
            }
        } else if (n.Info == LeafTriangles) {
            u32 end = n.Index + n.Count;
            for (u32 i = n.Index; i < end; i++) {
                float t, b1, b2;
                Triangle tr = load_triangle(triangles, i);
                if (triangle_intersect(&tr, &r, &t, &b1, &b2) && takes_triangle(&h, t, i)) {
                    r.TMax = tie_bound(t);
                    h = hit(t, HitTriangle, i, b1, b2);
                }
            }
        } else {
            u32 end = n.Index + n.Count;
            for (u32 i = n.Index; i < end; i++) {
                float t, b1, b2;
                Shape sh = load_shape_geometry(&shapes[i]);
                if (shape_intersect(&sh, &r, &t, &b1, &b2) && takes_shape(&h, t, i)) {
                    r.TMax = tie_bound(t);
                    h = hit(t, HitShape, i, b1, b2);
                }
            }
        }
        /* Pop the next subtree that may still hold a nearer hit. */
        for (;;) {
            if (sp == 0) {
                return h;
            }
            sp--;
            if (stackT[sp] <= r.TMax) {
                n = load_link(&nodes[stackNode[sp]]);
                break;
            }
        }
    }
}

/* scene_occluded: Scene.Occluded, whether anything lies along r within
 * (0, r.TMax). */
DEVFN int scene_occluded(const TraceScene* s, Ray r) {
    const BVHNode* PORT_RESTRICT nodes = s->Nodes;
    const float* PORT_RESTRICT triangles = s->TriangleRecords;
    const Shape* PORT_RESTRICT shapes = s->Shapes;
    u32 numNodes = s->NumNodes, firstPlane = s->FirstPlane, numShapes = s->NumShapes;
    for (u32 i = firstPlane; i < numShapes; i++) {
        float t, b1, b2;
        Shape sh = load_shape_geometry(&shapes[i]);
        if (shape_intersect(&sh, &r, &t, &b1, &b2)) {
            return 1;
        }
    }
    if (numNodes == 0) {
        return 0;
    }
    RayBox rb = new_ray_box(&r);
    u32 stack[BVHStackSize];
    int sp = 0;
    NodeLink n = load_link(&nodes[0]);
    for (;;) {
        if (n.Count == 0) {
            u32 a = n.Index, b = n.Index + 1;
            BVHNode na = load_node(&nodes[a]), nb = load_node(&nodes[b]);
            float ta, tb;
            int hitA, hitB;
            enter_pair(&rb, &na, &nb, r.TMax, &ta, &tb, &hitA, &hitB);
            if (hitA && hitB) {
                stack[sp] = b;
                sp++;
                n = link_of(&na);
                continue;
            }
            if (hitA) {
                n = link_of(&na);
                continue;
            }
            if (hitB) {
                n = link_of(&nb);
                continue;
            }
        } else if (n.Info == LeafTriangles) {
            u32 end = n.Index + n.Count;
            for (u32 i = n.Index; i < end; i++) {
                float t, b1, b2;
                Triangle tr = load_triangle(triangles, i);
                if (triangle_intersect(&tr, &r, &t, &b1, &b2)) {
                    return 1;
                }
            }
        } else {
            u32 end = n.Index + n.Count;
            for (u32 i = n.Index; i < end; i++) {
                float t, b1, b2;
                Shape sh = load_shape_geometry(&shapes[i]);
                if (shape_intersect(&sh, &r, &t, &b1, &b2)) {
                    return 1;
                }
            }
        }
        if (sp == 0) {
            return 0;
        }
        sp--;
        n = load_link(&nodes[stack[sp]]);
    }
}

#endif /* TRACE_INTERSECT_H */
