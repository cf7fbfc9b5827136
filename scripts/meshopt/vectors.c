// vectors.c writes test vectors of meshoptimizer's codecs and filters as
// JSON (one object per line) to stdout, for scenes/testdata/meshopt:
// each has the library's own encoding of data made here from a fixed
// seed, and the library's own decoding of that encoding, which the Go
// decoder (scenes/meshopt.go) must reproduce (scenes/meshopt_test.go).
// Built and run by scripts/meshopt-vectors.sh against Debian's
// libmeshoptimizer-dev. An argument, a number, seeds other data (the
// committed vectors are those of no argument). Built against
// meshoptimizer 0.23 or later (its source: scripts/meshopt-vectors.sh
// --meshopt-src), "v1" as the first argument writes instead vectors of
// KHR_meshopt_compression's additions: the vertex codec's version 1 at
// each encoder level (control modes, 16-bit and XOR channels) and the
// COLOR filter.
#include <meshoptimizer.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t state = 12345;

static uint32_t rnd(void)
{
	state = state * 1664525u + 1013904223u;
	return state >> 8;
}

static float rndf(void) { return (float)(rnd() & 0xffff) / 65535.f; }

static void hex(const char* key, const unsigned char* p, size_t n)
{
	printf(",\"%s\":\"", key);
	for (size_t i = 0; i < n; ++i)
		printf("%02x", p[i]);
	printf("\"");
}

static int vertexVersion = 0; // of the vectors written

static void vector(const char* name, const char* mode, const char* filter, size_t count, size_t stride,
                   const unsigned char* enc, size_t enclen, const unsigned char* dec, const unsigned char* filtered)
{
	printf("{\"name\":\"%s\",\"mode\":\"%s\",\"filter\":\"%s\",\"count\":%zu,\"byteStride\":%zu", name, mode, filter, count, stride);
	if (vertexVersion)
		printf(",\"vertexVersion\":%d", vertexVersion);
	hex("encoded", enc, enclen);
	hex("decoded", dec, count * stride);
	if (filtered)
		hex("filtered", filtered, count * stride);
	printf("}\n");
}

// attributes encodes data (count × stride) with the vertex codec, decodes
// it, applies filter to a copy of the decoding and writes the vector.
#if MESHOPTIMIZER_VERSION >= 230
static int level = -1; // the vertex encoder's level (version 1), or -1
#endif

static void attributes(const char* name, const char* filter, const unsigned char* data, size_t count, size_t stride)
{
	size_t bound = meshopt_encodeVertexBufferBound(count, stride);
	unsigned char* enc = malloc(bound);
#if MESHOPTIMIZER_VERSION >= 230
	size_t n = level >= 0 ? meshopt_encodeVertexBufferLevel(enc, bound, data, count, stride, level, 1) : meshopt_encodeVertexBuffer(enc, bound, data, count, stride);
#else
	size_t n = meshopt_encodeVertexBuffer(enc, bound, data, count, stride);
#endif
	unsigned char* dec = malloc(count * stride);
	if (n == 0 || meshopt_decodeVertexBuffer(dec, count, stride, enc, n) != 0)
	{
		fprintf(stderr, "%s: the library failed\n", name);
		exit(1);
	}
	if (memcmp(dec, data, count * stride) != 0)
	{
		fprintf(stderr, "%s: the library's round trip differs\n", name);
		exit(1);
	}
	unsigned char* filtered = NULL;
	if (strcmp(filter, "NONE") != 0)
	{
		filtered = malloc(count * stride);
		memcpy(filtered, dec, count * stride);
		if (strcmp(filter, "OCTAHEDRAL") == 0)
			meshopt_decodeFilterOct(filtered, count, stride);
#if MESHOPTIMIZER_VERSION >= 230
		else if (strcmp(filter, "COLOR") == 0)
			meshopt_decodeFilterColor(filtered, count, stride);
#endif
		else if (strcmp(filter, "QUATERNION") == 0)
			meshopt_decodeFilterQuat(filtered, count, stride);
		else
			meshopt_decodeFilterExp(filtered, count, stride);
	}
	vector(name, "ATTRIBUTES", filter, count, stride, enc, n, dec, filtered);
	free(enc);
	free(dec);
	free(filtered);
}

