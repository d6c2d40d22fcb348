/* fake_ldst — a stand-in for models/simt/ldst in the SIMT core's tests (simt_ldst.h's interface
 * through simt_ldst_iface): one instruction accepted per cycle; a load or atomic completes
 * `l1d_latency` cycles (from its simt_ldst_config) after it was issued, a store the next cycle,
 * and a store stays pending (simt_ldst_pending_stores) until `l1d_latency` cycles after issue.
 * The traffic variant instead sends one 32-byte request per global/local load, store or atomic
 * (GLOBAL_R / GLOBAL_W with needs_reply) through ports.send and completes a load when its reply
 * arrives; a store completes the next cycle and is pending until its acknowledgement. */
#ifndef SIMTVP_TESTS_FAKE_LDST_H
#define SIMTVP_TESTS_FAKE_LDST_H

#include "simt.h"

#ifdef __cplusplus
extern "C" {
#endif

const simt_ldst_iface *fake_ldst_iface(void);
const simt_ldst_iface *fake_ldst_traffic_iface(void);
/* Instructions the fake accepted so far (for tests). */
uint64_t fake_ldst_issued(const simt_ldst *u);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_TESTS_FAKE_LDST_H */
