// SnapStartInfoFromBundle: the Snap Start information a client needs to run
// Snap Start with a server it has never talked to, from a prefetched,
// verified bundle — the "first visit" of Stark et al.
//
// Snap Start predicts the server's first flight from a saved ServerHello.
// A bundle from the truncated handshake carries the real one; the others
// (DNS, well-known, CDN) carry only the suite and the orbit, so the template
// is synthesized as a Snap Start server answers net/snap_start's client: TLS
// 1.2, the bundle's suite, null compression, and the extensions echoed in the
// order the server writes them — renegotiation_info (the client sends the
// SCSV), extended_master_secret, session_ticket (if the client offers
// tickets), and Snap Start's orbit || suite. A wrong guess costs nothing but
// the attempt: the server sees the predicted hash differ and recovers with a
// normal handshake, from which the real ServerHello is learned.
//
// Pure function; the info is marked verified only when the caller says the
// chain was (prevalidated).

#ifndef PREFETCH_SNAP_START_FROM_BUNDLE_H_
#define PREFETCH_SNAP_START_FROM_BUNDLE_H_

#include <string>

#include "absl/status/statusor.h"
#include "net/snap_start/snap_start_client_context.h"
#include "prefetch/bundle_source.h"

namespace net {

// Fails (InvalidArgument) when the bundle has no orbit, its suite is not one
// net/snap_start speaks, or a given template does not parse.
absl::StatusOr<SnapStartInfo> SnapStartInfoFromBundle(
    const FetchedBundle& fetched, bool tickets, bool verified);

}  // namespace net

#endif  // PREFETCH_SNAP_START_FROM_BUNDLE_H_