// block is the vertex codec's elements per block (vertexcodec.cpp).
static size_t block(size_t stride)
{
	size_t r = (8192 / stride) & ~(size_t)15;
	return r < 256 ? r : 256;
}

static void vertexVectors(void)
{
	static const size_t strides[] = {4, 8, 12, 16, 20, 32, 64, 256};
	for (size_t s = 0; s < sizeof(strides) / sizeof(strides[0]); ++s)
	{
		size_t stride = strides[s];
		// a block and a partial second of a partial group: block and
		// group boundaries
		size_t count = block(stride) + 5;
		unsigned char* data = malloc(count * stride);
		// per byte: a slow ramp (2-bit deltas), a faster one with jumps
		// (4-bit and sentinels), noise (bytes), a constant (zero deltas)
		for (size_t i = 0; i < count; ++i)
			for (size_t k = 0; k < stride; ++k)
			{
				unsigned char v;
				switch ((k + s) % 4)
				{
				case 0: v = (unsigned char)(i / 3 + k); break;
				case 1: v = (unsigned char)(i * 5 + (rnd() % 16 == 0 ? rnd() : 0)); break;
				case 2: v = (unsigned char)rnd(); break;
				default: v = (unsigned char)(k * 7); break;
				}
				data[i * stride + k] = v;
			}
		char name[64];
		snprintf(name, sizeof(name), "attributes-stride%zu", stride);
		attributes(name, "NONE", data, count, stride);
		free(data);
	}
	// a single element; 17 elements (one full group and one of one)
	unsigned char one[12] = {1, 2, 3, 4, 250, 251, 252, 253, 0, 0, 0, 128};
	attributes("attributes-one", "NONE", one, 1, 12);
	unsigned char seventeen[17 * 8];
	for (size_t i = 0; i < sizeof(seventeen); ++i)
		seventeen[i] = (unsigned char)(i * i);
	attributes("attributes-seventeen", "NONE", seventeen, 17, 8);
}

static void filterVectors(void)
{
	size_t count = 150;
	float* f = malloc(count * 4 * sizeof(float));
	unsigned char* data = malloc(count * 16);
	for (int stride = 4; stride <= 8; stride += 4)
	{
		int bitsList[2] = {stride == 4 ? 8 : 16, stride == 4 ? 5 : 11};
		for (int b = 0; b < 2; ++b)
		{
			for (size_t i = 0; i < count; ++i)
			{
				float x = rndf() * 2 - 1, y = rndf() * 2 - 1, z = rndf() * 2 - 1;
				if (i % 7 == 0)
					x = 0, y = 0, z = (i % 2) ? 1 : -1; // the poles
				float l = sqrtf(x * x + y * y + z * z);
				if (l == 0)
					x = 1, l = 1;
				f[i * 4 + 0] = x / l, f[i * 4 + 1] = y / l, f[i * 4 + 2] = z / l;
				f[i * 4 + 3] = (i % 2) ? 1.f : -1.f; // a tangent's handedness
			}
			meshopt_encodeFilterOct(data, count, stride, bitsList[b], f);
			char name[64];
			snprintf(name, sizeof(name), "octahedral-stride%d-bits%d", stride, bitsList[b]);
			attributes(name, "OCTAHEDRAL", data, count, stride);
		}
	}
	for (int bits = 4; bits <= 16; bits += 6)
	{
		for (size_t i = 0; i < count; ++i)
		{
			float q[4], l = 0;
			for (int c = 0; c < 4; ++c)
				q[c] = rndf() * 2 - 1, l += q[c] * q[c];
			if (i % 11 == 0)
				q[0] = 0, q[1] = 0, q[2] = 0, q[3] = 1, l = 1; // the identity
			l = sqrtf(l);
			for (int c = 0; c < 4; ++c)
				f[i * 4 + c] = q[c] / l;
		}
		meshopt_encodeFilterQuat(data, count, 8, bits, f);
		char name[64];
		snprintf(name, sizeof(name), "quaternion-bits%d", bits);
		attributes(name, "QUATERNION", data, count, 8);
	}
	for (int stride = 4; stride <= 12; stride += 8)
	{
		size_t n = count * stride / 4;
		for (size_t i = 0; i < n; ++i)
		{
			float v = (rndf() - 0.5f) * powf(2.f, (float)(int)(rnd() % 40) - 20);
			f[i] = (i % 13 == 0) ? 0.f : v;
		}
#if MESHOPTIMIZER_VERSION >= 230
		meshopt_encodeFilterExp(data, count, stride, stride == 4 ? 23 : 12, f, meshopt_EncodeExpSeparate);
#else
		meshopt_encodeFilterExp(data, count, stride, stride == 4 ? 23 : 12, f);
#endif
		char name[64];
		snprintf(name, sizeof(name), "exponential-stride%d", stride);
		attributes(name, "EXPONENTIAL", data, count, stride);
	}
	free(f);
	free(data);
}

