// hmac_md2.h — MD2 (RFC 1319) and HMAC-MD2 (RFC 2104 with MD2's 16-byte block). The statically
// linked CUDA runtime checks the driver it runs on with an HMAC-MD2 over a record of the process,
// the driver's export tables and the devices (cuda_private_tables.cc, docs/cudart.md "The static
// runtime"); nothing else in simtvp uses it.
#ifndef SIMTVP_HMAC_MD2_H
#define SIMTVP_HMAC_MD2_H

#include <cstddef>
#include <cstdint>

namespace cuentry {

// Incremental MD2: update() any number of times, then final() once.
class Md2 {
 public:
  Md2();
  void update(const void *data, size_t bytes);
  void final(uint8_t digest[16]);

 private:
  void compress();
  uint8_t state_[48];   // X: the 16-byte hash state followed by the 32-byte work area
  uint8_t checksum_[16];
  uint8_t block_[16];
  unsigned used_ = 0;   // bytes in block_
};

void md2(const void *data, size_t bytes, uint8_t digest[16]);

// HMAC-MD2 with a 16-byte key (MD2's block size, so the key is used as it is).
class HmacMd2 {
 public:
  explicit HmacMd2(const uint8_t key[16]);
  void update(const void *data, size_t bytes) { inner_.update(data, bytes); }
  void final(uint8_t mac[16]);

 private:
  uint8_t key_[16];
  Md2 inner_;
};

}  // namespace cuentry

#endif  // SIMTVP_HMAC_MD2_H
