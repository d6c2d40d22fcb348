// hmac_md2.cc — MD2 as RFC 1319 specifies it, HMAC as RFC 2104 builds it (hmac_md2.h).
#include "hmac_md2.h"

#include <cstring>

namespace cuentry {

namespace {

// RFC 1319's substitution table: a permutation of 0..255 built from the digits of pi.
const uint8_t kPiSubst[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,   243,
    192, 199, 115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212, 224, 22,
    103, 66,  111, 24,  138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160, 251, 245, 142,
    187, 47,  238, 122, 169, 104, 121, 145, 21,  178, 7,   63,  148, 194, 16,  137, 11,  34,  95,  33,
    128, 127, 93,  154, 90,  144, 50,  39,  53,  62,  204, 231, 191, 247, 151, 3,   255, 25,  48,  179,
    72,  165, 181, 209, 215, 94,  146, 42,  172, 86,  170, 198, 79,  184, 56,  210, 150, 164, 125, 182,
    118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,  100, 113, 135, 32,  134, 91,  207, 101,
    230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246, 28,  70,  97,  105, 52,  64,  126, 15,
    85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249, 206, 186, 197, 234, 38,  44,  83,  13,  110,
    133, 40,  132, 9,   211, 223, 205, 244, 65,  129, 77,  82,  106, 220, 55,  200, 108, 193, 171, 250,
    36,  225, 123, 8,   12,  189, 177, 74,  120, 136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254,
    59,  0,   29,  57,  242, 239, 183, 14,  102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,
    49,  68,  80,  180, 143, 237, 31,  26,  219, 153, 141, 51,  159, 17,  131, 20};

}  // namespace

Md2::Md2() {
  std::memset(state_, 0, sizeof state_);
  std::memset(checksum_, 0, sizeof checksum_);
  std::memset(block_, 0, sizeof block_);
}

// RFC 1319 3.2 (checksum) and 3.4 (18 rounds over the 48-byte state).
void Md2::compress() {
  uint8_t last = checksum_[15];
  for (int j = 0; j < 16; j++) last = checksum_[j] ^= kPiSubst[block_[j] ^ last];
  for (int j = 0; j < 16; j++) {
    state_[16 + j] = block_[j];
    state_[32 + j] = block_[j] ^ state_[j];
  }
  uint8_t t = 0;
  for (int round = 0; round < 18; round++) {
    for (int k = 0; k < 48; k++) t = state_[k] ^= kPiSubst[t];
    t = (uint8_t)(t + round);
  }
  used_ = 0;
}

void Md2::update(const void *data, size_t bytes) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  for (size_t i = 0; i < bytes; i++) {
    block_[used_++] = p[i];
    if (used_ == 16) compress();
  }
}

// RFC 1319 3.1: pad with n bytes of value n (1..16), then append the checksum as a last block.
void Md2::final(uint8_t digest[16]) {
  uint8_t pad = (uint8_t)(16 - used_);  // used_ < 16 here: compress() empties a full block
  while (used_ < 16) block_[used_++] = pad;
  compress();
  uint8_t sum[16];
  std::memcpy(sum, checksum_, 16);
  std::memcpy(block_, sum, 16);
  compress();
  std::memcpy(digest, state_, 16);
}

void md2(const void *data, size_t bytes, uint8_t digest[16]) {
  Md2 h;
  h.update(data, bytes);
  h.final(digest);
}

HmacMd2::HmacMd2(const uint8_t key[16]) {
  std::memcpy(key_, key, 16);
  uint8_t ipad[16];
  for (int i = 0; i < 16; i++) ipad[i] = key_[i] ^ 0x36;
  inner_.update(ipad, 16);
}

void HmacMd2::final(uint8_t mac[16]) {
  uint8_t inner[16], opad[16];
  inner_.final(inner);
  for (int i = 0; i < 16; i++) opad[i] = key_[i] ^ 0x5c;
  Md2 outer;
  outer.update(opad, 16);
  outer.update(inner, 16);
  outer.final(mac);
}

}  // namespace cuentry
