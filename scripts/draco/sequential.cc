// Encodes a mesh file with Draco's sequential encoding and its connectivity
// compressed (the library's "compress_connectivity" option, which
// draco_encoder does not set: index deltas as rANS symbols), at Blender's
// quantization (positions 14, texcoords 12, normals 10, generic 12 bits):
// scripts/draco-vectors.sh.
//
//   sequential in.obj out.drc
#include <cstdio>
#include <fstream>

#include "draco/compression/expert_encode.h"
#include "draco/io/mesh_io.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: sequential in.obj out.drc\n");
    return 2;
  }
  auto mesh = draco::ReadMeshFromFile(argv[1]);
  if (!mesh.ok()) {
    std::fprintf(stderr, "%s\n", mesh.status().error_msg());
    return 1;
  }
  draco::Mesh *m = mesh.value().get();
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
  draco::EncoderBuffer buf;
  const draco::Status st = enc.EncodeToBuffer(&buf);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.error_msg());
    return 1;
  }
  std::ofstream(argv[2], std::ios::binary).write(buf.data(), buf.size());
  return 0;
}