// indices encodes count indices of size bytes (2 or 4) below vertices
// with the triangle codec (mode "TRIANGLES") or the index sequence codec
// ("INDICES"), has the library decode them and writes the vector.
static void indices(const char* name, const char* mode, const unsigned int* idx, size_t count, size_t vertices, size_t size)
{
	int tri = strcmp(mode, "TRIANGLES") == 0;
	size_t bound = tri ? meshopt_encodeIndexBufferBound(count, vertices) : meshopt_encodeIndexSequenceBound(count, vertices);
	unsigned char* enc = malloc(bound);
	size_t n = tri ? meshopt_encodeIndexBuffer(enc, bound, idx, count) : meshopt_encodeIndexSequence(enc, bound, idx, count);
	unsigned char* dec = malloc(count * size);
	if (n == 0 || (tri ? meshopt_decodeIndexBuffer(dec, count, size, enc, n) : meshopt_decodeIndexSequence(dec, count, size, enc, n)) != 0)
	{
		fprintf(stderr, "%s: the library failed\n", name);
		exit(1);
	}
	vector(name, mode, "NONE", count, size, enc, n, dec, NULL);
	free(enc);
	free(dec);
}

static void indexVectors(void)
{
	// a 20 × 20 grid of quads, its triangles in cache order and its
	// vertices in fetch order (as gltfpack writes them), then the same
	// triangles shuffled (explicit codes), then random triangles over a
	// large range (32-bit indices, long varints)
	size_t g = 12, nv = (g + 1) * (g + 1), count = g * g * 6;
	unsigned int* idx = malloc(count * sizeof(unsigned int));
	unsigned int* tmp = malloc(count * sizeof(unsigned int));
	size_t k = 0;
	for (size_t y = 0; y < g; ++y)
		for (size_t x = 0; x < g; ++x)
		{
			unsigned int a = y * (g + 1) + x, b = a + 1, c = a + g + 1, d = c + 1;
			idx[k++] = a, idx[k++] = b, idx[k++] = c;
			idx[k++] = b, idx[k++] = d, idx[k++] = c;
		}
	meshopt_optimizeVertexCache(tmp, idx, count, nv);
	meshopt_optimizeVertexFetchRemap(idx, tmp, count, nv);
	meshopt_remapIndexBuffer(idx, tmp, count, idx);
	indices("triangles-grid-u16", "TRIANGLES", idx, count, nv, 2);
	indices("triangles-grid-u32", "TRIANGLES", idx, count, nv, 4);
	indices("indices-grid-u16", "INDICES", idx, count, nv, 2);
	for (size_t t = count / 3 - 1; t > 0; --t)
	{
		size_t j = rnd() % (t + 1);
		for (int c = 0; c < 3; ++c)
		{
			unsigned int v = idx[t * 3 + c];
			idx[t * 3 + c] = idx[j * 3 + c];
			idx[j * 3 + c] = v;
		}
	}
	indices("triangles-shuffled-u32", "TRIANGLES", idx, count, nv, 4);
	size_t rc = 201;
	for (size_t i = 0; i < rc; ++i)
		idx[i] = (i % 5 == 0) ? rnd() * 97u : rnd() % 70000;
	indices("triangles-random-u32", "TRIANGLES", idx, rc, 0xffffffffu, 4);
	indices("indices-random-u32", "INDICES", idx, rc, 0xffffffffu, 4);
	// a strip's bimodal sequence
	for (size_t i = 0; i < rc; ++i)
		idx[i] = (i % 2) ? 1000 + i / 2 : i / 2;
	indices("indices-strip-u16", "INDICES", idx, rc, 2000, 2);
	free(idx);
	free(tmp);
}

