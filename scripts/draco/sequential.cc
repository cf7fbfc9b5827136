// Encodes a mesh file with Draco's sequential encoding at Blender's
// quantization (positions 14, normals 10, texcoords 12, generic 12 bits):
// scripts/draco-vectors.sh.
//
//   sequential compressed in.obj out.drc
//       speed 10, the connectivity compressed (the library's
//       "compress_connectivity" option, which draco_encoder does not set:
//       index deltas as rANS symbols)
//   sequential blender in.obj out.drc
//       what Blender 3.x's exporter writes for a mesh with shape keys at
//       its default compression level 6: draco::Encoder with
//       SetSpeedOptions(4, 4), the quantization per attribute type and
//       SetEncodingMethod(MESH_SEQUENTIAL_ENCODING), as its library does
//       (github.com/ux3d/blender_extern_draco, src/encoder.cpp,
//       encoderEncode with preserveTriangleOrder)
//   sequential blender-edgebreaker in.obj out.drc
//       the same calls without SetEncodingMethod: what Blender's exporter
//       writes for a mesh without shape keys (edgebreaker; despite the
//       tool's name)
#include <cstdio>
#include <cstring>
#include <fstream>

#include "draco/compression/encode.h"
#include "draco/compression/expert_encode.h"
#include "draco/io/mesh_io.h"

int main(int argc, char **argv) {
  const bool blender = std::strcmp(argv[1], "blender") == 0,
             blender_eb = std::strcmp(argv[1], "blender-edgebreaker") == 0;
  if (argc != 4 || (std::strcmp(argv[1], "compressed") != 0 && !blender &&
                    !blender_eb)) {
    std::fprintf(stderr, "usage: sequential compressed|blender|blender-edgebreaker in.obj out.drc\n");
    return 2;
  }
  const char *in = argv[2], *out = argv[3];
  auto mesh = draco::ReadMeshFromFile(in);
  if (!mesh.ok()) {
    std::fprintf(stderr, "%s\n", mesh.status().error_msg());
    return 1;
  }
  draco::Mesh *m = mesh.value().get();
  draco::EncoderBuffer buf;
  if (blender || blender_eb) {
    draco::Encoder enc;
    enc.SetSpeedOptions(4, 4);
    enc.SetAttributeQuantization(draco::GeometryAttribute::POSITION, 14);
    enc.SetAttributeQuantization(draco::GeometryAttribute::NORMAL, 10);
    enc.SetAttributeQuantization(draco::GeometryAttribute::TEX_COORD, 12);
    enc.SetAttributeQuantization(draco::GeometryAttribute::GENERIC, 12);
    if (blender) {
      enc.SetEncodingMethod(draco::MESH_SEQUENTIAL_ENCODING);
    }
    const draco::Status st = enc.EncodeMeshToBuffer(*m, &buf);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.error_msg());
      return 1;
    }
    std::ofstream(out, std::ios::binary).write(buf.data(), buf.size());
    return 0;
  }
  draco::ExpertEncoder enc(*m);
  draco::EncoderOptions opts = draco::EncoderOptions::CreateDefaultOptions();
  opts.SetSpeed(10, 10);
  opts.SetGlobalBool("compress_connectivity", true);
  const int bits[] = {14, 10, 10, 12, 12};  // POSITION, NORMAL, COLOR, TEX_COORD, GENERIC
  for (int i = 0; i < m->num_attributes(); ++i) {
    const int t = m->attribute(i)->attribute_type();
    if (t >= 0 && t < 5 && m->attribute(i)->data_type() == draco::DT_FLOAT32) {
      opts.SetAttributeInt(i, "quantization_bits", bits[t]);
    }
  }
  enc.Reset(opts);
  enc.SetEncodingMethod(draco::MESH_SEQUENTIAL_ENCODING);
  const draco::Status st = enc.EncodeToBuffer(&buf);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.error_msg());
    return 1;
  }
  std::ofstream(out, std::ios::binary).write(buf.data(), buf.size());
  return 0;
}
