// exrcheck reads an OpenEXR file with the OpenEXR library and compares it,
// pixel for pixel, with a little-endian colour PFM of the same image:
//
//	exrcheck IMAGE.exr IMAGE.pfm
//
// Float channels must hold the PFM's values bit for bit; half channels the
// PFM's values rounded by Imath's half (values past 65504 clamped to it,
// as trace writes them). It prints the size, the channels' pixel type and
// the compression, as the library reads them, then "equal", and exits 1
// at the first difference. Tests build it (tracer/output_exr_test.go,
// cmd/trace/output_formats_test.go) with
//
//	c++ -o exrcheck exrcheck.cc $(pkg-config --cflags --libs OpenEXR)
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#include <half.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static bool readPFM(const char *path, int &w, int &h, std::vector<float> &pix) {
  std::ifstream in(path, std::ios::binary);
  std::string magic;
  double scale;
  if (!(in >> magic >> w >> h >> scale) || magic != "PF" || scale >= 0) return false;
  in.get();  // the one whitespace byte after the scale
  pix.resize(size_t(3) * w * h);
  std::vector<float> row(size_t(3) * w);
  for (int y = h - 1; y >= 0; y--) {  // bottom row first
    if (!in.read(reinterpret_cast<char *>(row.data()), row.size() * 4)) return false;
    std::memcpy(&pix[size_t(3) * w * y], row.data(), row.size() * 4);
  }
  return true;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: exrcheck IMAGE.exr IMAGE.pfm\n";
    return 2;
  }
  int w, h;
  std::vector<float> want;
  if (!readPFM(argv[2], w, h, want)) {
    std::cerr << argv[2] << ": not a colour PFM\n";
    return 2;
  }
  try {
    Imf::InputFile file(argv[1]);
    const Imf::Header &hdr = file.header();
    Imath::Box2i dw = hdr.dataWindow();
    int ew = dw.max.x - dw.min.x + 1, eh = dw.max.y - dw.min.y + 1;
    if (ew != w || eh != h) {
      std::cerr << "EXR is " << ew << "x" << eh << ", PFM " << w << "x" << h << "\n";
      return 1;
    }
    const char *names[3] = {"R", "G", "B"};
    Imf::PixelType types[3];
    for (int c = 0; c < 3; c++) {
      const Imf::Channel *ch = hdr.channels().findChannel(names[c]);
      if (!ch) {
        std::cerr << "no channel " << names[c] << "\n";
        return 1;
      }
      types[c] = ch->type;
    }
    std::vector<float> got(size_t(3) * w * h);
    Imf::FrameBuffer fb;
    for (int c = 0; c < 3; c++) {
      char *base = reinterpret_cast<char *>(got.data() + c) - (dw.min.x + size_t(dw.min.y) * w) * 3 * sizeof(float);
      fb.insert(names[c], Imf::Slice(Imf::FLOAT, base, 3 * sizeof(float), size_t(3) * w * sizeof(float)));
    }
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    const char *comp = "other";
    switch (hdr.compression()) {
      case Imf::NO_COMPRESSION: comp = "none"; break;
      case Imf::ZIP_COMPRESSION: comp = "zip"; break;
      case Imf::ZIPS_COMPRESSION: comp = "zips"; break;
      default: break;
    }
    std::printf("%dx%d %s %s\n", w, h, types[0] == Imf::HALF ? "half" : types[0] == Imf::FLOAT ? "float" : "uint", comp);
    for (size_t i = 0; i < got.size(); i++) {
      int c = i % 3;
      float v = want[i];
      if (types[c] == Imf::HALF) {
        if (v > 65504) v = 65504;
        if (v < -65504) v = -65504;
        v = float(half(v));
      }
      uint32_t a, b;
      std::memcpy(&a, &got[i], 4);
      std::memcpy(&b, &v, 4);
      if (a != b) {
        size_t p = i / 3;
        std::printf("pixel (%zu, %zu) %s: EXR %.9g, want %.9g (PFM %.9g)\n", p % w, p / w, names[c], got[i], v, want[i]);
        return 1;
      }
    }
  } catch (const std::exception &e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  std::printf("equal\n");
  return 0;
}