#if MESHOPTIMIZER_VERSION >= 230
// v1Vectors writes the vertex codec's version 1 at levels 0 to 3 over
// data that favours each channel mode (bytes, 16-bit ramps, floats for
// the XOR deltas) and the COLOR filter.
static void v1Vectors(void)
{
	vertexVersion = 1;
	static const size_t strides[] = {4, 8, 16, 256};
	size_t count = 130;
	unsigned char* data = malloc(count * 256);
	float* f = malloc(150 * 4 * sizeof(float)); // the colours'
	for (level = 0; level <= 3; ++level)
		for (size_t s = 0; s < sizeof(strides) / sizeof(strides[0]); ++s)
		{
			size_t stride = strides[s];
			size_t n = stride == 256 ? 40 : count;
			for (size_t i = 0; i < n; ++i)
				for (size_t k = 0; k < stride; k += 4)
				{
					unsigned char* e = data + i * stride + k;
					switch ((k / 4 + s) % 5)
					{
					case 4: { // flags in the top bit of each byte (XOR deltas, rotated)
						uint32_t v = 0x5a3c1e0fu ^ ((rnd() & 0x01010101u) << 7);
						memcpy(e, &v, 4);
						break;
					}
					case 0: { // 16-bit ramps
						unsigned short a = (unsigned short)(i * 37 + k), b = (unsigned short)(60000 - i * 11);
						memcpy(e, &a, 2), memcpy(e + 2, &b, 2);
						break;
					}
					case 1: { // smooth floats
						float v = sinf((float)i * 0.05f + (float)k) * 10.f;
						memcpy(e, &v, 4);
						break;
					}
					case 2: // small byte steps and noise
						e[0] = (unsigned char)(i / 5), e[1] = (unsigned char)rnd(), e[2] = 7, e[3] = (unsigned char)(i * 3);
						break;
					default: // constant
						memset(e, (int)k, 4);
					}
				}
			char name[64];
			snprintf(name, sizeof(name), "v1-level%d-stride%zu", level, stride);
			attributes(name, "NONE", data, n, stride);
		}
	level = 2;
	for (int stride = 4; stride <= 8; stride += 4)
		for (int bits = stride == 4 ? 6 : 10; bits <= (stride == 4 ? 8 : 16); bits += stride == 4 ? 2 : 6)
		{
			for (size_t i = 0; i < 150; ++i)
			{
				f[i * 4 + 0] = rndf(), f[i * 4 + 1] = rndf(), f[i * 4 + 2] = rndf();
				f[i * 4 + 3] = (i % 3 == 0) ? 1.f : rndf();
				if (i % 10 == 0)
					f[i * 4 + 0] = f[i * 4 + 1] = f[i * 4 + 2] = (float)(i % 20 == 0); // black, white
			}
			meshopt_encodeFilterColor(data, 150, stride, bits, f);
			char name[64];
			snprintf(name, sizeof(name), "color-stride%d-bits%d", stride, bits);
			attributes(name, "COLOR", data, 150, stride);
		}
	free(data);
	free(f);
}
#endif

int main(int argc, char** argv)
{
#if MESHOPTIMIZER_VERSION >= 230
	if (argc > 1 && strcmp(argv[1], "v1") == 0)
	{
		if (argc > 2)
			state = (uint32_t)strtoul(argv[2], NULL, 10);
		v1Vectors();
		return 0;
	}
	meshopt_encodeVertexVersion(0); // EXT_meshopt_compression's
#endif
	if (argc > 1)
		state = (uint32_t)strtoul(argv[1], NULL, 10); // another seed: other data, the same shapes
	// EXT_meshopt_compression's index streams are version 1 (headers 0xe1
	// and 0xd1); Debian's 0.18 writes version 0 unless told
	meshopt_encodeIndexVersion(1);
	vertexVectors();
	filterVectors();
	indexVectors();
	return 0;
}
