// tanh in native f32 by a table of polynomial pieces, with no exp and no division: |x| (clamped
// at 9.75, where tanh rounds to 1) selects one of 30 pieces, [0, 1/16] and then four per binade
// up to 8 ([8, 9.75] last), and its degree-5 polynomial in t = |x| - centre is evaluated by
// Horner's rule. t is exact (|x| and the centre lie in one binade, or the centre is 0). The
// first piece is t + c3 t^3 + c5 t^5 (exact for tiny t, and -0 keeps its sign through the
// copysign); the others' centres are chosen so that tanh(centre) is within about 2^-12 ulp of
// an f32 (Gal's accurate tables), so c0 adds no rounding of its own; the last piece's centre is
// the clamp, whose c0 is exactly 1. Coefficients, centres and each piece's fit error:
// scripts/vector_math_f32_fit.py (tanh_pieces), 2^-26 relative at worst. The table lives in
// registers on AVX-512 hosts (one vpermi2ps per coefficient, MathBuilder::lookup), and is read a
// row per lane elsewhere (MathBuilder::lookup_rows).
// Measured bound and speed: docs/vector_math.md.
#include "codegen/src/vector_math/f32_functions.hpp"

#include <array>
#include <cstddef>
#include <vector>

namespace tensorjit::codegen::vector_math::f32 {
namespace {

constexpr double kClamp = 9.75;
constexpr std::size_t kDegree = 5;

struct Piece {
  float centre;
  float coefficients[kDegree + 1];  // c0 ... c5 of the polynomial in t
};

// scripts/vector_math_f32_fit.py, tanh_pieces(): centre, {c0 ... c5}, the piece's |x| interval
// and the fit's relative error.
constexpr Piece kPieces[] = {
    {0x0p+0f, {0x0p+0f, 0x1p+0f, 0x0p+0f, -0x1.55553ep-2f, 0x0p+0f, 0x1.107864p-3f}},  // [0, 0.0625] 2^-32.9
    {0x1.1ff46ap-4f, {0x1.1f7b36p-4f, 0x1.fd7a56p-1f, -0x1.1e10b2p-4f, -0x1.508dcep-2f, 0x1.609488p-5f, 0x1.811858p+4f}},  // [0.0625, 0.078125] 2^-30.5
    {0x1.5ffee6p-4f, {0x1.5f21bap-4f, 0x1.fc3cc4p-1f, -0x1.5c8d04p-4f, -0x1.49669ep-2f, 0x1.cef4fp-5f, -0x1.869178p+4f}},  // [0.078125, 0.09375] 2^-30.8
    {0x1.9ffde6p-4f, {0x1.9e9142p-4f, 0x1.fac14cp-1f, -0x1.9a51d8p-4f, -0x1.47fc22p-2f, 0x1.f0f3e8p-5f, 0x1.a4413cp+2f}},  // [0.09375, 0.109375] 2^-32.8
    {0x1.e00434p-4f, {0x1.ddd4b8p-4f, 0x1.f9083cp-1f, -0x1.d753bp-4f, -0x1.447c84p-2f, 0x1.13b816p-4f, 0x1.335d6ap+4f}},  // [0.109375, 0.125] 2^-31.5
    {0x1.1ff876p-3f, {0x1.1e166cp-3f, 0x1.f6025p-1f, -0x1.188126p-3f, -0x1.3b7becp-2f, 0x1.646db6p-4f, 0x1.564c6cp+0f}},  // [0.125, 0.15625] 2^-30.7
    {0x1.6006ap-3f, {0x1.5c9976p-3f, 0x1.f12a74p-1f, -0x1.527fd2p-3f, -0x1.2ef2ap-2f, 0x1.acc538p-4f, 0x1.10b978p+0f}},  // [0.15625, 0.1875] 2^-31.4
    {0x1.a009b8p-3f, {0x1.9a687p-3f, 0x1.eb706ap-1f, -0x1.89ed56p-3f, -0x1.1ff036p-2f, 0x1.f10b5ap-4f, -0x1.2472dep-1f}},  // [0.1875, 0.21875] 2^-32.1
    {0x1.e0087ap-3f, {0x1.d76e64p-3f, 0x1.e4dec4p-1f, -0x1.be73ap-3f, -0x1.0f7094p-2f, 0x1.1588fcp-3f, -0x1.35c626p+0f}},  // [0.21875, 0.25] 2^-31.3
    {0x1.1ff652p-2f, {0x1.189aa6p-2f, 0x1.d98daap-1f, -0x1.038888p-2f, -0x1.e8f212p-3f, 0x1.33478ep-3f, -0x1.932f3p-6f}},  // [0.25, 0.3125] 2^-30.5
    {0x1.600068p-2f, {0x1.52c322p-2f, 0x1.c7f704p-1f, -0x1.2dafdap-2f, -0x1.982df6p-3f, 0x1.5036dp-3f, -0x1.fbc7d6p-6f}},  // [0.3125, 0.375] 2^-31.2
    {0x1.a0044cp-2f, {0x1.8a8b8ap-2f, 0x1.b3fdc6p-1f, -0x1.4ff91ep-2f, -0x1.42722ap-3f, 0x1.5c2b46p-3f, 0x1.dd905ep-7f}},  // [0.375, 0.4375] 2^-34.1
    {0x1.dff4c6p-2f, {0x1.bfa556p-2f, 0x1.9e27a6p-1f, -0x1.6a195ap-2f, -0x1.d7106p-4f, 0x1.584c1ap-3f, -0x1.a74cbp-5f}},  // [0.4375, 0.5] 2^-32.6
    {0x1.1ffcecp-1f, {0x1.050628p-1f, 0x1.7aed3ap-1f, -0x1.825cfp-2f, -0x1.bd599p-5f, 0x1.39ff98p-3f, -0x1.41a01cp-5f}},  // [0.5, 0.625] 2^-30.5
    {0x1.5ffc7cp-1f, {0x1.31559cp-1f, 0x1.49e972p-1f, -0x1.897d76p-2f, 0x1.d7c1bap-7f, 0x1.e96e84p-4f, -0x1.0e1a8ap-4f}},  // [0.625, 0.75] 2^-30.8
    {0x1.a004fp-1f, {0x1.578bb6p-1f, 0x1.197c2ap-1f, -0x1.79befcp-2f, 0x1.071b6ap-4f, 0x1.472832p-4f, -0x1.d3090ep-5f}},  // [0.75, 0.875] 2^-30.8
    {0x1.dff95ap-1f, {0x1.77d528p-1f, 0x1.d83dd4p-2f, -0x1.5aa5e4p-2f, 0x1.84231p-4f, 0x1.63055p-5f, -0x1.a76352p-5f}},  // [0.875, 1] 2^-32.2
    {0x1.2008dep+0f, {0x1.9e62d4p-1f, 0x1.613c34p-2f, -0x1.1de45ep-2f, 0x1.c6905ap-4f, 0x1.ddeaf6p-9f, -0x1.06da7ep-5f}},  // [1, 1.25] 2^-28.1
    {0x1.60064p+0f, {0x1.c27b78p-1f, 0x1.ce9364p-3f, -0x1.96ffaep-3f, 0x1.97d0f8p-4f, -0x1.5a0c0cp-6f, -0x1.39ba3cp-7f}},  // [1.25, 1.5] 2^-29.0
    {0x1.9fff1p+0f, {0x1.d9c6b6p-1f, 0x1.266032p-3f, -0x1.106656p-3f, 0x1.33e114p-4f, -0x1.9bb8d8p-6f, 0x1.685fdcp-10f}},  // [1.5, 1.75] 2^-30.4
    {0x1.e00076p+0f, {0x1.e878b4p-1f, 0x1.6fce64p-4f, -0x1.5ee77ap-4f, 0x1.a859f4p-5f, -0x1.55a006p-6f, 0x1.2e956p-8f}},  // [1.75, 2] 2^-32.6
    {0x1.20093ep+1f, {0x1.f4c172p-1f, 0x1.63de44p-5f, -0x1.5c0af8p-5f, 0x1.bb9372p-6f, -0x1.95a95ap-7f, 0x1.04acaap-8f}},  // [2, 2.5] 2^-27.1
    {0x1.600afcp+1f, {0x1.fbd5cp-1f, 0x1.097a76p-6f, -0x1.074dbcp-6f, 0x1.59597ap-7f, -0x1.5121d2p-8f, 0x1.f66d02p-10f}},  // [2.5, 3] 2^-27.5
    {0x1.9ffd2cp+1f, {0x1.fe7668p-1f, 0x1.8900cp-8f, -0x1.87cbc6p-8f, 0x1.03a0f2p-8f, -0x1.034826p-9f, 0x1.945066p-11f}},  // [3, 3.5] 2^-28.7
    {0x1.e0081cp+1f, {0x1.ff6f2ap-1f, 0x1.21831p-9f, -0x1.212bbep-9f, 0x1.80b4a2p-10f, -0x1.83614ap-11f, 0x1.332e98p-12f}},  // [3.5, 4] 2^-30.0
    {0x1.2004d2p+2f, {0x1.ffdfacp-1f, 0x1.0299ccp-11f, -0x1.0236bap-11f, 0x1.5814b4p-12f, -0x1.6864f8p-13f, 0x1.1fb1bap-14f}},  // [4, 5] 2^-26.1
    {0x1.6005f2p+2f, {0x1.fffbap-1f, 0x1.1800fep-14f, -0x1.17a496p-14f, 0x1.74c9d8p-15f, -0x1.86e41p-16f, 0x1.38b1bcp-17f}},  // [5, 6] 2^-29.0
    {0x1.9ff448p+2f, {0x1.ffff68p-1f, 0x1.2fcf28p-17f, -0x1.2c618ap-17f, 0x1.94d1bp-18f, -0x1.d9878ap-19f, 0x1.506552p-20f}},  // [6, 7] 2^-28.4
    {0x1.e00bb6p+2f, {0x1.ffffecp-1f, 0x1.47fd9ep-20f, -0x1.c5fb46p-20f, 0x1.b39894p-21f, 0x1.85ce9cp-20f, 0x1.990324p-23f}},  // [7, 8] 2^-26.0
    {0x1.38p+3f, {0x1p+0f, 0x1.bbb1ccp-23f, 0x1.d3e87p-21f, 0x1.80c88ep-20f, 0x1.f5a988p-21f, 0x1.d9bf8ap-23f}},  // [8, 9.75] 2^-27.1
};

// Piece index: the bits of |x| shifted right by 21 (exponent and two mantissa bits) count the
// quarter binades; 1/16 = 0x3D800000 starts piece 1, everything below is piece 0.
constexpr int kQuarterBinadeShift = 21;
constexpr int kFirstPieceOffset = (0x3D800000 >> kQuarterBinadeShift) - 1;

// One coefficient (or the centre, `column` == -1) of every piece as a lookup table of 32 entries,
// padded with the last piece (reached only by NaN lanes).
std::array<double, 32> column(int column) {
  std::array<double, 32> table{};
  constexpr std::size_t pieces = std::size(kPieces);
  static_assert(pieces <= table.size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    const Piece& piece = kPieces[i < pieces ? i : pieces - 1];
    table[i] = column < 0 ? piece.centre : piece.coefficients[column];
  }
  return table;
}

}  // namespace

// tanh(-x) = -tanh(x): the sign is copied back (tanh(-0) = -0; NaN stays NaN through t, whatever
// piece its bits select).
llvm::Value* tanh(MathBuilder& m, llvm::Value* x) {
  auto& b = m.ir();
  llvm::Value* magnitude = m.abs(x);
  llvm::Value* a = m.select(m.greater(magnitude, m.real(kClamp)), m.real(kClamp), magnitude);
  llvm::Value* piece = b.CreateSub(b.CreateLShr(m.to_bits(a), kQuarterBinadeShift),
                                   m.integer(kFirstPieceOffset));
  piece = b.CreateSelect(b.CreateICmpSLT(piece, m.integer(0)), m.integer(0), piece);
  // The centre and the coefficients, columns 0 to kDegree + 1. Where the tables sit in registers
  // each is looked up where it is used; elsewhere (AVX2, 128 bits) each lane loads its piece's
  // row of all seven (in cache on Zen 3: 1.5-2.3 ns per element against 1.9-2.6 for seven
  // lookups by vpermps, docs/vector_math.md).
  std::array<std::array<double, 32>, kDegree + 2> tables;
  std::array<llvm::ArrayRef<double>, kDegree + 2> columns;
  for (std::size_t j = 0; j < tables.size(); ++j) {
    tables[j] = column(static_cast<int>(j) - 1);
    columns[j] = tables[j];
  }
  std::vector<llvm::Value*> rows;
  if (!m.lookups_from_registers()) rows = m.lookup_rows(columns, piece);
  auto entry = [&](int c) {
    const auto j = static_cast<std::size_t>(c + 1);
    return rows.empty() ? m.lookup(columns[j], piece) : rows[j];
  };
  llvm::Value* t = m.sub(a, entry(-1));
  llvm::Value* sum = entry(kDegree);
  for (int j = kDegree - 1; j >= 0; --j) sum = m.fma(sum, t, entry(j));
  return m.copysign(sum, x);
}

}  // namespace tensorjit::codegen::vector_math::f32
