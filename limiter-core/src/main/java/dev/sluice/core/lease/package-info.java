/**
 * The holder's side of leases: permits a key's owner admitted in advance, answered in the caller
 * without a network hop until they are spent or the lease ends, then given back.
 *
 * <p>Start here: {@link dev.sluice.core.lease.LeaseHolder} keeps the grants; three layers of the
 * backend stack use it: {@link dev.sluice.core.lease.LeaseAnswers} (answers an acquire from a live
 * lease), {@link dev.sluice.core.lease.LeaseAsks} (adds a lease ask to a command that goes to the
 * owner) and {@link dev.sluice.core.lease.LeaseReturns} (gives back what a lease did not spend).
 * Which keys lease, and how, is a {@link dev.sluice.core.lease.LeasePolicy}; {@link
 * dev.sluice.core.lease.LeaseDemand} is the one in use (four kinds of key, three kinds of ask;
 * docs/decisions/lease-policy.md). A lease only ever answers stricter than the owner would:
 * docs/architecture.md has the proof.
 */
@NullMarked
package dev.sluice.core.lease;

import org.jspecify.annotations.NullMarked;
